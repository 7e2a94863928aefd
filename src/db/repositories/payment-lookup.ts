// Reads of an account's payments by the keys merchants hold (query and refund search). Every
// read is scoped to the account: another account's transaction is simply not found.
import { and, asc, eq, gte, lte, sql } from 'drizzle-orm';
import type { Database, Executor } from '../client.ts';
import { rowMapper } from '../rows.ts';
import { payments, type PaymentRow } from '../schema.ts';

// By keys: constant statements prepared once per connection, whatever the number of keys (the
// keys travel as one array), mapped with the schema's column mappers. A query of 100 orders spent
// a sixth of its time in the query builder's and the row mapping's generic code, and then half its
// time in the drivers' decoding of 5 500 columns: each row is now read as one JSON value
// (docs/performance.md, "Wide rows").
const BY_IDS_SQL = 'SELECT row_to_json(p) AS payment FROM payments p WHERE account_id = $1 AND id = ANY ($2::text[])';
const BY_ORDER_NOS_SQL = 'SELECT row_to_json(p) AS payment FROM payments p WHERE account_id = $1 AND order_no = ANY ($2::text[])';
const toPayment = rowMapper(payments);
const paymentOf = (row: { payment: Record<string, unknown> }) => toPayment(row.payment);

export async function paymentsByIds(database: Pick<Database, 'query'>, accountId: string, ids: readonly string[]): Promise<PaymentRow[]> {
  if (ids.length === 0) return [];
  return (await database.query<{ payment: Record<string, unknown> }>(BY_IDS_SQL, [accountId, ids], 'payments_by_ids')).map(paymentOf);
}

export async function paymentsByOrderNos(database: Pick<Database, 'query'>, accountId: string, orderNos: readonly string[]): Promise<PaymentRow[]> {
  if (orderNos.length === 0) return [];
  return (await database.query<{ payment: Record<string, unknown> }>(BY_ORDER_NOS_SQL, [accountId, orderNos], 'payments_by_order_nos')).map(paymentOf);
}

/** One page of the payments created in [from, to], oldest first, and how many the window holds. */
export async function paymentsInWindow(
  db: Executor,
  accountId: string,
  window: { from: Date; to: Date; offset: number; limit: number },
): Promise<{ rows: PaymentRow[]; total: number }> {
  const where = and(eq(payments.accountId, accountId), gte(payments.createdAt, window.from), lte(payments.createdAt, window.to));
  const [rows, [count]] = await Promise.all([
    db.select().from(payments).where(where).orderBy(asc(payments.createdAt), asc(payments.id)).offset(window.offset).limit(window.limit),
    db.select({ n: sql<string>`count(*)::text` }).from(payments).where(where),
  ]);
  return { rows, total: Number(count!.n) };
}
