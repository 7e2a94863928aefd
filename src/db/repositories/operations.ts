// Captures and voids of an authorisation (payment_operations). Callers hold the payment's row
// lock when they read or write an operation, so the decision and the write see the same state.
import { and, asc, eq, lte, ne, sql } from 'drizzle-orm';
import type { Db, Executor } from '../client.ts';
import { paymentOperations, type PaymentOperationRow } from '../schema.ts';

export type NewPaymentOperation = typeof paymentOperations.$inferInsert;

/** The pending or succeeded capture or void of a payment, if any. */
export async function liveOperation(tx: Executor, paymentId: string): Promise<PaymentOperationRow | null> {
  const [row] = await tx
    .select()
    .from(paymentOperations)
    .where(and(eq(paymentOperations.paymentId, paymentId), ne(paymentOperations.status, 'failed')))
    .limit(1);
  return row ?? null;
}

export async function insertOperation(tx: Executor, row: NewPaymentOperation): Promise<PaymentOperationRow> {
  const [inserted] = await tx.insert(paymentOperations).values(row).returning();
  return inserted!;
}

export async function lockOperation(tx: Executor, id: string): Promise<PaymentOperationRow | null> {
  const [row] = await tx.select().from(paymentOperations).where(eq(paymentOperations.id, id)).for('update');
  return row ?? null;
}

export async function updateOperation(tx: Executor, id: string, changes: Partial<NewPaymentOperation>): Promise<PaymentOperationRow> {
  const [row] = await tx
    .update(paymentOperations)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(paymentOperations.id, id))
    .returning();
  if (!row) throw new Error(`payment operation ${id} vanished`);
  return row;
}

/**
 * Leases pending operations whose check is due: each is pushed `leaseMs` into the future before
 * the caller asks the processor, so another worker skips it meanwhile (and retries it if this
 * one dies).
 */
export async function leaseDueOperations(db: Db, now: Date, limit: number, leaseMs: number): Promise<PaymentOperationRow[]> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(paymentOperations)
      .where(and(eq(paymentOperations.status, 'pending'), lte(paymentOperations.nextCheckAt, now)))
      .orderBy(asc(paymentOperations.nextCheckAt))
      .limit(limit)
      .for('update', { skipLocked: true });
    const leased: PaymentOperationRow[] = [];
    for (const row of due) {
      leased.push(await updateOperation(tx, row.id, { nextCheckAt: new Date(now.getTime() + leaseMs), attempts: row.attempts + 1 }));
    }
    return leased;
  });
}
