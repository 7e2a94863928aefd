// What PostgreSQL's autovacuum does, done for the embedded database, which has no autovacuum
// (src/db/client.ts starts keepTables in the process that owns the engine):
// - a table that changed by more than autovacuum's own threshold since its statistics were taken
//   is analysed again. Without statistics the planner read an account's payments through the
//   wrong index: a query of 100 orders scanned every payment of the account (13 ms at 60 000
//   payments, 3.6 ms once analysed; docs/performance.md, "The embedded database's statistics");
// - a table with more dead rows than autovacuum's threshold is vacuumed. Every authorisation
//   leaves one (its claim's row version, replaced by the outcome), and without VACUUM their space
//   is never used again: the directory grows by a payment's row and its index entries each time.
//   A table whose oldest transaction id is older than autovacuum_freeze_max_age is frozen, as
//   PostgreSQL forces even with autovacuum off: past two thousand million transactions an engine
//   that never froze refuses every write.
import type { Database } from './client.ts';

// autovacuum_analyze_threshold and autovacuum_analyze_scale_factor's defaults.
const BASE_THRESHOLD = 50;
const SCALE_FACTOR = 0.1;
// The engine serves nothing else while it analyses: a sample of 3 000 rows a table rather than the
// default 30 000 holds it 19 ms instead of 240 ms at 100 000 payments, and still tells the planner
// how many rows there are and how many share a value, which is what it got wrong.
const STATISTICS_TARGET = 10;

// One table a round, the one furthest past its threshold: the engine stops for one table's sample
// at a time (as autovacuum's one worker takes one table at a time), never for all of them at once.
const CHANGED_TABLES_SQL = `SELECT s.relname AS name FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
  WHERE s.schemaname = current_schema() AND s.n_mod_since_analyze > $1 + $2 * greatest(c.reltuples, 0)
  ORDER BY s.n_mod_since_analyze / ($1 + $2 * greatest(c.reltuples, 0)) DESC LIMIT 1`;

// autovacuum_vacuum_threshold, autovacuum_vacuum_scale_factor and autovacuum_freeze_max_age's defaults.
const VACUUM_BASE_THRESHOLD = 50;
const VACUUM_SCALE_FACTOR = 0.2;
const FREEZE_MAX_AGE = 200_000_000;

// One table a round: the one past its freeze age first (oldest first), then the one furthest past
// its dead-row threshold.
const DEAD_TABLES_SQL = `SELECT s.relname AS name, age(c.relfrozenxid) > $3 AS old FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
  WHERE s.schemaname = current_schema() AND (s.n_dead_tup > $1 + $2 * greatest(c.reltuples, 0) OR age(c.relfrozenxid) > $3)
  ORDER BY age(c.relfrozenxid) > $3 DESC, age(c.relfrozenxid) DESC, s.n_dead_tup / ($1 + $2 * greatest(c.reltuples, 0)) DESC LIMIT 1`;

/** Analyses the table furthest past its threshold, if any; on PostgreSQL, nothing (autovacuum's work). Answers how many (0 or 1). */
export async function analyseChangedTables(database: Pick<Database, 'kind' | 'query' | 'transaction'>): Promise<number> {
  if (database.kind !== 'pglite') return 0;
  const [table] = await database.query<{ name: string }>(CHANGED_TABLES_SQL, [BASE_THRESHOLD, SCALE_FACTOR]);
  if (!table) return 0;
  await database.transaction(async (query) => {
    await query(`SET LOCAL default_statistics_target = ${STATISTICS_TARGET}`);
    await query(`ANALYZE "${table.name.replaceAll('"', '""')}"`);
  });
  return 1;
}

/**
 * Vacuums the table past its freeze age, or else the one furthest past its dead-row threshold, if
 * any (frozen: FREEZE); on PostgreSQL, nothing (autovacuum's work). Answers how many (0 or 1).
 */
export async function vacuumDeadTables(database: Pick<Database, 'kind' | 'query'>, freezeMaxAge = FREEZE_MAX_AGE): Promise<number> {
  if (database.kind !== 'pglite') return 0;
  const [table] = await database.query<{ name: string; old: boolean }>(DEAD_TABLES_SQL, [VACUUM_BASE_THRESHOLD, VACUUM_SCALE_FACTOR, freezeMaxAge]);
  if (!table) return 0;
  // VACUUM runs outside a transaction block: a statement of its own.
  await database.query(`VACUUM ${table.old ? '(FREEZE) ' : ''}"${table.name.replaceAll('"', '""')}"`);
  return 1;
}

/** Calls to the engine under way, and when the last one ended: how long it has been idle. */
export class EngineActivity {
  #busy = 0;
  #lastEnded: number;
  readonly #now: () => number;
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
    this.#lastEnded = now();
  }

  async around<T>(work: () => Promise<T>): Promise<T> {
    this.#busy += 1;
    try {
      return await work();
    } finally {
      this.#busy -= 1;
      this.#lastEnded = this.#now();
    }
  }

  /** Milliseconds since the engine last had a call under way; 0 while it has one. */
  idleMs(): number {
    return this.#busy > 0 ? 0 : this.#now() - this.#lastEnded;
  }
}

const WATCHED_METHODS: ReadonlySet<PropertyKey> = new Set(['query', 'exec', 'transaction']);

/**
 * The engine's client as drizzle and our raw queries use it, each query, exec and transaction
 * counted by `activity`; everything else as it is.
 */
export function watchedClient<T extends object>(client: T, activity: EngineActivity): T {
  return new Proxy(client, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (!WATCHED_METHODS.has(key)) return method.bind(target);
      return (...args: unknown[]) => activity.around(() => method.apply(target, args) as Promise<unknown>);
    },
  });
}

export interface MaintenanceSchedule {
  /** Between two rounds (one table each), at least. */
  readonly everyMs: number;
  /** A due round waits until the engine has been idle this long: a round holds the engine. */
  readonly idleMs: number;
  /** ...or until it is this late, so that a load that never pauses still gets its statistics. */
  readonly overdueMs: number;
}

// A round holds the engine for its table's sample (40 to 150 ms of payments, events or
// ledger_entries on this machine) or its vacuum: every request that arrives meanwhile waits for
// it. Held for a moment when nothing is asked of the engine, it is waited for by nobody; a request
// arriving during the round waits for what is left of it. docs/performance.md, "The embedded
// database's statistics".
export const MAINTENANCE_SCHEDULE: MaintenanceSchedule = { everyMs: 20_000, idleMs: 250, overdueMs: 120_000 };

/**
 * Keeps the tables in rounds while the engine is idle: a round analyses a changed table
 * (analyseChangedTables) or, when none is, vacuums a table of dead rows (vacuumDeadTables). A
 * round long overdue under a load that never pauses only analyses: statistics are what plans
 * need, and a vacuum, which reads the table and each of its indexes whole, waits for a pause.
 * `stop` waits for a round under way.
 */
export function keepTables(
  database: Pick<Database, 'kind' | 'query' | 'transaction'>,
  activity: EngineActivity,
  schedule: MaintenanceSchedule = MAINTENANCE_SCHEDULE,
  now: () => number = () => performance.now(),
): { stop(): Promise<void> } {
  let lastRound = now();
  let round: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (round) return;
    const late = now() - lastRound - schedule.everyMs;
    const idle = activity.idleMs() >= schedule.idleMs;
    if (late < 0 || (!idle && late < schedule.overdueMs)) return;
    round = analyseChangedTables(database)
      .then((analysed) => (analysed === 0 && idle ? vacuumDeadTables(database) : analysed))
      .catch(() => {})
      .finally(() => {
        lastRound = now();
        round = undefined;
      });
  }, Math.min(schedule.idleMs, schedule.everyMs)).unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await round;
    },
  };
}
