// Disputes (chargebacks) and where each connector's next poll for them starts. A dispute row is
// written only from its machine's Entry or Transition (DISPUTE_MACHINE), where the row still is in
// the move's `from` state. The cursor row of a connector is leased by the worker polling it
// (leaseDue on DISPUTE_POLLS), and moved on only by the transaction that records the reports the
// poll brought, and only while that worker still holds it.
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { DisputeStatus } from '../../domain/disputes.ts';
import type { Entry, Transition } from '../../domain/state-machine.ts';
import type { Executor } from '../client.ts';
import { accounts, disputeCursors, disputes, payments, type DisputeRow, type PaymentRow } from '../schema.ts';
import { lease, leaseDue, type LeaseClocks, type LeaseQueue } from './leases.ts';

/**
 * One row per connector, due at once (next_poll_at NULL) unless a worker's lease holds it: the
 * task's own interval paces the polls. Kept out of QUEUES on purpose: a cursor is always due,
 * and /metrics reads QUEUES as backlogs that should drain.
 */
export const DISPUTE_POLLS = {
  table: 'dispute_cursors',
  keyColumn: 'connector',
  holds: 'true',
  dueColumn: 'next_poll_at',
  dueOn: 'wall',
  leaseColumn: 'next_poll_at',
  tokenColumn: 'lease_token',
  countsAttempts: false,
  scopeColumn: 'connector',
} as const satisfies LeaseQueue;

/** The ids of the connector's payments with these references (a reference no payment has is left out). */
export async function paymentIdsByReference(db: Executor, connector: string, references: readonly string[]): Promise<Map<string, string>> {
  if (references.length === 0) return new Map();
  const rows = await db
    .select({ id: payments.id, reference: payments.connectorReference })
    .from(payments)
    .where(and(eq(payments.connector, connector), inArray(payments.connectorReference, [...new Set(references)])));
  return new Map(rows.map((row) => [row.reference!, row.id]));
}

/** The connectors some account takes payments on: the ones whose disputes concern us. */
export async function connectorsInUse(db: Executor): Promise<string[]> {
  const rows = await db.selectDistinct({ connector: accounts.connector }).from(accounts);
  return rows.map((row) => row.connector).sort();
}

/** The connector's cursor row, made on its first poll (no cursor: from the first report). */
export async function ensureCursor(db: Executor, connector: string): Promise<void> {
  await db.insert(disputeCursors).values({ connector }).onConflictDoNothing();
}

/** Leases the connector's cursor for `leaseMs` of wall time; null when another worker holds it. */
export async function leaseCursor(db: Executor, clocks: LeaseClocks, connector: string, leaseMs: number, token: string): Promise<{ cursor: string | null } | null> {
  const [row] = await leaseDue<{ cursor: string | null }>(db, DISPUTE_POLLS, lease(clocks, leaseMs, token), 1, { scope: connector });
  return row ?? null;
}

/** Locks the cursor while `token` still holds it; false when the lease ran out and another took it. */
export async function lockOwnCursor(tx: Executor, connector: string, token: string): Promise<boolean> {
  const rows = await tx
    .select({ connector: disputeCursors.connector })
    .from(disputeCursors)
    .where(and(eq(disputeCursors.connector, connector), eq(disputeCursors.leaseToken, token)))
    .for('update');
  return rows.length > 0;
}

/** Holds the lease `until` then, while `token` still holds it (a poll recording part by part). */
export async function renewCursorLease(tx: Executor, connector: string, token: string, until: Date): Promise<void> {
  await tx
    .update(disputeCursors)
    .set({ nextPollAt: until })
    .where(and(eq(disputeCursors.connector, connector), eq(disputeCursors.leaseToken, token)));
}

/** Moves the cursor on and lets go of the lease (due again at once). */
export async function advanceCursor(tx: Executor, connector: string, cursor: string, polledAt: Date): Promise<void> {
  await tx.update(disputeCursors).set({ cursor, nextPollAt: null, leaseToken: null, polledAt }).where(eq(disputeCursors.connector, connector));
}

/** Locks the payment a report names by its reference at the processor; null when none has it. */
export async function lockPaymentByReference(tx: Executor, connector: string, reference: string): Promise<PaymentRow | null> {
  const [row] = await tx
    .select()
    .from(payments)
    .where(and(eq(payments.connector, connector), eq(payments.connectorReference, reference)))
    .limit(1)
    .for('update');
  return row ?? null;
}

/** The dispute the acquirer calls `connectorDisputeId`; read under its payment's lock. */
export async function findDispute(tx: Executor, connector: string, connectorDisputeId: string): Promise<DisputeRow | null> {
  const [row] = await tx.select().from(disputes).where(and(eq(disputes.connector, connector), eq(disputes.connectorDisputeId, connectorDisputeId)));
  return row ?? null;
}

/** What the payment's open disputes hold back in all (reversed ones gave theirs back); read under its lock. */
export async function openDisputedAmount(tx: Executor, paymentId: string): Promise<number> {
  const [row] = await tx
    .select({ amount: sql<string>`coalesce(sum(${disputes.amount}), 0)` })
    .from(disputes)
    .where(and(eq(disputes.paymentId, paymentId), eq(disputes.status, 'open')));
  return Number(row!.amount);
}

export async function insertDispute(tx: Executor, entry: Entry<DisputeStatus>, row: Omit<DisputeRow, 'status'>): Promise<DisputeRow> {
  const [inserted] = await tx.insert(disputes).values({ ...row, status: entry.to }).returning();
  return inserted!;
}

export async function transitionDispute(tx: Executor, id: string, move: Transition<DisputeStatus>, changes: Partial<Pick<DisputeRow, 'reversedAt'>>): Promise<DisputeRow> {
  const [row] = await tx
    .update(disputes)
    .set({ ...changes, status: move.to })
    .where(and(eq(disputes.id, id), eq(disputes.status, move.from)))
    .returning();
  if (!row) throw new Error(`dispute ${id} is no longer ${move.from}: lock its payment before moving it`);
  return row;
}

