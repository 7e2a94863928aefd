// Test file order: each project's files together, the projects one after the other; within a
// project, the files that start processes, a browser or a PostgreSQL of their own first, longest
// first, then vitest's order for the rest (failed and slow files first once it has timings). A long
// file that starts last decides when the whole run ends: the batch test that stops its own
// PostgreSQL waits a minute on a loaded machine.
//
// Vitest keeps a worker (its loaded modules, its embedded databases) for the next file only when
// that file is of the same project, and starts a new one otherwise: every change of project costs
// each worker a new start (some 1.7 s of CPU to load the gateway's modules, and on PGlite a new
// embedded database), on a machine whose two cores the suite keeps busy from start to end.
// Interleaved, every process file paid one (some forty a run); with each project's process files
// together but its other files after every project's process files, each project still started
// its workers twice. The projects go in the order of their longest file, longest first, so that no
// long file (a browser test, the postgres project's restart tests) starts near the end.
//
// Vitest's timings of a file are per project. A file it has none for (a fresh clone, a new file)
// goes first within its project, as vitest does, larger files before smaller; on a fresh clone the
// browser's project goes first, then the projects with more process files.
import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const STARTS_PROCESSES = /\/test\/(cli|e2e)\//;
const OWN_POSTGRES = /from '\.\.\/support\/own-postgres\.ts'/;

function startsProcesses(spec: TestSpecification): boolean {
  return STARTS_PROCESSES.test(spec.moduleId) || OWN_POSTGRES.test(readFileSync(spec.moduleId, 'utf8'));
}

export class ProcessesFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const projects = new Map<string, TestSpecification[]>();
    for (const spec of await super.sort(files)) projects.set(spec.project.name, [...(projects.get(spec.project.name) ?? []), spec]);
    const longest = (specs: TestSpecification[]) => Math.max(0, ...specs.map((spec) => this.duration(spec) ?? 0));
    // Without timings (a fresh clone, as in CI): the projects made of process files only (the
    // browser's) first, whose files are long, then those with more process files.
    const processFiles = (specs: TestSpecification[]) => specs.filter(startsProcesses).length;
    const share = (specs: TestSpecification[]) => processFiles(specs) / specs.length;
    const groups = [...projects.values()].sort((a, b) => longest(b) - longest(a) || share(b) - share(a) || processFiles(b) - processFiles(a));
    const ordered = await Promise.all(
      groups.map(async (group) => {
        const processes = group.filter(startsProcesses);
        return [...(await this.longestFirst(processes)), ...group.filter((spec) => !processes.includes(spec))];
      }),
    );
    return ordered.flat();
  }

  private duration(spec: TestSpecification): number | undefined {
    return this.ctx.cache.getTestSpecificationResult(spec)?.duration;
  }

  /** Files without timings first (larger first), then the others by their last duration, longest first. */
  private async longestFirst(files: TestSpecification[]): Promise<TestSpecification[]> {
    const unknown = files.filter((spec) => this.duration(spec) === undefined);
    const sizes = new Map(await Promise.all(unknown.map(async (spec) => [spec, (await stat(spec.moduleId)).size] as const)));
    return [
      ...unknown.sort((a, b) => sizes.get(b)! - sizes.get(a)!),
      ...files.filter((spec) => this.duration(spec) !== undefined).sort((a, b) => this.duration(b)! - this.duration(a)!),
    ];
  }
}
