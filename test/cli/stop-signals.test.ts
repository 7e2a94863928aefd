// Stopping a running process: an operator's Ctrl-C followed by the supervisor's SIGTERM (or
// `kill` sent twice) stops it once, as docs/operations.md "Stopping" says, and ends with exit 0.
// The second signal ran the stop a second time beside the first: closing the closed database threw
// ("PGlite is closed", node-postgres' "Called end on pool more than once") as an unhandled
// rejection, which printed a stack (PGlite's with 200 KB of its minified source) and exited 1.
import { describe, expect, it } from 'vitest';
import { openTestDatabase, TEST_DB } from '../support/gateway.ts';
import { migratedDataDir, startServer, startWorker } from '../support/processes.ts';

const env = async (): Promise<{ env: Record<string, string>; close: () => Promise<void> }> => {
  if (TEST_DB === 'postgres') {
    const database = await openTestDatabase(2);
    return { env: database.env, close: () => database.drop() };
  }
  return { env: { ACQUIRO_DATA_DIR: await migratedDataDir() }, close: async () => {} };
};

describe('a process stopped by two signals', () => {
  it.each([[undefined], [['serve']]])('stops once and exits 0 (acquiro %o; undefined: npm start)', async (acquiroArgs) => {
    const { env: vars, close } = await env();
    try {
      const server = await startServer(vars, acquiroArgs ? { acquiroArgs } : {});
      server.child.kill('SIGINT');
      server.child.kill('SIGTERM');
      const code = await server.stop();
      expect(server.output()).not.toMatch(/Error|\n\s+at /);
      expect(code).toBe(0);
    } finally {
      await close();
    }
  });

  it.runIf(TEST_DB === 'postgres')('stops a worker once and exits 0', async () => {
    const { env: vars, close } = await env();
    try {
      const worker = startWorker({ ...vars, LOG_LEVEL: 'info' });
      const deadline = Date.now() + 60_000;
      while (!worker.output().includes('acquiro worker is running') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      worker.child.kill('SIGINT');
      worker.child.kill('SIGTERM');
      const code = await worker.stop();
      expect(worker.output()).not.toMatch(/Error|\n\s+at /);
      expect(code).toBe(0);
    } finally {
      await close();
    }
  });
});
