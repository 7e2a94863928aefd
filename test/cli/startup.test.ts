// Start-up as operators meet it: a port in use or a database out of reach ends in one line naming
// the setting to change, exit code 78 (configuration), and nothing written: the demo merchant of
// an empty database is made by the start that serves, and its credentials are printed then.
import { spawn } from 'node:child_process';
import { existsSync, renameSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPILE_CACHE, serverFlags } from '../support/child-node.ts';
import { openTestDatabase, POSTGRES_URL, TEST_DB, type TestDatabase } from '../support/gateway.ts';
import { acquiro, freePort, initialisedDataDir, migratedDataDir, startServer, tempDataDir, type Run } from '../support/processes.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** `npm start`'s entry point with its flags, run until it exits (from code the compile cache holds, as every process of the tests: test/support/child-node.ts). */
function start(env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...serverFlags(), join(ROOT, 'src/main.ts')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_COMPILE_CACHE: COMPILE_CACHE, LOG_LEVEL: 'info', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Something else listening on a port of 127.0.0.1. */
async function occupiedPort(): Promise<{ port: number; close: () => Promise<void> }> {
  const squatter = net.createServer();
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  return { port: (squatter.address() as net.AddressInfo).port, close: () => new Promise((resolve) => squatter.close(() => resolve())) };
}

let db: TestDatabase | undefined;
let env: Record<string, string>;
let dataDir: string | undefined;

beforeAll(async () => {
  if (TEST_DB === 'postgres') {
    db = await openTestDatabase(2);
    env = db.env;
  } else {
    dataDir = tempDataDir();
    env = { ACQUIRO_DATA_DIR: dataDir };
  }
});
afterAll(() => db?.drop());

/** Tables in the test's database (its own schema on PostgreSQL); on PGlite, whether the directory exists. */
async function written(): Promise<boolean> {
  if (dataDir) return existsSync(dataDir);
  const schema = /search_path%3D(\w+)/.exec(env.DATABASE_URL!)![1];
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1', [schema]);
    return rows[0].n > 0;
  } finally {
    await client.end();
  }
}

describe('a start that cannot serve', () => {
  it.each([
    ['bogus', 'bogus'],
    ['10.0.0.1, 10.0.0.0/33', '10.0.0.0/33'],
    // A name Fastify alone would read: the per-client connection cap could not, and counted it.
    ['loopback', 'loopback'],
  ])('stops on ACQUIRO_TRUSTED_PROXIES=%s with one line naming it, exit 78, having written nothing', async (proxies, entry) => {
    const run = await start({ ...env, PORT: String(await freePort()), ACQUIRO_TRUSTED_PROXIES: proxies });
    expect([run.code, run.stderr]).toEqual([78, `acquiro: ACQUIRO_TRUSTED_PROXIES is invalid: ${entry} is not an IP address or CIDR block such as 10.0.0.0/8\n`]);
    expect(run.stdout).toBe('');
    expect(await written()).toBe(false);
  });

  it('stops on a port in use with one line naming PORT and HOST, exit 78, having written nothing', async () => {
    const squatter = await occupiedPort();
    try {
      const run = await start({ ...env, PORT: String(squatter.port) });
      expect(run.code).toBe(78);
      expect(run.stderr).toBe(`acquiro: PORT ${squatter.port} is already in use on HOST 127.0.0.1: stop what listens there, or set PORT to a free port\n`);
      expect(run.stdout).toBe('');
      expect(await written()).toBe(false);
    } finally {
      await squatter.close();
    }
    // The demo merchant was not made (and lost) by the failed start: the first start that serves makes it.
    // On PGlite the failed starts left no directory (above); the one that serves gets it migrated,
    // as the first start of an empty one would leave it (its initdb and migrations are other tests').
    if (dataDir) renameSync(await migratedDataDir(), dataDir);
    const server = await startServer(env);
    expect(await server.stop()).toBe(0);
    expect(server.output()).toMatch(/Created a demo merchant[^]*merchant_id M\d+\n {2}account_id {2}A\d+\n {2}secret_key {2}sk_test_/);
  }, 90_000);
});

// These stop before any database is opened, or on a database of their own: they run once.
describe.runIf(TEST_DB === 'pglite')('a start that cannot serve, whatever the database', () => {
  it('stops on a HOST that is not an address of this machine, naming HOST', async () => {
    const run = await start({ ...env, HOST: '192.0.2.1', PORT: String(await freePort()) });
    expect([run.code, run.stderr]).toEqual([78, 'acquiro: HOST 192.0.2.1 is not an address of this machine: set HOST to one of its addresses (127.0.0.1 by default)\n']);
  });

  it.each([
    ['nothing listens there', 'postgresql://acquiro:s3cr3t-pw@127.0.0.1:1/acquiro', '127.0.0.1:1/acquiro: nothing accepts connections there'],
    ['the database does not exist', `${POSTGRES_URL.replace(/\/[^/]*$/, '')}/no_such_database_here`, 'no_such_database_here: that database does not exist'],
  ])('stops when the database cannot be used (%s) with one line naming DATABASE_URL, exit 78, no password', async (_case, url, reason) => {
    const run = await start({ DATABASE_URL: url, PORT: String(await freePort()) });
    expect(run.code).toBe(78);
    expect(run.stderr).toMatch(/^acquiro: DATABASE_URL: cannot use the PostgreSQL database at [^\n]+\n$/);
    expect(run.stderr).toContain(reason);
    expect(run.stderr + run.stdout).not.toContain('s3cr3t');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

/**
 * A database the migrations cannot be applied to: it already holds a `merchants` table that
 * acquiro did not make (another application's schema), so the first migration is refused.
 */
async function unmigratable(): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  if (TEST_DB === 'pglite') {
    const dir = await initialisedDataDir(); // an empty database, not migrated
    const { PGlite } = await import('@electric-sql/pglite');
    const engine = await PGlite.create(dir);
    await engine.exec('CREATE TABLE merchants (legacy_id integer)');
    await engine.close();
    return { env: { ACQUIRO_DATA_DIR: dir }, drop: async () => {} };
  }
  const own = await openTestDatabase(2);
  await own.database.query('CREATE TABLE merchants (legacy_id integer)');
  return { env: own.env, drop: own.drop };
}

const STACK_LINE = /^\s+at /m;

describe('a start that fails past the checks of its settings', () => {
  let broken: Awaited<ReturnType<typeof unmigratable>>;
  beforeAll(async () => {
    broken = await unmigratable();
  });
  afterAll(() => broken?.drop());

  const where = () => (TEST_DB === 'pglite' ? 'ACQUIRO_DATA_DIR' : 'DATABASE_URL');
  const oneLine = (run: Run, exitCode: number) => {
    expect(run.stderr).not.toMatch(STACK_LINE);
    expect(run.stderr.split('\n')).toHaveLength(2); // one line and its newline
    expect(run.code).toBe(exitCode);
  };

  it('npm start: one line saying the migrations failed and what to check, exit 70, no stack', async () => {
    const run = await start({ ...broken.env, PORT: String(await freePort()) });
    oneLine(run, 70);
    expect(run.stderr).toMatch(/^acquiro: the database's migrations failed \(migration 0001_core: the database refused a statement, SQLSTATE 42P07\); none was applied: check /);
    expect(run.stderr).toContain(where());
    expect(run.stderr).toContain('--verbose');
  });

  // The same failure through the other ways in: the line is the same code on both engines (the start
  // above shows the embedded one's), and on PostgreSQL the processes can fail side by side, where
  // the embedded directory takes one at a time; each is seconds of the suite.
  const onPostgres = TEST_DB === 'postgres' ? it.concurrent : it.skip;

  onPostgres.each([[['serve']], [['worker']], [['merchants', 'list']]])(
    'acquiro %j: the same line, exit 70, no stack',
    async (args) => {
      const run = await acquiro(args, { ...broken.env, PORT: String(await freePort()) });
      oneLine(run, 70);
      expect(run.stderr).toMatch(/^acquiro: the database's migrations failed \(migration 0001_core: the database refused a statement, SQLSTATE 42P07\); none was applied: check /);
      expect(run.stderr).toContain(where());
    },
  );

  onPostgres.each([[['--verbose', 'serve']], [['serve', '--verbose']]])(
    'acquiro %j prints the error in full above the same line, exit 70',
    async (args) => {
      const run = await acquiro(args, { ...broken.env, PORT: String(await freePort()) });
      expect(run.code).toBe(70);
      expect(run.stderr).toMatch(STACK_LINE);
      expect(run.stderr).toContain('42P07');
      expect(run.stderr).toMatch(/\nacquiro: the database's migrations failed \(migration 0001_core: [^\n]+\n$/);
    },
  );
});

describe.runIf(TEST_DB === 'postgres')('a DATABASE_URL whose schema does not exist', () => {
  const url = `${POSTGRES_URL}?options=-c%20search_path%3Dno_such_schema_here`;

  it.each([[['serve']], [['merchants', 'list']]])('acquiro %j: one line naming DATABASE_URL, exit 70, no stack', async (args) => {
    const run = await acquiro(args, { DATABASE_URL: url, PORT: String(await freePort()) });
    expect(run.stderr).not.toMatch(STACK_LINE);
    expect(run.code).toBe(70);
    expect(run.stderr).toMatch(/^acquiro: the database's migrations failed \(the database refused a statement, SQLSTATE 3F000\); none was applied: [^\n]*DATABASE_URL[^\n]*\n$/);
  });
});
