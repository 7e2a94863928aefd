// One code path over two engines: PostgreSQL through node-postgres, or the embedded PGlite.
// Both speak the same SQL and run the same migrations; Drizzle sits on top of either.
import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { readdir, readFile } from 'node:fs/promises';
import { EngineActivity, keepTables, watchedClient } from './maintenance.ts';
import type { PGlite } from '@electric-sql/pglite';
import type PgModule from 'pg';
import { withArrayLiterals } from './array-literal.ts';
import { restrictToOwner } from './data-dir-modes.ts';
import { inSchema } from './notify.ts';
import * as schema from './schema.ts';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Either the database or an open transaction: repositories take whichever the caller holds. */
export type Executor = Db | Tx;

/** Rows of a raw SQL statement run through Drizzle (both drivers answer `{ rows }`). */
export async function rowsOf<Row>(db: Executor, query: SQL): Promise<Row[]> {
  return ((await db.execute(query)) as unknown as { rows: Row[] }).rows;
}

export interface Database {
  readonly db: Db;
  readonly kind: 'pglite' | 'postgres';
  /**
   * Raw parameterised SQL, outside Drizzle and outside any transaction: the hot path's few
   * statements, benchmarks, invariant checks. A `name` makes node-postgres prepare the statement
   * once per connection; give it only to constant texts.
   */
  query<Row = Record<string, unknown>>(text: string, params?: unknown[], name?: string): Promise<Row[]>;
  /**
   * A transaction of raw statements (the hot paths' short ones): `query` runs inside it; it commits
   * when `work` resolves and rolls back when it throws. `script` runs a text of several statements
   * without parameters in one round trip (the migrations).
   */
  transaction<T>(work: (query: RawQuery, script: RawScript) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  /** The connection pool's use, for /metrics (PostgreSQL; PGlite has no pool). */
  poolStats?(): { total: number; idle: number; waiting: number; max: number };
  /**
   * Calls `onNotify` on every NOTIFY on `channel`, from any process on this database (PostgreSQL:
   * over a connection of its own, outside the pool; PGlite: within the owning process, where every
   * command runs), but those whose payload names another schema (`schema:…`, notifyingSchema).
   * Answers the function that stops listening.
   */
  listen?(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Channel names are fixed identifiers: never built from input. */
const CHANNEL = /^[a-z_]+$/;

export type RawQuery = <Row = Record<string, unknown>>(text: string, params?: unknown[], name?: string) => Promise<Row[]>;
/** Statements without parameters, `;`-separated, sent as one text (the simple query protocol). */
export type RawScript = (text: string) => Promise<void>;

export interface DatabaseOptions {
  /** postgres:// URL; absent → PGlite. */
  readonly url?: string | undefined;
  /** PGlite data directory; absent → in memory. */
  readonly dataDir?: string | undefined;
  readonly poolSize?: number;
  /**
   * false: statements given a `name` are sent unnamed all the same (a transaction pooler such as
   * PgBouncer 1.18 would hand the next transaction a server connection that never prepared them).
   */
  readonly prepared?: boolean;
  /**
   * LISTEN's connection when `url` goes through a transaction pooler (which cannot keep a session
   * listening). Without it, and with `prepared` false, the database offers no `listen`.
   */
  readonly directUrl?: string | undefined;
  /** PostgreSQL schema to work in (tests isolate themselves this way). */
  readonly searchPath?: string;
  /** An open PGlite to work on instead of creating one (tests share one per worker); close() leaves it open. */
  readonly pglite?: PGlite;
  /**
   * A one-shot command's database: the embedded engine starts with 16 MB of shared buffers, not
   * its 128 MB, which a command's few statements never fill and whose setting up was a fifth of
   * the engine's start (docs/performance.md, "Process start-up"). PostgreSQL's are the server's own.
   */
  readonly brief?: boolean;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.url ? openPostgres(options.url, options) : openPglite(options);
}

// Each engine's modules are loaded only when it is used: a PostgreSQL server never loads PGlite.
async function openPostgres(url: string, options: DatabaseOptions): Promise<Database> {
  const { default: pg } = await import('pg');
  const { drizzle: drizzlePg } = await import('drizzle-orm/node-postgres');
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5_000,
    // Connections are kept once opened (node-postgres closes them after 10 s idle by default). A new
    // connection costs a PostgreSQL backend start and its first statements' catalog reads and
    // plans: the bench's half-rate phase found a pool that had shrunk re-opening 18 connections
    // at the next burst, with those requests at many times the median. Kept ten minutes.
    idleTimeoutMillis: 600_000,
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
  });
  // A client that loses its server (PostgreSQL restarted or crashed) must not crash the process,
  // idle in the pool or checked out between two statements: the next query on it fails and is
  // answered 503 (src/db/unavailable.ts), and the pool drops it on release and connects anew.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  const prepared = options.prepared ?? true;
  // Array parameters go as literals written here (src/db/array-literal.ts): the same text, less CPU.
  const statement = (text: string, params: unknown[] | undefined, name: string | undefined) => {
    const values = params ? withArrayLiterals(params) : [];
    return name && prepared ? { name, text, values } : { text, values };
  };
  const listenUrl = options.directUrl ?? (prepared ? url : undefined);
  return {
    db,
    kind: 'postgres',
    query: async (text, params, name) => (await pool.query(statement(text, params, name)).catch(naming(text, name))).rows,
    transaction: async (work) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(
          async (text, params, name) => (await client.query(statement(text, params, name)).catch(naming(text, name))).rows,
          async (text) => {
            // Without values node-postgres uses the simple protocol, which takes several statements.
            await client.query(text);
          },
        );
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    ping: async () => {
      await pool.query('SELECT 1');
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max }),
    ...(listenUrl ? { listen: listenOn(pg, listenUrl, options.searchPath) } : {}),
    close: () => pool.end(),
  };
}

/** LISTEN over a connection of its own, outside the pool (a pooled connection is lent to others). */
function listenOn(pg: typeof PgModule, url: string, searchPath: string | undefined): NonNullable<Database['listen']> {
  return async (channel, onNotify) => {
    if (!CHANNEL.test(channel)) throw new Error(`not a channel name: ${channel}`);
    const client = new pg.Client({ connectionString: url, ...(searchPath ? { options: `-c search_path=${searchPath}` } : {}) });
    // A lost listening connection only slows invalidation down to the version row's polling.
    client.on('error', () => {});
    let heard: (payload: string | undefined) => void = () => {};
    client.on('notification', (message) => {
      if (message.channel === channel) heard(message.payload);
    });
    await client.connect();
    const [{ schema }] = (await client.query<{ schema: string }>('SELECT current_schema() AS schema')).rows as [{ schema: string }];
    heard = inSchema(schema, onNotify);
    await client.query(`LISTEN ${channel}`);
    return () => endWithin(client, LISTENER_END_MS);
  };
}

/** How long a stop waits for the listening connection to say it has ended. */
const LISTENER_END_MS = 2_000;

/**
 * Ends a client, waiting at most `ms` for it to say so: a connection the database dropped (a
 * restart, a failover) may never report its end, and a process's stop must not hang on it; its
 * socket is destroyed then.
 */
async function endWithin(client: PgModule.Client, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ended = client.end().then(
    () => true,
    () => true,
  );
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  if (!(await Promise.race([ended, late]))) (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  clearTimeout(timer);
}

/**
 * node-postgres errors do not say which statement failed; the log names it by the statement's
 * name or text (src/logging.ts keeps only its verb and table), never by its parameters.
 */
function naming(text: string, name: string | undefined) {
  return (error: unknown): never => {
    if (error instanceof Error) Object.defineProperty(error, 'statement', { value: name ?? text, enumerable: false, configurable: true });
    throw error;
  };
}

async function openPglite(options: DatabaseOptions): Promise<Database> {
  const { drizzle: drizzlePglite } = await import('drizzle-orm/pglite');
  const { PGlite } = await import('@electric-sql/pglite');
  const engine = options.pglite ?? (await PGlite.create(options.dataDir, options.brief ? { startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'] } : {}));
  const activity = new EngineActivity();
  const client = watchedClient(engine, activity);
  // PGlite sets its own file modes (0666 for many); the directory's files are the owner's only.
  if (options.dataDir && !options.pglite) restrictToOwner(options.dataDir);
  // The engine never flushes its files to disk, so filling each new 16 MB WAL segment with zeros
  // first (to have its space allocated before it is written) buys it nothing, and held it 10 to
  // 30 ms every 16 MB of WAL: one request in a few thousand authorisations waited for that
  // (docs/performance.md, "The embedded engine's new WAL segments"). A lent engine is the caller's.
  if (!options.pglite) await client.exec('SET wal_init_zero = off');
  // One session: the schema holds for every statement that follows.
  if (options.searchPath) await client.exec(`SET search_path TO ${options.searchPath}`);
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  const database: Database = {
    db,
    kind: 'pglite',
    query: async <Row>(text: string, params?: unknown[], name?: string) => (await client.query<Row>(text, params).catch(naming(text, name))).rows,
    transaction: (work) =>
      client.transaction((tx) =>
        work(
          async <Row>(text: string, params?: unknown[], name?: string) => (await tx.query<Row>(text, params).catch(naming(text, name))).rows,
          async (text) => {
            await tx.exec(text);
          },
        ),
      ),
    ping: async () => {
      await client.query('SELECT 1');
    },
    listen: async (channel, onNotify) => {
      if (!CHANNEL.test(channel)) throw new Error(`not a channel name: ${channel}`);
      const [{ schema }] = (await client.query<{ schema: string }>('SELECT current_schema() AS schema')).rows as [{ schema: string }];
      const stop = await client.listen(channel, inSchema(schema, onNotify));
      // Stopping after the database closed has nothing left to stop.
      return () => stop().catch(() => {});
    },
    close: async () => {
      await maintenance?.stop();
      if (!options.pglite) {
        await client.close();
        if (options.dataDir) restrictToOwner(options.dataDir);
      }
    },
  };
  // PGlite has no autovacuum: the process that owns the engine keeps its planner statistics and
  // vacuums its dead rows, as autovacuum would, in moments the engine is idle
  // (src/db/maintenance.ts). A database lent by the caller is the caller's.
  const maintenance = options.pglite ? undefined : keepTables(database, activity);
  return database;
}

const MIGRATIONS = new URL('./migrations/', import.meta.url);

/**
 * The migrations could not be applied (nothing of them was: they run in one transaction). `version`
 * names the migration that failed; none when the bookkeeping before them did (the table of applied
 * migrations). The cause is the database's error, which may quote a statement.
 */
export class MigrationFailed extends Error {
  readonly version: string | undefined;

  constructor(version: string | undefined, cause: unknown) {
    super(version ? `migration ${version} failed` : 'the migrations could not start', { cause });
    this.name = 'MigrationFailed';
    this.version = version;
  }
}

/**
 * Applies every migration not yet applied, in file-name order, in one transaction (MigrationFailed
 * otherwise). Each file goes to the database as one text: the engine parses its statements (and
 * its dollar-quoted bodies), one round trip a file instead of one a statement, which took a fresh
 * schema's migrations from some 190 to 140 ms of CPU on PGlite (every test file pays them).
 */
export async function migrate(database: Database): Promise<string[]> {
  const files = (await readdir(MIGRATIONS)).filter((name) => name.endsWith('.sql')).sort();
  const applied: string[] = [];
  let running: string | undefined;
  try {
    await database.transaction(async (query, script) => {
      // Two processes starting at once on one PostgreSQL must not both apply a migration.
      if (database.kind === 'postgres') await query('SELECT pg_advisory_xact_lock(72616301)');
      await query('CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      const done = new Set((await query<{ version: string }>('SELECT version FROM schema_migrations')).map((row) => row.version));
      for (const file of files) {
        const version = file.replace(/\.sql$/, '');
        if (done.has(version)) continue;
        running = version;
        await script(await readFile(new URL(file, MIGRATIONS), 'utf8'));
        await query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
        applied.push(version);
      }
    });
  } catch (error) {
    throw new MigrationFailed(running, error);
  }
  return applied;
}
