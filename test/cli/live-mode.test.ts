// Live mode through real processes on PostgreSQL (live mode runs only there): `acquiro serve` makes
// no demo merchant, starts only with an https:// ACQUIRO_BASE_URL (as `npm start`; `acquiro worker`,
// which hands out no link, without one, and `users create` and `reset` print no link without one), refuses a database whose sealed data its vault keys cannot open (exit 78,
// saying what to do; `acquiro worker` too), and the CLI refuses to put a live merchant on the sandbox simulator. The
// file uses a schema of its own on the machine's PostgreSQL whatever the project: it runs once.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPILE_CACHE, serverFlags } from '../support/child-node.ts';
import { POSTGRES_URL, TEST_DB } from '../support/gateway.ts';
import { acquiro, freePort, startWorker, whileRunning } from '../support/processes.ts';
import { until } from '../support/until.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const schema = `t_live_${randomBytes(6).toString('hex')}`;
const key = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;
const KEY_A = key('k-a');
const KEY_B = key('k-b');
const base = { DATABASE_URL: `${POSTGRES_URL}?options=-c%20search_path%3D${schema}` };
const FINGERPRINT_KEY = randomBytes(32).toString('base64');
const PUBLIC_URL = 'https://pay.example.test';
// The base URL is text in links: the test server serves plain HTTP on a loopback port all the same.
const live = { ...base, ACQUIRO_MODE: 'live', ACQUIRO_VAULT_KEYS: KEY_A, ACQUIRO_FINGERPRINT_KEY: FINGERPRINT_KEY, ACQUIRO_WORKERS: 'off', ACQUIRO_BASE_URL: PUBLIC_URL };

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
    await until('acquiro serve answering GET /health', () => fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false), {
      withinMs: 60_000,
      everyMs: 100,
      ...whileRunning({ child, output: () => output }),
    });
    return output;
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
}

/**
 * `acquiro <args>` (or `npm start`'s entry point, `src/main.ts`) until it exits, or 20 s: a start
 * that should have been refused is killed then.
 */
async function exitWithin(args: readonly string[], env: Record<string, string>, script = 'bin/acquiro.js'): Promise<{ code: number | string | null; stderr: string }> {
  const child = spawn(process.execPath, [...serverFlags(), join(ROOT, script), ...args], {
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

const memberCount = () => admin(async (client) => Number((await client.query(`SELECT count(*) AS n FROM ${schema}.portal_users`)).rows[0].n));

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

  // Every link the gateway hands out (hosted payment pages, 3-D Secure and APM pages, portal
  // set-password links) is built from ACQUIRO_BASE_URL. Without it they named the listening
  // address; with http:// card details and staff passwords crossed the network in clear.
  describe('ACQUIRO_BASE_URL', () => {
    const { ACQUIRO_BASE_URL: _set, ...unset } = live;
    const starts = [
      ['acquiro serve', ['serve'], 'bin/acquiro.js'],
      ['npm start', [], 'src/main.ts'],
    ] as const;

    it.each(starts)('%s refuses to start without it: exit 78, naming it and what it must be', async (_name, args, script) => {
      const port = await freePort();
      const refused = await exitWithin(args, { ...unset, PORT: String(port) }, script);
      expect(refused).toEqual({
        code: 78,
        stderr:
          'acquiro: ACQUIRO_BASE_URL is required in live mode: set it to the public https:// URL shoppers and portal staff reach the gateway at ' +
          `(such as https://pay.example.com); without it hosted payment pages and portal set-password links would point at http://127.0.0.1:${port}, the listening address\n`,
      });
    });

    it.each(starts)('%s refuses an http:// one, on a loopback host too: exit 78', async (_name, args, script) => {
      const port = await freePort();
      for (const url of ['http://pay.example.test', `http://127.0.0.1:${port}`]) {
        const refused = await exitWithin(args, { ...live, ACQUIRO_BASE_URL: url, PORT: String(port) }, script);
        expect([url, refused.code]).toEqual([url, 78]);
        expect(refused.stderr).toBe(
          'acquiro: ACQUIRO_BASE_URL is invalid in live mode: expected an https:// URL; hosted payment pages, 3-D Secure and APM pages and portal set-password links ' +
            'are built from it, and over http card details and staff passwords would cross the network in clear\n',
        );
      }
    });

    it('acquiro worker, which hands out no link, runs without it (and refuses an http:// one, as every live command)', async () => {
      const worker = startWorker({ ...unset, LOG_LEVEL: 'info' });
      try {
        await until('acquiro worker running', () => worker.output().includes('acquiro worker is running'), { withinMs: 30_000, everyMs: 100, ...whileRunning(worker) });
      } finally {
        await worker.stop();
      }
      const refused = await exitWithin(['worker'], { ...live, ACQUIRO_BASE_URL: 'http://pay.example.test' });
      expect(refused.code).toBe(78);
      expect(refused.stderr).toContain('ACQUIRO_BASE_URL is invalid in live mode: expected an https:// URL');
    });

    it('users create and users reset print no set-password link without it (exit 78, nothing stored); with it, the link is on it', async () => {
      const made = await acquiro(['merchants', 'create', '--name', 'Staffed shop', '--json'], { ...base, ACQUIRO_VAULT_KEYS: KEY_A });
      expect(made.code).toBe(0);
      const merchant = (JSON.parse(made.stdout) as { merchant_id: string }).merchant_id;
      const create = (email: string) => ['users', 'create', '--merchant-id', merchant, '--email', email, '--role', 'admin', '--json'];
      const members = await memberCount();

      const refused = await acquiro(create('first@shop.example'), unset);
      expect(refused.code).toBe(78);
      expect(refused.stderr).toMatch(/^error: ACQUIRO_BASE_URL is required in live mode: set it to the public https:\/\/ URL [^\n]+\n$/);
      expect(refused.stdout).toBe('');
      expect(await memberCount()).toBe(members);

      // A password given on standard input makes no link: nothing to point anywhere.
      const withPassword = await acquiro([...create('piped@shop.example'), '--password-stdin'], unset, 'a password from a pipe\n');
      expect(withPassword.code).toBe(0);
      expect(JSON.parse(withPassword.stdout)).toMatchObject({ email: 'piped@shop.example', set_password_url: null });

      const invited = await acquiro(create('first@shop.example'), live);
      expect(invited.code).toBe(0);
      expect((JSON.parse(invited.stdout) as { set_password_url: string }).set_password_url).toMatch(/^https:\/\/pay\.example\.test\/portal\/set-password\?token=[\w-]+$/);

      const reset = ['users', 'reset', '--email', 'first@shop.example', '--json'];
      const resetRefused = await acquiro(reset, unset);
      expect([resetRefused.code, resetRefused.stdout]).toEqual([78, '']);
      expect(resetRefused.stderr).toMatch(/^error: ACQUIRO_BASE_URL is required in live mode/);
      const audited = () => admin(async (client) => Number((await client.query(`SELECT count(*) AS n FROM ${schema}.portal_audit_log WHERE action = 'member.reset'`)).rows[0].n));
      expect(await audited()).toBe(0);
      const resetDone = await acquiro(reset, live);
      expect(resetDone.code).toBe(0);
      expect((JSON.parse(resetDone.stdout) as { set_password_url: string }).set_password_url).toMatch(/^https:\/\/pay\.example\.test\/portal\/set-password\?token=/);
      expect(await audited()).toBe(1);
    });
  });
});
