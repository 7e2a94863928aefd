// Reads of an account's payments by the keys merchants hold (query and refund search). Every
// read is scoped to the account: another account's transaction is simply not found.
import { and, asc, eq, gte, lte, sql } from 'drizzle-orm';
import type { Database, Executor } from '../client.ts';
import { columnPick, type ColumnPick } from '../rows.ts';
import { payments } from '../schema.ts';

// By keys: constant statements prepared once per connection, whatever the number of keys (the
// keys travel as one array), reading only the columns the caller asks for (`ColumnPick`), mapped
// with the schema's column mappers. A query of 100 orders spent a sixth of its time in the query
// builder's and the row mapping's generic code, and then half its time in the drivers' decoding of
// 5 500 columns; the query now reads the 14 its answer shows (docs/performance.md, "Wide rows").
export async function paymentsByKeys<Row>(
  database: Pick<Database, 'query'>,
  accountId: string,
  /** Which key `keys` are: the transaction's id or the merchant's order number. */
  column: 'id' | 'order_no',
  keys: readonly string[],
  pick: ColumnPick<Row>,
): Promise<Row[]> {
  if (keys.length === 0) return [];
  const distinct = [...new Set(keys)];
  return (await database.query<Record<string, unknown>>(byKeysStatement(column, pick), [accountId, distinct], `payments_by_${column}:${pick.name}`)).map(pick.map);
}

/**
 * paymentsByKeys' statement: $1 the account, $2 the keys. Each key is looked up on its own through
 * its unique index (it matches one payment at most), whatever the planner's statistics say. With
 * `= ANY`, a planner whose statistics lag behind the table (the embedded engine before its
 * statistics round, PostgreSQL before autovacuum) took the account to hold few payments and read
 * every one of them: 7.3 ms instead of 1.5 ms for 100 orders among 20 000 (docs/performance.md,
 * "Plans of the hot statements").
 */
export function byKeysStatement(column: 'id' | 'order_no', pick: Pick<ColumnPick<unknown>, 'list'>): string {
  return `SELECT found.* FROM unnest($2::text[]) AS wanted(key),
    LATERAL (SELECT ${pick.list} FROM payments WHERE account_id = $1 AND ${column} = wanted.key LIMIT 1) AS found`;
}

const CONNECTORS_SQL = `SELECT DISTINCT p.connector FROM payments p JOIN unnest($2::text[]) AS wanted(id) ON p.id = wanted.id
  WHERE p.account_id = $1`;

/** The connectors the account's payments among `ids` were taken on, each once (ids of no payment of the account add none). */
export async function connectorsOf(database: Pick<Database, 'query'>, accountId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await database.query<{ connector: string }>(CONNECTORS_SQL, [accountId, [...new Set(ids)]], 'payment_connectors');
  return rows.map((row) => row.connector);
}

/** A payment as the query reports it (src/http/encoders/query.ts): the columns its record shows. */
export const REPORTED = columnPick(payments, 'reported', [
  'id',
  'orderNo',
  'amount',
  'currency',
  'status',
  'connectorReference',
  'createdAt',
  'capturedAmount',
  'refundedAmount',
  'threedsResult',
  'riskAction',
  'riskReasons',
  'subscriptionId',
  'request',
]);
export type ReportedPayment = ReturnType<typeof REPORTED.map>;

/** A payment's ids (the refund search then reads its refunds). */
export const IDS = columnPick(payments, 'ids', ['id', 'orderNo']);

/** One page of the payments created in [from, to], oldest first (the picked columns), and how many the window holds. */
export async function paymentsInWindow<Row>(
  db: Executor,
  accountId: string,
  window: { from: Date; to: Date; offset: number; limit: number },
  pick: ColumnPick<Row>,
): Promise<{ rows: Row[]; total: number }> {
  const where = and(eq(payments.accountId, accountId), gte(payments.createdAt, window.from), lte(payments.createdAt, window.to));
  const [rows, [count]] = await Promise.all([
    db.select(pick.columns as never).from(payments).where(where).orderBy(asc(payments.createdAt), asc(payments.id)).offset(window.offset).limit(window.limit),
    db.select({ n: sql<string>`count(*)::text` }).from(payments).where(where),
  ]);
  return { rows: rows as Row[], total: Number(count!.n) };
}
