// Test file order: the files that start processes or a browser first, whatever their project,
// longest first; then vitest's order for the rest (project by project, failed and slow files
// first once it has timings). A long file that starts last decides when the whole run ends, and
// vitest queues the projects one after the other: the postgres project's process files would
// start only once the pglite project's were under way, and finish last.
//
// Vitest's timings of a file are per project. A file it has none for (a fresh clone, a new file)
// goes first, as vitest does, larger files before smaller: on a fresh clone the two projects' runs
// of the same file then sit side by side.
import { stat } from 'node:fs/promises';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const STARTS_PROCESSES = /\/test\/(cli|e2e)\//;

export class ProcessesFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const processes = sorted.filter((spec) => STARTS_PROCESSES.test(spec.moduleId));
    const rest = sorted.filter((spec) => !STARTS_PROCESSES.test(spec.moduleId));
    return [...(await this.longestFirst(processes)), ...rest];
  }

  /** Files without timings first (larger first), then the others by their last duration, longest first. */
  private async longestFirst(files: TestSpecification[]): Promise<TestSpecification[]> {
    const duration = (spec: TestSpecification) => this.ctx.cache.getTestSpecificationResult(spec)?.duration;
    const unknown = files.filter((spec) => duration(spec) === undefined);
    const sizes = new Map(await Promise.all(unknown.map(async (spec) => [spec, (await stat(spec.moduleId)).size] as const)));
    return [
      ...unknown.sort((a, b) => sizes.get(b)! - sizes.get(a)!),
      ...files.filter((spec) => duration(spec) !== undefined).sort((a, b) => duration(b)! - duration(a)!),
    ];
  }
}
