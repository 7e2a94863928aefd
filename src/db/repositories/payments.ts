import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../client.ts';
import { payments, type PaymentRow } from '../schema.ts';

export type NewPayment = typeof payments.$inferInsert;

/** Inserts the claim row; null when the order_no is already claimed on this account. */
export async function claimPayment(db: Executor, row: NewPayment): Promise<PaymentRow | null> {
  const [inserted] = await db.insert(payments).values(row).onConflictDoNothing({ target: [payments.accountId, payments.orderNo] }).returning();
  return inserted ?? null;
}

export async function findPaymentByOrderNo(db: Executor, accountId: string, orderNo: string): Promise<PaymentRow | null> {
  const [row] = await db.select().from(payments).where(and(eq(payments.accountId, accountId), eq(payments.orderNo, orderNo)));
  return row ?? null;
}

export async function findPayment(db: Executor, accountId: string, id: string): Promise<PaymentRow | null> {
  const [row] = await db.select().from(payments).where(and(eq(payments.accountId, accountId), eq(payments.id, id)));
  return row ?? null;
}

/** Locks the row for the rest of the transaction: the caller decides from what it reads. */
export async function lockPayment(tx: Executor, accountId: string, id: string): Promise<PaymentRow | null> {
  const [row] = await tx.select().from(payments).where(and(eq(payments.accountId, accountId), eq(payments.id, id))).for('update');
  return row ?? null;
}

export async function updatePayment(tx: Executor, id: string, changes: Partial<NewPayment>): Promise<PaymentRow> {
  const [row] = await tx.update(payments).set({ ...changes, updatedAt: sql`now()` }).where(eq(payments.id, id)).returning();
  if (!row) throw new Error(`payment ${id} vanished`);
  return row;
}

export async function paymentsProcessingSince(db: Executor, before: Date, limit: number): Promise<PaymentRow[]> {
  return db
    .select()
    .from(payments)
    .where(and(eq(payments.status, 'processing'), sql`${payments.updatedAt} < ${before}`))
    .orderBy(payments.updatedAt)
    .limit(limit);
}
