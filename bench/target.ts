// What the benches run against: a gateway process started as `npm start` starts it, on PostgreSQL
// (a schema of its own, dropped afterwards) or on PGlite (a data directory of its own), with one
// merchant made for the load, and a raw connection to the same engine for the yardstick phases.
// On PGlite the server owns its directory, so the raw phases work on a copy taken before it starts
// (same migrations, same merchant) opened in this process, as the server opens its own.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, type Database } from '../src/db/client.ts';
import { acquiro, startServer, type RunningServer } from '../test/support/processes.ts';

export interface Ids {
  readonly merchant_id: string;
  readonly account_id: string;
}

export interface BenchTarget {
  readonly kind: 'postgres' | 'pglite';
  readonly url: string;
  readonly server: RunningServer;
  readonly ids: Ids;
  readonly secret: string;
  /** The environment the server and `acquiro` commands run with. */
  readonly env: Record<string, string>;
  readonly serverEnv: Record<string, string>;
  readonly logFile: string;
  /** The same engine, raw, for the yardstick: PostgreSQL's schema, or PGlite's copy. */
  readonly raw: Database;
  /**
   * Before each measured phase: reclaims dead rows where nothing else would (PostgreSQL without
   * autovacuum), and starts every phase of PostgreSQL from a finished checkpoint (postgresTarget).
   */
  betweenPhases(): Promise<void>;
  /**
   * The raw phases are over. PGlite's copy is closed: it keeps its planner statistics as the
   * server's engine does, in rounds that hold the engine, and with it this process (the load
   * generator), for tens of milliseconds in its first idle moments, which were the batch phases.
   * PostgreSQL's connection stays open for `betweenPhases`.
   */
  rawDone(): Promise<void>;
  readonly notes: readonly string[];
  cleanup(): Promise<void>;
}

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

export interface TargetOptions {
  /**
   * Preload the probe (server-probe.ts) into the server: SIGUSR2 starts its event-loop histogram
   * (printed to the log at exit) and, with a file, its CPU profile (written there at exit).
   */
  readonly probe?: boolean;
  readonly profileFile?: string;
  /** SQL clients and server pool size (PostgreSQL). */
  readonly connections?: number;
  /** A command the server runs under (bench/instructions.ts: valgrind), given more time to start. */
  readonly wrapper?: readonly string[];
}

export async function startBenchTarget(options: TargetOptions = {}): Promise<BenchTarget> {
  return DATABASE_URL === 'pglite' ? pgliteTarget(options) : postgresTarget(options);
}

/** The load generator is one client address with many connections and one account: neither the per-address cap nor the fair share apply. */
const LOAD_ENV = { ACQUIRO_WORKERS: 'off', ACQUIRO_MAX_CONNECTIONS_PER_CLIENT: '100000', ACQUIRO_BUSY_IN_FLIGHT: '100000' };

const PROBE = new URL('./server-probe.ts', import.meta.url).pathname;

async function createBenchMerchant(env: Record<string, string>): Promise<{ ids: Ids; secret: string }> {
  const run = await acquiro(['merchants', 'create', '--name', 'Bench', '--rate-limit', '1000000', '--json'], env);
  if (run.code !== 0) throw new Error(`acquiro merchants create failed: ${run.stderr}`);
  const created = JSON.parse(run.stdout) as Record<string, string>;
  return { ids: { merchant_id: created.merchant_id!, account_id: created.account_id! }, secret: created.secret_key! };
}

function serverOptions(env: Record<string, string>, options: TargetOptions) {
  const probe = options.probe || options.profileFile ? { NODE_OPTIONS: `--import=${PROBE}`, ...(options.profileFile ? { BENCH_PROFILE_FILE: options.profileFile } : {}) } : {};
  const serverEnv = { ...env, ...LOAD_ENV, ...probe };
  const logFile = join(tmpdir(), `acquiro-bench-${randomBytes(4).toString('hex')}.log`);
  const start = { logFile, ...(options.wrapper ? { wrapper: options.wrapper, readyWithinMs: 600_000 } : {}) };
  return { serverEnv, logFile, start };
}

async function postgresTarget(options: TargetOptions): Promise<BenchTarget> {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const schemaUrl = `${DATABASE_URL}${DATABASE_URL.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const poolSize = String(Math.min(options.connections ?? 32, 20));
  const env = { DATABASE_URL: schemaUrl, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', ACQUIRO_DB_POOL_SIZE: poolSize };
  const { serverEnv, logFile, start } = serverOptions(env, options);
  const dropSchema = async () => {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  };
  const server = await startServer(serverEnv, start).catch(async (error: unknown) => {
    await dropSchema();
    throw error;
  });
  const { ids, secret } = await createBenchMerchant(env);
  const raw = await openDatabase({ url: DATABASE_URL, searchPath: schema, poolSize: Number(poolSize) });
  const autovacuum = (await admin.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0]!.autovacuum === 'on';
  // At full rate the phases write some 20 MB of WAL a second, so PostgreSQL starts a checkpoint
  // every 25 s or so (max_wal_size's default 1 GB) and runs one through most phases, on whichever
  // side: each page first written after it starts puts its whole image in the WAL, and its closing
  // fsyncs share the disk with the WAL's. The raw statements' half-rate p99 went from 12 ms to
  // 25-44 ms in some rounds one ran in. A checkpoint before every phase gives each side the same
  // start, and a 6 s phase writes too little to start another (the server's log then shows none
  // but the bench's). docs/performance.md, "a sixteenth session". Needs a superuser or
  // pg_checkpoint.
  const checkpoints = await admin.query('CHECKPOINT').then(
    () => true,
    () => false,
  );
  return {
    kind: 'postgres',
    url: server.url,
    server,
    ids,
    secret,
    env,
    serverEnv,
    logFile,
    raw,
    // Without autovacuum, the phases' dead rows slow the next ones: vacuum between them, as
    // autovacuum would in any production database.
    betweenPhases: async () => {
      if (!autovacuum) await raw.query('VACUUM payments, refunds, events, ledger_entries');
      if (checkpoints) await raw.query('CHECKPOINT');
    },
    rawDone: async () => {},
    notes: [
      ...(autovacuum ? [] : ['autovacuum is off on this PostgreSQL; the bench vacuums its tables between phases']),
      checkpoints ? 'each phase starts from a checkpoint' : 'CHECKPOINT refused (neither superuser nor pg_checkpoint): a phase may meet one that PostgreSQL starts',
    ],
    cleanup: async () => {
      await raw.close();
      await server.stop();
      rmSync(logFile, { force: true });
      await dropSchema();
    },
  };
}

async function pgliteTarget(options: TargetOptions): Promise<BenchTarget> {
  const root = mkdtempSync(join(tmpdir(), 'acquiro-bench-'));
  const dataDir = join(root, 'data');
  const env = { ACQUIRO_DATA_DIR: dataDir, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' };
  const { ids, secret } = await createBenchMerchant(env);
  const rawDir = join(root, 'raw');
  cpSync(dataDir, rawDir, { recursive: true });
  const { serverEnv, logFile, start } = serverOptions(env, options);
  const server = await startServer(serverEnv, start);
  const raw = await openDatabase({ dataDir: rawDir });
  let rawOpen = true;
  const closeRaw = async () => {
    if (!rawOpen) return;
    rawOpen = false;
    await raw.close();
  };
  return {
    kind: 'pglite',
    url: server.url,
    server,
    ids,
    secret,
    env,
    serverEnv,
    logFile,
    raw,
    // PGlite has no autovacuum either; the server's copy is out of reach while it runs, so neither is vacuumed.
    betweenPhases: async () => {},
    rawDone: closeRaw,
    notes: ['PGlite: one engine per process, no vacuum between phases; raw SQL runs on a copy of the data directory in the bench process'],
    cleanup: async () => {
      await closeRaw();
      await server.stop();
      rmSync(logFile, { force: true });
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A second gateway on the same database (PostgreSQL only: PGlite's directory has one owner). */
export function startSecondServer(target: BenchTarget): Promise<RunningServer> {
  return startServer(target.serverEnv, { logFile: target.logFile });
}
