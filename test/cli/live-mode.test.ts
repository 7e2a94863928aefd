// Live mode through real processes on PostgreSQL (live mode runs only there): `acquiro serve` makes
// no demo merchant, refuses a database whose sealed data its vault keys cannot open (exit 78,
// saying what to do; `acquiro worker` too), and the CLI refuses to put a live merchant on the sandbox simulator. The
// file uses a schema of its own on the machine's PostgreSQL whatever the project: it runs once.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPILE_CACHE, serverFlags } from '../support/child-node.ts';
import { POSTGRES_URL, TEST_DB } from '../support/gateway.ts';
import { acquiro, freePort } from '../support/processes.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const schema = `t_live_${randomBytes(6).toString('hex')}`;
const key = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;
const KEY_A = key('k-a');
const KEY_B = key('k-b');
const base = { DATABASE_URL: `${POSTGRES_URL}?options=-c%20search_path%3D${schema}` };
const FINGERPRINT_KEY = randomBytes(32).toString('base64');
const live = { ...base, ACQUIRO_MODE: 'live', ACQUIRO_VAULT_KEYS: KEY_A, ACQUIRO_FINGERPRINT_KEY: FINGERPRINT_KEY, ACQUIRO_WORKERS: 'off' };

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** `acquiro serve` until GET /health answers; then stopped. Answers what it printed. */
async function serveOnce(env: Record<string, string>): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [...serverFlags(), join(ROOT, 'bin/acquiro.js'), 'serve'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_COMPILE_CACHE: COMPILE_CACHE, LOG_LEVEL: 'warn', PORT: String(port), ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  try {
    const deadline = Date.now() + 60_000;
    while (!(await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false))) {
      if (child.exitCode !== null) throw new Error(`acquiro serve exited early:\n${output}`);
      if (Date.now() > deadline) throw new Error(`acquiro serve not ready in 60 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return output;
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
}

/** `acquiro <args>` until it exits, or 20 s: a start that should have been refused is killed then. */
async function exitWithin(args: readonly string[], env: Record<string, string>): Promise<{ code: number | string | null; stderr: string }> {
  const child = spawn(process.execPath, [...serverFlags(), join(ROOT, 'bin/acquiro.js'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_COMPILE_CACHE: COMPILE_CACHE, LOG_LEVEL: 'warn', ...env },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const code = await Promise.race([exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running after 20 s'), 20_000))]);
  if (child.exitCode === null) {
    child.kill('SIGKILL');
    await exited;
  }
  return { code, stderr };
}

const merchantCount = () =>
  admin(async (client) => Number((await client.query(`SELECT count(*) AS n FROM ${schema}.merchants WHERE id <> 'platform'`)).rows[0].n));

describe.runIf(TEST_DB === 'postgres')('acquiro in live mode on PostgreSQL', () => {
  beforeAll(() => admin((client) => client.query(`CREATE SCHEMA ${schema}`)));
  afterAll(() => admin((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)));

  it('serves an empty database without making a demo merchant', async () => {
    const output = await serveOnce(live);
    expect(output).not.toMatch(/demo merchant|secret_key/);
    expect(await merchantCount()).toBe(0);
  });

  it('starts only with ACQUIRO_FINGERPRINT_KEY, which acquiro vault fingerprint-key prints to keep the fingerprints made so far', async () => {
    // Without it, fingerprints came from the first vault key: putting a new key first (the
    // documented rotation) changed every one, and a retried order was refused as another.
    const { ACQUIRO_FINGERPRINT_KEY: _set, ...unset } = live;
    for (const command of ['serve', 'worker']) {
      const refused = await exitWithin([command], { ...unset, PORT: String(await freePort()) });
      expect([command, refused.code]).toEqual([command, 78]);
      expect(refused.stderr).toContain('ACQUIRO_FINGERPRINT_KEY is required in live mode');
    }
    const printed = await acquiro(['vault', 'fingerprint-key', '--json'], unset);
    expect(printed.code).toBe(0);
    const derived = JSON.parse(printed.stdout) as { fingerprint_key: string; from: string };
    expect(derived.from).toBe('derived from vault key k-a');
    // Set, it stays the key whatever vault key comes first.
    const rotated = await acquiro(['vault', 'fingerprint-key', '--json'], { ...unset, ACQUIRO_FINGERPRINT_KEY: derived.fingerprint_key, ACQUIRO_VAULT_KEYS: `${KEY_B},${KEY_A}` });
    expect(JSON.parse(rotated.stdout)).toEqual({ fingerprint_key: derived.fingerprint_key, from: 'ACQUIRO_FINGERPRINT_KEY' });
    await serveOnce({ ...unset, ACQUIRO_FINGERPRINT_KEY: derived.fingerprint_key });
  });

  it('refuses to put a merchant on the sandbox simulator, saying what to name instead', async () => {
    const run = await acquiro(['merchants', 'create', '--name', 'Live shop'], live);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'error: live mode: the sandbox simulator cannot process live payments; name the connector of your acquirer (--connector NAME), registered for live mode\n',
    );
    expect(await merchantCount()).toBe(0);
  });

  it('refuses to start on data sealed with vault keys it was not given: exit 78 and what to do', async () => {
    // A merchant whose secret key is sealed with key A (made in sandbox mode, where the simulator is allowed).
    const made = await acquiro(['merchants', 'create', '--name', 'Sealed shop'], { ...base, ACQUIRO_VAULT_KEYS: KEY_A });
    expect(made.code).toBe(0);
    const port = await freePort();
    const refused = await acquiro(['serve'], { ...live, ACQUIRO_VAULT_KEYS: KEY_B, PORT: String(port) });
    expect(refused.code).toBe(78);
    expect(refused.stderr).toContain(
      'the database holds data sealed with vault key k-a, which ACQUIRO_VAULT_KEYS cannot open: start with the keys this database was sealed with in ACQUIRO_VAULT_KEYS',
    );
    expect(refused.stderr).toContain('acquiro vault reseal');
    // So does a worker: it signs every notification with a sealed secret key, and charges stored cards.
    const worker = await exitWithin(['worker'], { ...live, ACQUIRO_VAULT_KEYS: KEY_B });
    expect(worker.code).toBe(78);
    expect(worker.stderr).toContain('the database holds data sealed with vault key k-a, which ACQUIRO_VAULT_KEYS cannot open');
    // With the key it was sealed with, the same process starts.
    await serveOnce({ ...live, ACQUIRO_VAULT_KEYS: `${KEY_B},${KEY_A}` });
  });
});
