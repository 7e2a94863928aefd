// Real processes for tests of the command line and of the server as operators run it.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, cpSync, existsSync, openSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import net from 'node:net';
import pg from 'pg';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMAND_FLAGS, COMPILE_CACHE, serverFlags } from './child-node.ts';
import { openTestDatabase, TEST_DB, withTestPasswordCost, type TestDatabase } from './gateway.ts';
import { takeMachineLock } from './machine-lock.ts';
import { pgliteVersionHash } from './pglite-pool.ts';
import { tempDir } from './temp.ts';
import type { UntilOptions } from './until.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

// Every child still running when this process exits is killed: a test that times out while a
// server starts must not leave it running (vitest workers outlive test files).
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** What every child of the tests runs with, before its own variables. */
function childEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_COMPILE_CACHE: COMPILE_CACHE, LOG_LEVEL: 'warn', ...withTestPasswordCost(env), ...env };
}

function track<T extends ChildProcess>(child: T): T {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Shorter timers than production's for tests of real processes (docs/operations.md, "Timers"), each
 * still waited on: a processor call gets 6 s (an unknown outcome is asked about 11 s after its claim,
 * and a sweeper's lease held by a killed worker runs out after 22 s); the sandbox's slow card
 * (4000000000000416) holds a merchant-initiated charge 4 s before the processor gets it, within
 * that deadline; a killed owner's lock on an embedded data directory is taken over 3 s after its
 * last renewal.
 */
export const QUICK_TIMERS: Readonly<Record<string, string>> = {
  ACQUIRO_CONNECTOR_TIMEOUT: '6',
  ACQUIRO_SANDBOX_CARD_DELAY: '4',
  ACQUIRO_DATA_DIR_LEASE: '3',
};

/**
 * Held by the test files that run a fleet of processes on the machine's PostgreSQL (two gateways
 * beside two workers or more: multi-process, chaos) while they run, so that no two of them run at
 * once: with the other files' processes beside them they would pass PostgreSQL's 100 connections
 * (53300), which the vitest workers running process files one project after the other made
 * likely. Answers the function that lets it go.
 */
export function takeFleetLock(): Promise<() => void> {
  return takeMachineLock('acquiro-test-postgres-fleet.lock', { waitMs: 10 * 60_000, advice: 'remove it if no test run is running chaos or multi-process' });
}

export function tempDataDir(): string {
  return join(tempDir('acquiro-test-'), 'data');
}

const MIGRATIONS = join(ROOT, 'src/db/migrations');

/** Where an embedded database with this checkout's migrations is kept: one per set of migrations and PGlite version. */
function templatePath(): string {
  const hash = pgliteVersionHash();
  for (const name of readdirSync(MIGRATIONS).sort()) hash.update(name).update(readFileSync(join(MIGRATIONS, name)));
  return join(tmpdir(), `acquiro-test-migrated-${hash.digest('hex').slice(0, 16)}`);
}

/**
 * The template at `path`, built by `build` into a new directory when this machine has none yet:
 * renamed into place whole, so a test process never copies a half-built one, and the first of
 * several processes building it at once wins.
 */
async function sharedTemplate(path: string, build: (dir: string) => Promise<void>): Promise<string> {
  if (existsSync(path)) return path;
  const built = tempDataDir();
  await build(built);
  try {
    renameSync(built, path);
  } catch (error) {
    if (!existsSync(path)) throw error; // otherwise another test process made it first
  }
  return path;
}

/** A new data directory, a copy of `template`. */
async function copyOf(template: Promise<string>): Promise<string> {
  const dir = tempDataDir();
  cpSync(await template, dir, { recursive: true });
  return dir;
}

let template: Promise<string> | undefined;

/**
 * A new data directory whose embedded database is migrated and holds nothing else: a copy of one
 * `acquiro migrate` made once per set of migrations (in the temporary directory, shared by the
 * test processes of this machine). A first start on it still finds no merchant and makes the demo
 * one; it only skips the migrations (seconds per start on a loaded machine). A test of a
 * directory's very first start uses tempDataDir().
 */
export function migratedDataDir(): Promise<string> {
  template ??= sharedTemplate(templatePath(), async (dir) => {
    const run = await acquiro(['migrate'], { ACQUIRO_DATA_DIR: dir });
    if (run.code !== 0) throw new Error(`acquiro migrate exited ${run.code}:\n${run.stderr}`);
  });
  return copyOf(template);
}

/** Where an embedded database as PGlite's initdb leaves it is kept: one per PGlite version. */
function initialisedTemplatePath(): string {
  return join(tmpdir(), `acquiro-test-initdb-${pgliteVersionHash().digest('hex').slice(0, 16)}`);
}

let initialisedTemplate: Promise<string> | undefined;

/**
 * A new data directory holding an empty embedded database, not migrated: a copy of one PGlite
 * initdb made once per PGlite version (most of the 4 s of CPU of a first start is initdb, the
 * same every time). A command or start on it applies every migration, as on a directory that does
 * not exist yet; a test of what a start does to a directory that does not exist (making it, its
 * files' modes) uses tempDataDir().
 */
export function initialisedDataDir(): Promise<string> {
  initialisedTemplate ??= sharedTemplate(initialisedTemplatePath(), async (dir) => {
    // What src/db/client.ts does to a data directory that holds no database yet.
    const { PGlite } = await import('@electric-sql/pglite');
    await (await PGlite.create(dir)).close();
  });
  return copyOf(initialisedTemplate);
}

/**
 * Runs `acquiro <args>` to completion with Node 24 (the one running the tests); `input` goes to its
 * standard input; `cwd` is the directory it runs in (the checkout by default).
 */
export function acquiro(args: readonly string[], env: Record<string, string>, input?: string, cwd = ROOT): Promise<Run> {
  return new Promise((resolve) => {
    const child = track(
      spawn(process.execPath, [...COMMAND_FLAGS, join(ROOT, 'bin/acquiro.js'), ...args], {
        cwd,
        env: childEnv(env),
      }),
    );
    if (input !== undefined) child.stdin.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `acquiro <args> --json`, parsed; throws with its stderr unless it exits 0. */
export async function acquiroJson(args: readonly string[], env: Record<string, string>): Promise<Record<string, any>> {
  const run = await acquiro([...args, '--json'], env);
  if (run.code !== 0) throw new Error(`acquiro ${args.join(' ')} exited ${run.code}:\n${run.stderr}`);
  return JSON.parse(run.stdout) as Record<string, any>;
}

/** Whether a PostgreSQL server (or a pooler in front of one) at `url` accepts a connection now; for until(). */
export function acceptsConnections(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => {});
  return client.connect().then(
    () => client.end().then(() => true),
    () => false,
  );
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningServer {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ServerOptions {
  /** Output to this file instead of a pipe. */
  readonly logFile?: string;
  /** A port of the caller's choosing (a restarted server keeps its address); a free one otherwise. */
  readonly port?: number;
  /** `acquiro` arguments to run instead of `npm start`'s entry point, such as `serve --no-worker`. */
  readonly acquiroArgs?: readonly string[];
  /** How long it may take to answer /health (60 s by default; more where processes start under load). */
  readonly readyWithinMs?: number;
  /** Gives up the start: the process is killed and the start throws. */
  readonly signal?: AbortSignal;
  /** A command the server runs under (the bench's valgrind), in the same process. */
  readonly wrapper?: readonly string[];
}

/**
 * Starts `npm start`'s entry point (or `acquiro <acquiroArgs>`) and waits until GET /health
 * answers 200. With `logFile`, its output goes to that file, as in production, instead of a pipe
 * this process must keep draining (a load generator that is busy would otherwise stall the
 * server's log writes).
 */
export async function startServer(env: Record<string, string>, options: ServerOptions = {}): Promise<RunningServer> {
  const port = options.port ?? (await freePort());
  const file = options.logFile ? openSync(options.logFile, 'a') : undefined;
  const entry = options.acquiroArgs ? [join(ROOT, 'bin/acquiro.js'), ...options.acquiroArgs] : [join(ROOT, 'src/main.ts')];
  // A wrapper (the bench's valgrind) runs the same command under it, in the same process.
  const [command, ...wrapperArgs] = [...(options.wrapper ?? []), process.execPath];
  const child = track(
    spawn(command!, [...wrapperArgs, ...serverFlags(), ...entry], {
      cwd: ROOT,
      env: childEnv({ PORT: String(port), ...env }),
      stdio: file === undefined ? 'pipe' : ['ignore', file, file],
    }),
  );
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  if (file !== undefined) {
    child.on('exit', () => closeSync(file));
    output = `(output in ${options.logFile})`;
  }
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const readyWithinMs = options.readyWithinMs ?? 60_000;
  const deadline = Date.now() + readyWithinMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`);
    if (options.signal?.aborted) {
      child.kill('SIGKILL');
      await exited;
      throw new Error('server start given up');
    }
    const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server not ready in ${readyWithinMs / 1000} s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

export interface RunningWorker {
  readonly child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `acquiro worker` (the periodic tasks without the HTTP server), with a server's flags; it has no readiness probe. */
export function startWorker(env: Record<string, string>): RunningWorker {
  const child = track(
    spawn(process.execPath, [...serverFlags(), join(ROOT, 'bin/acquiro.js'), 'worker'], {
      cwd: ROOT,
      env: childEnv(env),
    }),
  );
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Options for until() that end the wait once `running` has exited (by a signal too), and show its output when the wait fails. */
export function whileRunning(running: { readonly child: ChildProcess; output(): string }): UntilOptions {
  return {
    abandonIf: () => {
      const { exitCode, signalCode } = running.child;
      return exitCode === null && signalCode === null ? undefined : `the process exited (${exitCode ?? signalCode})`;
    },
    detail: running.output,
  };
}

export interface GatewayAndWorkerOptions extends Pick<ServerOptions, 'readyWithinMs'> {
  /** On PGlite, a data directory already migrated (migratedDataDir) instead of a fresh one. */
  readonly migrated?: boolean;
  /** More environment for every process (QUICK_TIMERS); part of the `env` answered, for restarts. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * The gateway as the test's database runs it: on PostgreSQL a server with its workers off beside
 * an `acquiro worker`; on PGlite one server, with its own worker, on a fresh data directory (or a
 * migrated one).
 */
export async function startGatewayAndWorker(options: GatewayAndWorkerOptions = {}): Promise<{
  database: TestDatabase | undefined;
  env: Record<string, string>;
  server: RunningServer;
  worker: RunningWorker | undefined;
}> {
  const serverOptions = options.readyWithinMs === undefined ? {} : { readyWithinMs: options.readyWithinMs };
  if (TEST_DB === 'postgres') {
    const database = await openTestDatabase(2);
    const env = { ...database.env, ...options.env };
    const server = await startServer({ ...env, ACQUIRO_WORKERS: 'off' }, serverOptions);
    return { database, env, server, worker: startWorker(env) };
  }
  const env = { ...options.env, ACQUIRO_DATA_DIR: options.migrated ? await migratedDataDir() : tempDataDir() };
  return { database: undefined, env, server: await startServer(env, serverOptions), worker: undefined };
}
