// Refunds of captured money. The claim (a pending row) and the settlement are written under the
// payment's row lock, so the sum of pending and succeeded refunds is read and grown atomically.
import { and, asc, eq, gte, inArray, lte, sql } from 'drizzle-orm';
import { rowsOf, type Db, type Executor } from '../client.ts';
import { payments, refunds, type PaymentRow, type RefundRow } from '../schema.ts';

export type NewRefund = typeof refunds.$inferInsert;

/** Pending and succeeded refunds of a payment: what is no longer available to refund. */
export async function reservedRefunds(tx: Executor, paymentId: string): Promise<number> {
  const [row] = await rowsOf<{ total: string }>(
    tx,
    sql`SELECT coalesce(sum(amount), 0)::text AS total FROM refunds WHERE payment_id = ${paymentId} AND status IN ('pending', 'succeeded')`,
  );
  return Number(row!.total);
}

export async function insertRefund(tx: Executor, row: NewRefund): Promise<RefundRow> {
  const [inserted] = await tx.insert(refunds).values(row).returning();
  return inserted!;
}

export async function lockRefund(tx: Executor, id: string): Promise<RefundRow | null> {
  const [row] = await tx.select().from(refunds).where(eq(refunds.id, id)).for('update');
  return row ?? null;
}

export async function updateRefund(tx: Executor, id: string, changes: Partial<NewRefund>): Promise<RefundRow> {
  const [row] = await tx.update(refunds).set({ ...changes, updatedAt: sql`now()` }).where(eq(refunds.id, id)).returning();
  if (!row) throw new Error(`refund ${id} vanished`);
  return row;
}

/** Leases pending refunds whose check is due (see leaseDueOperations). */
export async function leaseDueRefunds(db: Db, now: Date, limit: number, leaseMs: number): Promise<RefundRow[]> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(refunds)
      .where(and(eq(refunds.status, 'pending'), lte(refunds.nextCheckAt, now)))
      .orderBy(asc(refunds.nextCheckAt))
      .limit(limit)
      .for('update', { skipLocked: true });
    const leased: RefundRow[] = [];
    for (const row of due) leased.push(await updateRefund(tx, row.id, { nextCheckAt: new Date(now.getTime() + leaseMs), attempts: row.attempts + 1 }));
    return leased;
  });
}

export interface RefundWithPayment {
  readonly refund: RefundRow;
  readonly payment: PaymentRow;
}

const withPayment = (db: Executor) => db.select({ refund: refunds, payment: payments }).from(refunds).innerJoin(payments, eq(payments.id, refunds.paymentId));

export async function refundsByIds(db: Executor, accountId: string, ids: readonly string[]): Promise<RefundWithPayment[]> {
  if (ids.length === 0) return [];
  return withPayment(db).where(and(eq(refunds.accountId, accountId), inArray(refunds.id, [...ids])));
}

/** Refunds of the given payments, oldest first, at most `perPayment` of each. */
export async function refundsOfPayments(db: Executor, accountId: string, paymentIds: readonly string[], perPayment: number): Promise<RefundWithPayment[]> {
  if (paymentIds.length === 0) return [];
  const rows = await withPayment(db)
    .where(and(eq(refunds.accountId, accountId), inArray(refunds.paymentId, [...paymentIds])))
    .orderBy(asc(refunds.createdAt), asc(refunds.id));
  const seen = new Map<string, number>();
  return rows.filter((row) => {
    const count = (seen.get(row.refund.paymentId) ?? 0) + 1;
    seen.set(row.refund.paymentId, count);
    return count <= perPayment;
  });
}

export async function refundsInWindow(
  db: Executor,
  accountId: string,
  window: { from: Date; to: Date; offset: number; limit: number },
): Promise<{ rows: RefundWithPayment[]; total: number }> {
  const where = and(eq(refunds.accountId, accountId), gte(refunds.createdAt, window.from), lte(refunds.createdAt, window.to));
  const [rows, [count]] = await Promise.all([
    withPayment(db).where(where).orderBy(asc(refunds.createdAt), asc(refunds.id)).offset(window.offset).limit(window.limit),
    db.select({ n: sql<string>`count(*)::text` }).from(refunds).where(where),
  ]);
  return { rows, total: Number(count!.n) };
}
