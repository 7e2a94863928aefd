// Test file order: vitest's (area by area, failed and slow files first once it has timings),
// except that within each area the files that start processes or a browser go first. They
// take longest, and a long file that starts last decides when the whole run ends; on a fresh
// clone vitest has no timings yet and would order by file size.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const STARTS_PROCESSES = /\/test\/(cli|e2e)\//;

export class ProcessesFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const areas = [...new Set(sorted.map((spec) => spec.project.name))];
    const rank = (spec: TestSpecification) => areas.indexOf(spec.project.name) * 2 + (STARTS_PROCESSES.test(spec.moduleId) ? 0 : 1);
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
