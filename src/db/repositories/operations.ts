// Captures and voids of an authorisation (payment_operations). Callers hold the payment's row
// lock when they read or write an operation, so the decision and the write see the same state.
import { and, eq, ne, sql } from 'drizzle-orm';
import { OPERATION_MACHINE, type RefundStatus } from '../../domain/lifecycle.ts';
import type { Transition } from '../../domain/state-machine.ts';
import type { Db, Executor } from '../client.ts';
import { rowMapper } from '../rows.ts';
import { lease, leaseDue, QUEUES, type LeaseClocks } from './leases.ts';
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

/** The capture or void claimed under a keyed request's order key (OrderRef.requestKey), if any. */
export async function operationByRequestKey(tx: Executor, accountId: string, requestKey: string): Promise<PaymentOperationRow | null> {
  const [row] = await tx
    .select()
    .from(paymentOperations)
    .where(and(eq(paymentOperations.accountId, accountId), eq(paymentOperations.requestKey, requestKey)));
  return row ?? null;
}

export async function insertOperation(tx: Executor, row: Omit<NewPaymentOperation, 'status'>): Promise<PaymentOperationRow> {
  const [inserted] = await tx.insert(paymentOperations).values({ ...row, status: OPERATION_MACHINE.enter('pending').to }).returning();
  return inserted!;
}

export async function lockOperation(tx: Executor, id: string): Promise<PaymentOperationRow | null> {
  const [row] = await tx.select().from(paymentOperations).where(eq(paymentOperations.id, id)).for('update');
  return row ?? null;
}

export type OperationChanges = Omit<Partial<NewPaymentOperation>, 'status' | 'id'>;

/** Writes a locked operation's move made by OPERATION_MACHINE (or a `stay`) with other columns. */
export async function transitionOperation(
  tx: Executor,
  id: string,
  move: Transition<RefundStatus>,
  changes: OperationChanges = {},
): Promise<PaymentOperationRow> {
  const [row] = await tx
    .update(paymentOperations)
    .set({ ...changes, status: move.to, updatedAt: sql`now()` })
    .where(and(eq(paymentOperations.id, id), eq(paymentOperations.status, move.from)))
    .returning();
  if (!row) throw new Error(`payment operation ${id} is no longer ${move.from}`);
  return row;
}

const toOperation = rowMapper(paymentOperations);

/**
 * Leases pending operations whose check is due (QUEUES.pendingOperations): each is pushed
 * `leaseMs` into the future before the caller asks the processor, so another worker skips it
 * meanwhile (and retries it if this one dies).
 */
export async function leaseDueOperations(db: Db, clocks: LeaseClocks, limit: number, leaseMs: number): Promise<PaymentOperationRow[]> {
  return (await leaseDue(db, QUEUES.pendingOperations, lease(clocks, leaseMs), limit)).map(toOperation);
}
