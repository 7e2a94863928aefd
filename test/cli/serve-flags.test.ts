// `acquiro serve --no-worker`: a server that does no background work, for running many servers
// beside `acquiro worker` processes; anything else after `serve` or `worker` is refused.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMPILE_CACHE, serverFlags } from '../support/child-node.ts';
import { acquiro, freePort, migratedDataDir, whileRunning } from '../support/processes.ts';
import pg from 'pg';
import { openTestDatabase, POSTGRES_URL, TEST_DB } from '../support/gateway.ts';
import { until } from '../support/until.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** `acquiro <args>` until GET /health answers; then stopped. Answers what it printed. */
async function serveOnce(args: readonly string[], env: Record<string, string>): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [...serverFlags(), join(ROOT, 'bin/acquiro.js'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_COMPILE_CACHE: COMPILE_CACHE, LOG_LEVEL: 'info', PORT: String(port), ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  try {
    // 90 s for both waits.
    const deadline = Date.now() + 90_000;
    const serving = whileRunning({ child, output: () => output });
    await until('acquiro serve answering GET /health', () => fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false), { ...serving, withinMs: 90_000, everyMs: 100 });
    // The ready line follows /health's first 200 by a moment.
    await until('the ready line', () => output.includes('acquiro is ready'), { ...serving, withinMs: deadline - Date.now(), everyMs: 50 });
    return output;
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
}

const readyLine = (output: string) => JSON.parse(output.split('\n').find((line) => line.includes('acquiro is ready'))!) as { workers: boolean };

// The embedded database is enough to show the flag; the PostgreSQL project need not repeat it.
describe.runIf(TEST_DB === 'pglite')('acquiro serve', () => {
  it('runs no background work with --no-worker, and its workers without it', async () => {
    expect(readyLine(await serveOnce(['serve', '--no-worker'], { ACQUIRO_DATA_DIR: await migratedDataDir() })).workers).toBe(false);
    expect(readyLine(await serveOnce(['serve'], { ACQUIRO_DATA_DIR: await migratedDataDir() })).workers).toBe(true);
  });

  it('refuses an option it does not know, before touching the data directory', async () => {
    for (const args of [['serve', '--no-workers'], ['worker', '--no-worker']]) {
      const run = await acquiro(args, { ACQUIRO_DATA_DIR: '/nonexistent/acquiro-data' });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain(`unknown option '${args[1]}' for acquiro ${args[0]}`);
    }
  });
});

// Without autovacuum nothing renews PostgreSQL's statistics, and the hot statements keep the plans
// each connection made while the tables were small (docs/operations.md). This machine's cluster
// may run either way: the warning must follow the setting.
describe.runIf(TEST_DB === 'postgres')('acquiro serve on PostgreSQL', () => {
  it("warns at start exactly when the database's autovacuum is off", async () => {
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    const off = (await admin.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0]!.autovacuum === 'off';
    await admin.end();
    const test = await openTestDatabase(1);
    try {
      const served = await serveOnce(['serve', '--no-worker'], test.env);
      const warning = served.split('\n').find((line) => line.includes('autovacuum'));
      expect(Boolean(warning), served).toBe(off);
      if (warning) expect(JSON.parse(warning)).toMatchObject({ level: 40, setting: 'autovacuum' });
      expect(readyLine(served).workers).toBe(false);
    } finally {
      await test.drop();
    }
  });
});
