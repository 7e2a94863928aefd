// `npm test`'s reporter: vitest's default one (failures in full, the closing summary), with a line
// per finished test file that says where each area (vitest project: unit, pglite, postgres, e2e)
// stands, a line when an area is done, and a table of the areas before the closing summary.
// On a terminal and in CI logs alike, so a long run shows its progress.
import type { TestModule, TestSpecification } from 'vitest/node';
import { DefaultReporter } from 'vitest/node';

interface Area {
  files: number;
  finished: number;
  tests: number;
  failed: number;
  skipped: number;
  failedFiles: number;
  firstStart?: number;
  lastEnd?: number;
}

const seconds = (ms: number) => (ms >= 60_000 ? `${Math.floor(ms / 60_000)}m ${Math.round((ms % 60_000) / 1000)}s` : `${(ms / 1000).toFixed(1)}s`);

export class AreaReporter extends DefaultReporter {
  private readonly areas = new Map<string, Area>();
  private width = 0;

  private area(name: string): Area {
    let area = this.areas.get(name);
    if (!area) {
      area = { files: 0, finished: 0, tests: 0, failed: 0, skipped: 0, failedFiles: 0 };
      this.areas.set(name, area);
    }
    return area;
  }

  override onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    super.onTestRunStart(specifications);
    this.areas.clear();
    for (const spec of specifications) this.area(spec.project.name).files++;
    this.width = Math.max(0, ...[...this.areas.keys()].map((name) => name.length));
    const parts = [...this.areas].map(([name, area]) => `${name} ${area.files}`);
    this.log(`${specifications.length} test files in ${this.areas.size} area${this.areas.size === 1 ? '' : 's'}: ${parts.join(' · ')}; ${this.ctx.config.maxWorkers} workers`);
  }

  onTestModuleStart(module: TestModule): void {
    const area = this.area(module.project.name);
    area.firstStart ??= Date.now();
  }

  protected override printTestModule(module: TestModule): void {
    const state = module.state();
    if (state === 'queued' || state === 'pending') return;
    const area = this.area(module.project.name);
    let tests = 0;
    let failed = 0;
    let skipped = 0;
    for (const test of module.children.allTests()) {
      tests++;
      const result = test.result().state;
      if (result === 'failed') failed++;
      else if (result === 'skipped') skipped++;
    }
    area.finished++;
    area.tests += tests;
    area.failed += failed;
    area.skipped += skipped;
    if (state === 'failed') area.failedFiles++;
    area.lastEnd = Date.now();
    const mark = state === 'failed' ? '✗' : state === 'skipped' ? '↓' : '✓';
    const counts = [`${tests} tests`, failed ? `${failed} failed` : '', skipped ? `${skipped} skipped` : ''].filter(Boolean).join(', ');
    const tag = `[${module.project.name.padEnd(this.width)} ${String(area.finished).padStart(String(area.files).length)}/${area.files}]`;
    this.log(`${tag} ${mark} ${module.moduleId.replace(`${this.ctx.config.root}/`, '')}  ${counts}  ${seconds(module.diagnostic().collectDuration + module.diagnostic().duration)}`);
    // A failed file gets the default reporter's detail: which tests failed (the errors come at the end).
    if (state === 'failed') super.printTestModule(module);
    if (area.finished === area.files) this.log(`[${module.project.name}] done: ${this.describe(area)}`);
  }

  private describe(area: Area): string {
    const took = area.firstStart !== undefined && area.lastEnd !== undefined ? ` in ${seconds(area.lastEnd - area.firstStart)}` : '';
    const problems = [area.failed ? `${area.failed} failed` : '', area.skipped ? `${area.skipped} skipped` : ''].filter(Boolean).join(', ');
    return `${area.finished}/${area.files} files, ${area.tests} tests${problems ? ` (${problems})` : ''}${took}`;
  }

  override reportTestSummary(...args: Parameters<DefaultReporter['reportTestSummary']>): void {
    this.log();
    for (const [name, area] of this.areas) this.log(`  ${area.failedFiles ? '✗' : '✓'} ${name.padEnd(this.width)}  ${this.describe(area)}`);
    super.reportTestSummary(...args);
  }
}
export default AreaReporter;
