// Test file order: the files that start processes, a browser or a PostgreSQL of their own first,
// longest first within each project; then vitest's order for the rest (project by project, failed
// and slow files first once it has timings). A long file that starts last decides when the whole
// run ends: the batch test that stops its own PostgreSQL waits a minute on a loaded machine.
//
// Files of one project run one after the other, not interleaved with another project's: vitest
// keeps a worker (its loaded modules, its embedded databases) for the next file only when that
// file is of the same project, and starts a new one otherwise. Interleaved, every process file
// paid a new worker (1 to 4 s of CPU each, some forty of them a run, on a machine whose two cores
// the suite keeps busy). The projects' process files go in the order of their total duration,
// longest first, so that the postgres project's long restart tests do not start last.
//
// Vitest's timings of a file are per project. A file it has none for (a fresh clone, a new file)
// goes first within its project, as vitest does, larger files before smaller.
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
    const sorted = await super.sort(files);
    const processes = sorted.filter(startsProcesses);
    const rest = sorted.filter((spec) => !processes.includes(spec));
    return [...(await this.byProject(processes)), ...rest];
  }

  private duration(spec: TestSpecification): number | undefined {
    return this.ctx.cache.getTestSpecificationResult(spec)?.duration;
  }

  /** Each project's files together, longest first; the projects by their files' total duration. */
  private async byProject(files: TestSpecification[]): Promise<TestSpecification[]> {
    const projects = new Map<string, TestSpecification[]>();
    for (const spec of files) projects.set(spec.project.name, [...(projects.get(spec.project.name) ?? []), spec]);
    const total = (specs: TestSpecification[]) => specs.reduce((sum, spec) => sum + (this.duration(spec) ?? 0), 0);
    // On a fresh clone nothing has a duration yet: the project with more such files first.
    const groups = [...projects.values()].sort((a, b) => total(b) - total(a) || b.length - a.length);
    return (await Promise.all(groups.map((group) => this.longestFirst(group)))).flat();
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
