// One process owns an embedded (PGlite) data directory, and every process that opens the
// directory sees who: the lock is a file in it, renewed by its owner, which a process in another
// network or PID namespace sees as well as any other (the owner's command socket it does not).
// A lock its owner stopped renewing is taken over once the lease it states has run out, never
// before (these owners state 3 s, ACQUIRO_DATA_DIR_LEASE of QUICK_TIMERS, instead of 10 s; the
// lock's own tests are in src/db/data-dir-lock.test.ts). The directory's files are readable by
// their owner only. Directories start migrated (migratedDataDir) except where the files a first
// start creates are checked. (PostgreSQL has locks of its own: these tests concern the embedded
// database only.) Each test has a data directory of its own, so they run at once: most of each is
// waiting for a process to start or for a lease to run out.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMPILE_CACHE, serverFlags } from '../support/child-node.ts';
import { TEST_DB } from '../support/gateway.ts';
import { acquiro, freePort, migratedDataDir, QUICK_TIMERS, startServer, tempDataDir } from '../support/processes.ts';
import { until, type UntilOptions } from '../support/until.ts';

/** The lease the owners in these tests state in their lock. */
const LEASE_MS = Number(QUICK_TIMERS.ACQUIRO_DATA_DIR_LEASE) * 1000;

const ROOT = new URL('../../', import.meta.url).pathname;
const lockOf = (dataDir: string) => join(dataDir, 'acquiro.lock');
const lockId = (dataDir: string) => {
  try {
    return (JSON.parse(readFileSync(lockOf(dataDir), 'utf8')) as { id: string }).id;
  } catch {
    return undefined;
  }
};

/** A server in a network and PID namespace of its own (root may make them here), on `dataDir`. */
async function serverInOtherNamespaces(dataDir: string): Promise<{ child: ChildProcess; output: () => string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn(
    'unshare',
    ['--net', '--pid', '--fork', '--kill-child=SIGTERM', 'sh', '-c', `ip link set lo up && exec "${process.execPath}" ${serverFlags().join(' ')} src/main.ts`],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: '/tmp', NODE_COMPILE_CACHE: COMPILE_CACHE, PORT: String(port), ACQUIRO_DATA_DIR: dataDir, LOG_LEVEL: 'info', ...QUICK_TIMERS },
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  // A wait on this server that fails shows its output: why it did not start or stop.
  const serverWait: UntilOptions = { withinMs: 90_000, everyMs: 100, detail: () => output };
  await until('the namespaced server ready or exited', () => output.includes('acquiro is ready') || child.exitCode !== null, serverWait);
  expect(output).toContain('acquiro is ready');
  return {
    child,
    output: () => output,
    // unshare dies; its child (the server) gets SIGTERM, stops and releases the lock.
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
      await until('the lock released', () => !existsSync(lockOf(dataDir)), serverWait);
    },
  };
}

/** Every file and directory under `dir` with its permission bits. */
function modes(dir: string): [string, number][] {
  const found: [string, number][] = [[dir, statSync(dir).mode & 0o777]];
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name);
    try {
      found.push([path, statSync(path).mode & 0o777]);
    } catch {
      // a temporary file gone meanwhile
    }
  }
  return found;
}

describe.runIf(TEST_DB === 'pglite').concurrent('the data directory lock', () => {
  it('holds against processes in another network and PID namespace: a command and a server here are refused, the data stays whole', async ({ expect }) => {
    const dataDir = await migratedDataDir();
    const owner = await serverInOtherNamespaces(dataDir);
    const token = readFileSync(join(dataDir, 'admin.token'), 'utf8');
    try {
      const demo = /merchant_id (M\d+)/.exec(owner.output())![1]!;
      // This process cannot reach the owner's command socket (another network namespace), and must
      // not open the files; nor may a second server here. Both try at once.
      const [command, second] = await Promise.all([
        acquiro(['merchants', 'create', '--name', 'Intruder', '--json'], { ACQUIRO_DATA_DIR: dataDir }),
        startServer({ ACQUIRO_DATA_DIR: dataDir }).then(
          (server) => server.stop().then(() => 'started'),
          (error: Error) => error.message,
        ),
      ]);
      expect(command.code).toBe(78);
      expect(command.stderr).toMatch(/is owned by a running acquiro process that this one cannot reach/);
      expect(second).toMatch(/is in use by another acquiro process/);
      expect(readFileSync(join(dataDir, 'admin.token'), 'utf8')).toBe(token);
      await owner.stop();
      const list = await acquiro(['merchants', 'list', '--json'], { ACQUIRO_DATA_DIR: dataDir });
      const names = (JSON.parse(list.stdout) as { merchant_id: string; name: string }[]).map((m) => [m.merchant_id, m.name]);
      expect(names).toEqual([[demo, 'Demo merchant']]);
    } finally {
      if (owner.child.exitCode === null) await owner.stop();
    }
  }, 240_000);

  it('respects a lock that is being renewed, and takes it over only once its lease has run out', async ({ expect }) => {
    const dataDir = await migratedDataDir();
    const first = await acquiro(['merchants', 'create', '--name', 'First', '--json'], { ACQUIRO_DATA_DIR: dataDir });
    expect(first.code).toBe(0);
    // An owner this process knows nothing of (another machine sharing the directory, a container): only its lock file shows it.
    writeFileSync(lockOf(dataDir), `${JSON.stringify({ id: 'elsewhere', pid: 1, host: 'another-machine', lease_ms: LEASE_MS })}\n`, { mode: 0o600 });
    const renew = setInterval(() => {
      const now = new Date();
      utimesSync(lockOf(dataDir), now, now);
    }, 1_000);
    let lastRenewal: number;
    try {
      const refused = await startServer({ ACQUIRO_DATA_DIR: dataDir }).then(
        (server) => server.stop().then(() => 'started'),
        (error: Error) => error.message,
      );
      expect(refused).toMatch(/is in use by another acquiro process/);
      expect(lockId(dataDir)).toBe('elsewhere');
    } finally {
      clearInterval(renew);
      lastRenewal = statSync(lockOf(dataDir)).mtimeMs;
    }
    // The owner stopped renewing (it died): a command waits out the lease, then takes over.
    let takenOverAt: number | undefined;
    const watch = setInterval(() => {
      if (takenOverAt === undefined && lockId(dataDir) !== 'elsewhere') takenOverAt = Date.now();
    }, 50);
    const command = await acquiro(['merchants', 'list', '--json'], { ACQUIRO_DATA_DIR: dataDir }).finally(() => clearInterval(watch));
    expect(command.code).toBe(0);
    expect(JSON.parse(command.stdout)).toHaveLength(1);
    expect(takenOverAt).toBeDefined();
    expect(takenOverAt! - lastRenewal).toBeGreaterThanOrEqual(LEASE_MS - 100);
    expect(existsSync(lockOf(dataDir))).toBe(false); // released by the command when done
  }, 180_000);

  it('is taken over from a killed server, whose data is all there', async ({ expect }) => {
    const dataDir = await migratedDataDir();
    const killed = await startServer({ ACQUIRO_DATA_DIR: dataDir, ...QUICK_TIMERS });
    // Its lock states the lease it renews within (ACQUIRO_DATA_DIR_LEASE), the one a taker waits out.
    expect(JSON.parse(readFileSync(lockOf(dataDir), 'utf8'))).toMatchObject({ lease_ms: LEASE_MS });
    expect(await killed.stop('SIGKILL')).toBe(null);
    expect(existsSync(lockOf(dataDir))).toBe(true); // a killed process cannot remove it: its lease runs out
    const list = await acquiro(['merchants', 'list', '--json'], { ACQUIRO_DATA_DIR: dataDir });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ name: 'Demo merchant' })]);
    expect(existsSync(lockOf(dataDir))).toBe(false);
  }, 180_000);

  it('keeps every file of the directory readable by its owner only, while serving and after', async ({ expect }) => {
    const dataDir = tempDataDir();
    const server = await startServer({ ACQUIRO_DATA_DIR: dataDir });
    try {
      const open = modes(dataDir);
      expect(open.length).toBeGreaterThan(500);
      expect(open.filter(([, mode]) => (mode & 0o077) !== 0)).toEqual([]);
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    } finally {
      await server.stop();
    }
    expect(modes(dataDir).filter(([, mode]) => (mode & 0o077) !== 0)).toEqual([]);
  }, 120_000);
});
