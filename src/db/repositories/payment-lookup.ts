// Reads of an account's payments by the keys merchants hold (query and refund search). Every
// read is scoped to the account: another account's transaction is simply not found.
import { and, asc, eq, gte, inArray, lte, sql } from 'drizzle-orm';
import type { Executor } from '../client.ts';
import { payments, type PaymentRow } from '../schema.ts';

export async function paymentsByIds(db: Executor, accountId: string, ids: readonly string[]): Promise<PaymentRow[]> {
  if (ids.length === 0) return [];
  return db.select().from(payments).where(and(eq(payments.accountId, accountId), inArray(payments.id, [...ids])));
}

export async function paymentsByOrderNos(db: Executor, accountId: string, orderNos: readonly string[]): Promise<PaymentRow[]> {
  if (orderNos.length === 0) return [];
  return db.select().from(payments).where(and(eq(payments.accountId, accountId), inArray(payments.orderNo, [...orderNos])));
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
