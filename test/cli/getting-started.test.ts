// docs/getting-started.md runs as written: every `sh` block, in order, in one bash, against a
// real gateway on an empty database (its address put in place of the page's 127.0.0.1:8080). The
// page starts the gateway as `npm start` does, on the embedded database: it runs in that project
// only (every command it runs is tested on PostgreSQL by the other files of test/cli).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { COMPILE_CACHE } from '../support/child-node.ts';
import { TEST_DB } from '../support/gateway.ts';
import { migratedDataDir, startServer, type RunningServer } from '../support/processes.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const page = readFileSync(new URL('docs/getting-started.md', new URL('../../', import.meta.url)), 'utf8');
const script = [...page.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n');

let env: Record<string, string>;
let server: RunningServer;
beforeAll(async () => {
  if (TEST_DB !== 'pglite') return;
  env = { ACQUIRO_DATA_DIR: await migratedDataDir() };
  server = await startServer(env);
});
afterAll(async () => {
  await server?.stop();
});

function bash(text: string, extraEnv: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', text], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_COMPILE_CACHE: COMPILE_CACHE, LOG_LEVEL: 'warn', ...extraEnv },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

it.runIf(TEST_DB === 'pglite')('runs every shell command of docs/getting-started.md, setting every variable it uses', { timeout: 300_000 }, async () => {
  expect(script).toContain('npx acquiro call /v1/authorise');
  expect(script).toContain('http://127.0.0.1:8080');
  const run = await bash(script.replaceAll('http://127.0.0.1:8080', server.url), env);
  const output = `${run.stdout}\n${run.stderr}`;
  expect(run.code, output).toBe(0);
  // The first payment (call), the curl one, the query from 127.0.0.1, the manual authorisation and its capture.
  expect(run.stdout.match(/<result_info>0000:Success<\/result_info>/g)?.length, output).toBe(3);
  expect(run.stdout).toContain('<payment_status>3000</payment_status>');
  expect(run.stdout).toContain('<payment_status>2000</payment_status>');
  expect(run.stdout).toMatch(/"return_status":"1"[^]*"order_no":"ORD-1"[^]*"order_no":"ORD-2"/);
  expect(run.stdout).toMatch(/"capture_status":"1"/);
  expect(run.stdout).toMatch(/^status +captured$/m);
  expect(run.stdout).toMatch(/^[0-9a-f]{64}$/m);
  expect(run.stderr.match(/the answer's encryption_data verifies/g)?.length, output).toBe(4);
});
