// What PostgreSQL's autovacuum does for the planner, done for the embedded database, which has no
// autovacuum (src/db/client.ts runs this every 20 seconds in the process that owns the engine): a
// table that changed by more than autovacuum's own threshold since its statistics were taken is
// analysed again. Without statistics the planner read an account's payments through the wrong
// index: a query of 100 orders scanned every payment of the account (13 ms at 60 000 payments,
// 3.6 ms once analysed; docs/performance.md, "The embedded database's statistics").
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
