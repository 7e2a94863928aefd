// Hosted payment page sessions, and the lookups of the shopper's pages, which know a payment by
// its transaction id alone (the sandbox ACS and issuer pages) or a session by its id.
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../client.ts';
import { accounts, checkoutSessions, merchants, payments, type AccountRow, type CheckoutSessionRow, type PaymentRow } from '../schema.ts';
import { nextCheckFor, PAYMENT_MACHINE, type CheckTimes, type PaymentStatus } from '../../domain/payment.ts';
import { nextCheckColumn, type NewPayment, type PaymentChanges } from './payments.ts';

export type NewCheckoutSession = typeof checkoutSessions.$inferInsert;

/**
 * Claims an order with columns the hot-path claim does not set (the status a hosted page starts
 * in, the deadline of a payment that waits for the shopper); null when the order_no is taken.
 */
export async function claimWaitingPayment(db: Executor, row: NewPayment & { status: PaymentStatus }, at: CheckTimes): Promise<PaymentRow | null> {
  const status = PAYMENT_MACHINE.enter(row.status).to;
  const nextCheckAt = nextCheckFor(status, at, row.expiresAt ?? null);
  const [inserted] = await db.insert(payments).values({ ...row, status, createdAt: at.now, nextCheckAt }).onConflictDoNothing({ target: [payments.accountId, payments.orderNo] }).returning();
  return inserted ?? null;
}

export async function insertSession(tx: Executor, row: NewCheckoutSession): Promise<CheckoutSessionRow> {
  const [inserted] = await tx.insert(checkoutSessions).values(row).returning();
  return inserted!;
}

export async function findSession(db: Executor, id: string): Promise<CheckoutSessionRow | null> {
  const [row] = await db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id));
  return row ?? null;
}

export async function findSessionOfPayment(db: Executor, paymentId: string): Promise<CheckoutSessionRow | null> {
  const [row] = await db.select().from(checkoutSessions).where(eq(checkoutSessions.paymentId, paymentId));
  return row ?? null;
}

export async function lockSession(tx: Executor, id: string): Promise<CheckoutSessionRow | null> {
  const [row] = await tx.select().from(checkoutSessions).where(eq(checkoutSessions.id, id)).for('update');
  return row ?? null;
}

/** The first hand-off of a session, at most once: null when it was handed off already. */
export async function markHandedOff(db: Executor, id: string, at: Date): Promise<CheckoutSessionRow | null> {
  const [row] = await db
    .update(checkoutSessions)
    .set({ handedOffAt: at })
    .where(and(eq(checkoutSessions.id, id), isNull(checkoutSessions.handedOffAt)))
    .returning();
  return row ?? null;
}

export async function updateSession(tx: Executor, id: string, changes: Partial<NewCheckoutSession>): Promise<CheckoutSessionRow> {
  const [row] = await tx.update(checkoutSessions).set(changes).where(eq(checkoutSessions.id, id)).returning();
  return row!;
}

/** Counts one more card attempt of the session: its number (the first is 1). */
export async function countAttempt(tx: Executor, id: string): Promise<number> {
  const [row] = await tx
    .update(checkoutSessions)
    .set({ attempts: sql`${checkoutSessions.attempts} + 1` })
    .where(eq(checkoutSessions.id, id))
    .returning({ attempts: checkoutSessions.attempts });
  if (!row) throw new Error(`checkout session ${id} not found`);
  return row.attempts;
}

/** A payment by its transaction id, whatever the account: for pages that are given only that id. */
export async function paymentById(db: Executor, id: string): Promise<PaymentRow | null> {
  const [row] = await db.select().from(payments).where(eq(payments.id, id));
  return row ?? null;
}

export async function lockPaymentById(tx: Executor, id: string): Promise<PaymentRow | null> {
  const [row] = await tx.select().from(payments).where(eq(payments.id, id)).for('update');
  return row ?? null;
}

/**
 * Moves a payment to `to` with `changes` if it is still in one of `from` (each move checked by
 * PAYMENT_MACHINE): the compare-and-set that lets one card attempt through and turns a double
 * submit away. Null when it was not.
 */
export async function movePayment(
  tx: Executor,
  id: string,
  from: readonly PaymentStatus[],
  to: PaymentStatus,
  at: CheckTimes,
  changes: PaymentChanges,
): Promise<PaymentRow | null> {
  const moves = from.map((state) => PAYMENT_MACHINE.move(state, to));
  const [row] = await tx
    .update(payments)
    .set({ ...changes, status: to, nextCheckAt: nextCheckColumn(to, at), version: sql`${payments.version} + 1`, updatedAt: sql`now()` })
    .where(and(eq(payments.id, id), inArray(payments.status, moves.map((move) => move.from))))
    .returning();
  return row ?? null;
}

export async function accountById(db: Executor, id: string): Promise<AccountRow | null> {
  const [row] = await db.select().from(accounts).where(eq(accounts.id, id));
  return row ?? null;
}

export async function merchantName(db: Executor, merchantId: string): Promise<string> {
  const [row] = await db.select({ name: merchants.name }).from(merchants).where(eq(merchants.id, merchantId));
  return row?.name ?? merchantId;
}
