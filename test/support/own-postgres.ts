// A PostgreSQL cluster of a test's own (never the machine's shared one): initdb into a temporary
// directory, started on a free port, and stopped and started again at will, as an operator's
// restart or a crash of the database server would do to the gateways using it.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { acceptsConnections, freePort, whileRunning } from './processes.ts';
import { tempDir } from './temp.ts';
import { until } from './until.ts';

const BIN = process.env.ACQUIRO_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const run = promisify(execFile);

// PostgreSQL refuses to run as root: as root, the cluster belongs to the `postgres` user.
const asRoot = userInfo().uid === 0;
const command = (program: string, args: readonly string[]): [string, string[]] =>
  asRoot ? ['runuser', ['-u', 'postgres', '--', join(BIN, program), ...args]] : [join(BIN, program), [...args]];

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const server of live) server.kill('SIGKILL');
});

export interface OwnPostgres {
  /** postgres:// URL of its `postgres` database (trust authentication, loopback only). */
  readonly url: string;
  readonly port: number;
  /** Starts the server and waits until it accepts connections. */
  start(): Promise<void>;
  /**
   * Stops the server: `immediate` is a crash (no checkpoint, open connections cut), `fast` an
   * operator's restart (sessions ended, a checkpoint written).
   */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
  /** Stops it and removes its files. */
  destroy(): Promise<void>;
}

export async function createOwnPostgres(): Promise<OwnPostgres> {
  const home = tempDir('acquiro-pg-');
  const dataDir = join(home, 'data');
  if (asRoot) chownSync(home, ...(await postgresIds()));
  const [initdb, initArgs] = command('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  await run(initdb, initArgs);
  const port = await freePort();
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  let server: { readonly child: ChildProcess; readonly exited: Promise<void> } | undefined;
  let output = '';
  // Killed by a signal, a process has no exit code, only a signal code.
  const running = () => server !== undefined && server.child.exitCode === null && server.child.signalCode === null;

  async function start(): Promise<void> {
    // Already up: a second postgres on this data directory would find the first's lock file and
    // exit, unless it looked after a stop had removed it, and then it would run, unknown to
    // stop() (an afterAll's start() "in case a test left it stopped" hung the next stop that way).
    if (running()) return;
    // Durability is not under test here, speed is: no fsync on this throwaway cluster.
    const [program, args] = command('postgres', ['-D', dataDir, '-p', String(port), '-k', home, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200']);
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(child);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    void exited.then(() => live.delete(child));
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    server = { child, exited };
    await until('postgres accepting connections', () => acceptsConnections(url), { withinMs: 60_000, everyMs: 100, ...whileRunning({ child, output: () => output }) });
  }

  async function stop(mode: 'immediate' | 'fast' = 'immediate'): Promise<void> {
    if (!running()) return;
    const { child, exited } = server!;
    const [pgCtl, args] = command('pg_ctl', ['-D', dataDir, 'stop', '-m', mode, '-w']);
    await run(pgCtl, args).catch(() => child.kill('SIGKILL'));
    await exited;
  }

  await start();
  return {
    url,
    port,
    start,
    stop,
    async destroy() {
      await stop('immediate');
      rmSync(home, { recursive: true, force: true });
    },
  };
}

async function postgresIds(): Promise<[number, number]> {
  const ids = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return [Number(ids[0].stdout.trim()), Number(ids[1].stdout.trim())];
}
