// Subscriptions and the attempts at their charges. A status is written only from a Transition of
// SUBSCRIPTION_MACHINE or CHARGE_MACHINE, and only where the row still is in its `from` state.
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { CHARGE_MACHINE, type ChargeStatus, type SubscriptionStatus } from '../../domain/subscriptions/subscription.ts';
import type { Entry, Transition } from '../../domain/state-machine.ts';
import type { Executor } from '../client.ts';
import { rowMapper } from '../rows.ts';
import { lease, leaseDue, QUEUES, type LeaseClocks } from './leases.ts';
import { payments, subscriptionCharges, subscriptions, type PaymentRow, type SubscriptionChargeRow, type SubscriptionRow } from '../schema.ts';

export type NewSubscription = Omit<typeof subscriptions.$inferInsert, 'status'>;
export type SubscriptionChanges = Omit<Partial<NewSubscription>, 'id' | 'accountId' | 'createdAt'>;
export type ChargeChanges = Pick<Partial<SubscriptionChargeRow>, 'paymentId' | 'resultCode' | 'resultMessage' | 'nextCheckAt' | 'sentAt'>;

export async function insertSubscription(tx: Executor, entry: Entry<SubscriptionStatus>, row: NewSubscription): Promise<SubscriptionRow> {
  const [inserted] = await tx.insert(subscriptions).values({ ...row, status: entry.to }).returning();
  return inserted!;
}

/** The payment that created the subscription names it, in the same transaction. */
export async function linkPayment(tx: Executor, paymentId: string, subscriptionId: string): Promise<PaymentRow> {
  const [row] = await tx
    .update(payments)
    .set({ subscriptionId, version: sql`${payments.version} + 1`, updatedAt: sql`now()` })
    .where(eq(payments.id, paymentId))
    .returning();
  return row!;
}

export async function findSubscription(db: Executor, accountId: string, id: string): Promise<SubscriptionRow | null> {
  const [row] = await db.select().from(subscriptions).where(and(eq(subscriptions.accountId, accountId), eq(subscriptions.id, id)));
  return row ?? null;
}

export async function subscriptionsByIds(db: Executor, ids: readonly string[]): Promise<SubscriptionRow[]> {
  return db.select().from(subscriptions).where(inArray(subscriptions.id, [...ids]));
}

/** Locks the account's subscription for the rest of the transaction (another account's: null). */
export async function lockSubscription(tx: Executor, accountId: string, id: string): Promise<SubscriptionRow | null> {
  const [row] = await tx.select().from(subscriptions).where(and(eq(subscriptions.accountId, accountId), eq(subscriptions.id, id))).for('update');
  return row ?? null;
}

/** The account's subscriptions, newest first (ids break ties, so that pages never overlap), from `offset`. */
export async function listSubscriptions(db: Executor, accountId: string, limit = 100, offset = 0): Promise<SubscriptionRow[]> {
  return db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.accountId, accountId))
    .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id))
    .limit(limit)
    .offset(offset);
}

/** Writes a locked subscription's move (or a `stay`) and other columns. */
export async function transitionSubscription(
  tx: Executor,
  id: string,
  move: Transition<SubscriptionStatus>,
  changes: SubscriptionChanges = {},
): Promise<SubscriptionRow> {
  const [row] = await tx
    .update(subscriptions)
    .set({ ...changes, status: move.to, updatedAt: sql`now()` })
    .where(and(eq(subscriptions.id, id), eq(subscriptions.status, move.from)))
    .returning();
  if (!row) throw new Error(`subscription ${id} is no longer ${move.from}: lock it before moving it`);
  return row;
}

/** Claims an attempt (pending); an attempt already claimed (a retry after a crash) is answered as it is. */
export async function claimCharge(tx: Executor, row: Omit<typeof subscriptionCharges.$inferInsert, 'status'>): Promise<SubscriptionChargeRow> {
  const [inserted] = await tx
    .insert(subscriptionCharges)
    .values({ ...row, status: CHARGE_MACHINE.enter('pending').to })
    .onConflictDoNothing({ target: [subscriptionCharges.subscriptionId, subscriptionCharges.cycle, subscriptionCharges.attempt] })
    .returning();
  if (inserted) return inserted;
  const [existing] = await tx
    .select()
    .from(subscriptionCharges)
    .where(and(eq(subscriptionCharges.subscriptionId, row.subscriptionId), eq(subscriptionCharges.cycle, row.cycle), eq(subscriptionCharges.attempt, row.attempt)));
  return existing!;
}

export async function lockCharge(tx: Executor, id: string): Promise<SubscriptionChargeRow | null> {
  const [row] = await tx.select().from(subscriptionCharges).where(eq(subscriptionCharges.id, id)).for('update');
  return row ?? null;
}

export async function transitionCharge(tx: Executor, id: string, move: Transition<ChargeStatus>, changes: ChargeChanges): Promise<SubscriptionChargeRow> {
  const [row] = await tx
    .update(subscriptionCharges)
    .set({ ...changes, status: move.to, updatedAt: sql`now()` })
    .where(and(eq(subscriptionCharges.id, id), eq(subscriptionCharges.status, move.from)))
    .returning();
  if (!row) throw new Error(`subscription charge ${id} is no longer ${move.from}`);
  return row;
}

/** A subscription's history: every attempt at every cycle, in order. */
export async function chargesOf(db: Executor, subscriptionId: string): Promise<SubscriptionChargeRow[]> {
  return db
    .select()
    .from(subscriptionCharges)
    .where(eq(subscriptionCharges.subscriptionId, subscriptionId))
    .orderBy(subscriptionCharges.cycle, subscriptionCharges.attempt);
}

/** A page of a subscription's history, newest first: the latest cycle's latest attempt, from `offset` (the unique (subscription, cycle, attempt) index serves it). */
export async function chargesNewestFirst(db: Executor, subscriptionId: string, limit: number, offset: number): Promise<SubscriptionChargeRow[]> {
  return db
    .select()
    .from(subscriptionCharges)
    .where(eq(subscriptionCharges.subscriptionId, subscriptionId))
    .orderBy(desc(subscriptionCharges.cycle), desc(subscriptionCharges.attempt))
    .limit(limit)
    .offset(offset);
}

const toSubscription = rowMapper(subscriptions);
const toCharge = rowMapper(subscriptionCharges);

/** Leases Active subscriptions whose next charge is due (QUEUES.dueSubscriptions). */
export async function leaseDueSubscriptions(db: Executor, clocks: LeaseClocks, limit: number, leaseMs: number): Promise<SubscriptionRow[]> {
  return (await leaseDue(db, QUEUES.dueSubscriptions, lease(clocks, leaseMs), limit)).map(toSubscription);
}

/** Leases claimed attempts not yet recorded (QUEUES.pendingSubscriptionCharges). */
export async function leasePendingCharges(db: Executor, clocks: LeaseClocks, limit: number, leaseMs: number): Promise<SubscriptionChargeRow[]> {
  return (await leaseDue(db, QUEUES.pendingSubscriptionCharges, lease(clocks, leaseMs), limit)).map(toCharge);
}
