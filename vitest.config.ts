import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { AreaReporter } from './test/support/area-reporter.ts';
import { ProcessesFirstSequencer } from './test/support/sequencer.ts';

// Unit tests (pure code, next to it in src/) run once. Tests through the HTTP interface (test/api,
// test/cli) run twice: on the embedded PGlite and on the machine's PostgreSQL. Shopper pages run
// once, in Chromium, on PGlite.
const throughTheInterface = ['test/api/**/*.test.ts', 'test/cli/**/*.test.ts', 'test/db/**/*.test.ts', 'src/app/**/*.test.ts'];

// Test files wait on PostgreSQL, child processes and Chromium, so more workers than cores keep the
// cores busy while a process test waits (the restart and chaos tests wait 20 to 35 s each). Each
// worker also compiles and warms its own embedded engine (some 15 s of CPU per PGlite worker over a
// run), which weighs more on a slower machine: on one half as fast, three workers ran the suite in
// 380 to 403 s against four's 419 to 439 s (before process files were grouped by project). On the
// fifteenth session's machine, with the suite as it is, four took 279.8 and 278.1 s against three's
// 299.4 and 301.6 s (alternate runs; 412 and 412 s of CPU against 396 and 394). ACQUIRO_TEST_WORKERS
// overrides.
const workers = Number(process.env.ACQUIRO_TEST_WORKERS) || Math.min(8, Math.max(2, availableParallelism() + 2));

export default defineConfig({
  test: {
    // Wide: a test that starts processes or a browser on a loaded 2-core machine can take long
    // without being wrong (a CLI test opening fresh embedded databases took over 60 s at load
    // average 20); the limits catch hangs.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    maxWorkers: workers,
    // Every temporary directory of a run goes under one, removed when the run ends (test/support/temp.ts);
    // Node's compile cache is filled once on a new checkout, before the processes start (test/support/child-node.ts).
    globalSetup: ['test/support/temp.ts', 'test/support/child-node.ts'],
    // A worker keeps its modules and its PGlite instances from one test file to the next
    // (test/support/pglite-pool.ts); every file still gets a database schema of its own.
    isolate: false,
    reporters: [new AreaReporter()],
    sequence: { sequencer: ProcessesFirstSequencer },
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts', 'test/unit/**/*.test.ts', 'packages/sdk/src/**/*.test.ts'], exclude: ['src/app/**'] } },
      { extends: true, test: { name: 'pglite', include: throughTheInterface, env: { ACQUIRO_TEST_DB: 'pglite' } } },
      {
        extends: true,
        test: { name: 'postgres', include: throughTheInterface, env: { ACQUIRO_TEST_DB: 'postgres' }, globalSetup: ['test/support/postgres-setup.ts'] },
      },
      // The SDK package (packages/sdk) against a listening gateway, and packed, installed and used
      // as a merchant's project would: once, on PGlite.
      { extends: true, test: { name: 'sdk', include: ['packages/sdk/test/**/*.test.ts'], env: { ACQUIRO_TEST_DB: 'pglite' }, testTimeout: 60_000, hookTimeout: 240_000 } },
      // Shopper pages in headless Chromium against a listening gateway, on PGlite. The setup
      // installs Chromium and a CJK font when they are missing (test/support/e2e-setup.ts).
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], env: { ACQUIRO_TEST_DB: 'pglite' }, globalSetup: ['test/support/e2e-setup.ts'] } },
    ],
  },
});
