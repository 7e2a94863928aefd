import { defineConfig } from 'vitest/config';

// Unit tests (pure code, next to it in src/) run once. Tests through the HTTP interface (test/api,
// test/cli) run twice: on the embedded PGlite and on the machine's PostgreSQL.
const throughTheInterface = ['test/api/**/*.test.ts', 'test/cli/**/*.test.ts', 'test/db/**/*.test.ts', 'src/app/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
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
      // Shopper pages in headless Chromium against a listening gateway: once, on PGlite, one file at a time.
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], env: { ACQUIRO_TEST_DB: 'pglite' }, fileParallelism: false } },
    ],
  },
});
