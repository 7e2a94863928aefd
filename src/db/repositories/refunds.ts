// Refunds of captured money. The claim (a pending row) and the settlement are written under the
// payment's row lock, so the sum of pending and succeeded refunds is read and grown atomically.
import { and, asc, eq, gte, inArray, lte, sql } from 'drizzle-orm';
import { REFUND_MACHINE, type RefundStatus } from '../../domain/lifecycle.ts';
import type { Transition } from '../../domain/state-machine.ts';
import type { PaymentStatus } from '../../domain/payment.ts';
import type { SubscriptionProgress } from '../../domain/subscriptions/subscription.ts';
import type { Database, Db, Executor, RawQuery } from '../client.ts';
import { lease, leaseDue, QUEUES, type LeaseClocks } from './leases.ts';
import { rowMapper } from '../rows.ts';
import { isUniqueViolation } from '../unique.ts';
import { payments, refunds, subscriptions, type PaymentRow, type RefundRow } from '../schema.ts';

export type NewRefund = typeof refunds.$inferInsert;

const toRefund = rowMapper(refunds);

// A refund batch works in waves of orders on different payments (src/http/batch/run.ts): each
// wave's claims are one statement and its settlements one unit of work (record-refund.ts), all
// constant raw SQL prepared once per connection, whatever the wave's size (the rows travel as
// arrays). Every statement that locks several payments locks them in id order, so two waves
// naming the same payments in other orders wait for each other instead of deadlocking.

// Claims refunds with one conditional update: each payment is this account's, named by both keys
// with its currency and amount, in a refundable state, with enough left (an open chargeback's
// amount is back with the shopper already: refunding it too would pay it twice), and (in a request with an
// Idempotency-Key) no refund claimed under the order's request key yet. It runs once the payments
// are locked (LOCK_CLAIMED_PAYMENTS_SQL, the statement before it in the claim's transaction), so it
// reads the disputes as their writers, who hold the payment's lock, left them: a statement that
// waited for the lock itself would re-check the payment's row but count the disputes as they were
// when it began, missing a chargeback recorded meanwhile and refunding that money a second time.
// So refunds never exceed the capture less open chargebacks (and payments_refund_reserved_bounds
// would refuse more than the capture anyway); two claims under one request key
// at once are settled by refunds_request_key (0019): the loser's statement, reservations
// included, is undone. `locked` carries each order's columns, so the update finds its payment by
// one index lookup a row: joined to `o` again, it scanned the orders once for every locked row
// (the planner takes a CTE for one row). Its FOR UPDATE finds the locks LOCK_CLAIMED_PAYMENTS_SQL
// took already, and keeps the CTE from being inlined into the update.
/**
 * The claimed payments of the account, locked in id order, before the claim reads them ($1
 * account, $2 ids). Joined to the ids, each is one probe of the primary key: written
 * `account_id = $1 AND id = ANY ($2)`, the planner (on statistics autovacuum had not refreshed)
 * also read the whole account through payments_account_created, and the bench's refund batch p50
 * went from 17 to 32 ms after its authorisation phases.
 */
const LOCK_CLAIMED_PAYMENTS_SQL = `SELECT p.id FROM payments p JOIN unnest($2::text[]) AS o(payment_id) ON o.payment_id = p.id
  WHERE p.account_id = $1 ORDER BY p.id FOR UPDATE OF p`;

const CLAIM_REFUNDS_SQL = `WITH o AS (
    SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[], $8::timestamptz[], $9::text[], $12::text[], $13::timestamptz[])
      AS o(payment_id, order_no, currency, amount, refund_amount, reason, next_check_at, refund_id, request_key, created_at)
  ), locked AS (
    SELECT p.id, o.order_no, o.currency, o.amount, o.refund_amount, o.reason, o.next_check_at, o.refund_id, o.request_key, o.created_at
    FROM payments p JOIN o ON o.payment_id = p.id WHERE p.account_id = $1 ORDER BY p.id FOR UPDATE OF p
  ), reserved AS (
    UPDATE payments p SET refund_reserved = p.refund_reserved + o.refund_amount, version = p.version + 1, updated_at = now()
    FROM locked o
    WHERE p.id = o.id AND p.account_id = $1 AND p.order_no = o.order_no AND p.currency = o.currency
      AND p.amount = o.amount AND p.status = ANY ($10::text[])
      AND p.captured_amount - p.refund_reserved - (SELECT coalesce(sum(d.amount), 0) FROM disputes d WHERE d.payment_id = p.id AND d.status = 'open') >= o.refund_amount
      AND (o.request_key IS NULL OR NOT EXISTS (SELECT 1 FROM refunds k WHERE k.account_id = $1 AND k.request_key = o.request_key))
    RETURNING p.id, p.account_id, p.currency, p.connector, p.connector_reference, o.refund_id, o.refund_amount, o.reason, o.next_check_at, o.request_key, o.created_at
  ), claimed AS (
    INSERT INTO refunds (id, payment_id, account_id, amount, currency, reason, next_check_at, status, request_key, created_at)
    SELECT r.refund_id, r.id, r.account_id, r.refund_amount, r.currency, r.reason, r.next_check_at, $11, r.request_key, r.created_at FROM reserved r
    RETURNING *
  )
  SELECT row_to_json(claimed) AS refund, reserved.connector AS payment_connector, reserved.connector_reference AS payment_reference
  FROM claimed JOIN reserved ON reserved.refund_id = claimed.id`;

/** A row read as one JSON value (row_to_json): its columns by name, for the table's rowMapper. */
type JsonRow = Record<string, unknown>;

/** What the claim answers for each refund it claimed. */
interface ClaimedRow {
  readonly refund: JsonRow;
  readonly payment_connector: string;
  readonly payment_reference: string | null;
}

export interface RefundClaim {
  readonly id: string;
  readonly accountId: string;
  readonly transactionId: string;
  readonly orderNo: string;
  readonly currency: string;
  readonly amount: number;
  readonly refundAmount: number;
  readonly reason: string | null;
  readonly refundableFrom: readonly string[];
  readonly nextCheckAt: Date;
  /**
   * Business time of the claim (the clock's): refund_date, and the refund search's window, read it
   * beside the payment's created_at and the refund's settled_at, which the clock stamped too.
   */
  readonly createdAt: Date;
  /** The order's key in a keyed request (OrderRef.requestKey): at most one refund per key. */
  readonly requestKey?: string;
}

/** A claimed refund and what asking the processor needs. */
export interface ClaimedRefund {
  readonly refund: RefundRow;
  readonly connector: string;
  readonly paymentReference: string | null;
}

/** A claim that failed on its own (after a key clash, each is claimed alone): what it threw. */
export interface FailedClaim {
  readonly failure: unknown;
}

/**
 * Claims refunds of one account, each on a different payment, with one statement once their payments are locked (one commit):
 * answers each claim's refund in the claims' order, null where nothing was claimed, or (claimed
 * alone after a key clash) the failure of that claim, the others' claims standing.
 */
export async function claimRefunds(database: Database, claims: readonly RefundClaim[]): Promise<(ClaimedRefund | FailedClaim | null)[]> {
  if (claims.length === 0) return [];
  const [first] = claims;
  if (claims.some((c) => c.accountId !== first!.accountId || c.refundableFrom.join() !== first!.refundableFrom.join())) {
    throw new Error('claimRefunds: the claims of one statement share their account and refundable states');
  }
  // One update per payment row: a second claim on the same payment would be lost, not refused.
  if (new Set(claims.map((c) => c.transactionId)).size !== claims.length) throw new Error('claimRefunds: two claims on one payment');
  let rows: ClaimedRow[];
  try {
    rows = await database.transaction(async (query) => {
      await query(LOCK_CLAIMED_PAYMENTS_SQL, [first!.accountId, claims.map((c) => c.transactionId)], 'lock_claimed_payments');
      return query<ClaimedRow>(
        CLAIM_REFUNDS_SQL,
        [
          first!.accountId,
          claims.map((c) => c.transactionId),
          claims.map((c) => c.orderNo),
          claims.map((c) => c.currency),
          claims.map((c) => c.amount),
          claims.map((c) => c.refundAmount),
          claims.map((c) => c.reason),
          claims.map((c) => c.nextCheckAt.toISOString()),
          claims.map((c) => c.id),
          first!.refundableFrom,
          REFUND_MACHINE.enter('pending').to,
          claims.map((c) => c.requestKey ?? null),
          claims.map((c) => c.createdAt.toISOString()),
        ],
        'claim_refunds',
      );
    });
  } catch (error) {
    // Another request claimed under one of these keys meanwhile (refunds_request_key): nothing was
    // claimed here. Alone, that claim is simply not taken; among others, each is claimed again on its own.
    if (!isUniqueViolation(error, 'refunds_request_key')) throw error;
    if (claims.length === 1) return [null];
    // Each commits on its own: one that fails must not hide the others, claimed and to be sent;
    // the database away included (that one is refused 9503, the others' claims stand and are sent).
    const alone = await Promise.allSettled(claims.map(async (claim) => (await claimRefunds(database, [claim]))[0]!));
    return alone.map((one) => (one.status === 'fulfilled' ? one.value : { failure: one.reason }));
  }
  const byId = new Map(rows.map((row) => [String(row.refund.id), row]));
  return claims.map((claim) => {
    const row = byId.get(claim.id);
    if (!row) return null;
    return { refund: toRefund(row.refund), connector: row.payment_connector, paymentReference: row.payment_reference };
  });
}

/** The refund claimed under a keyed request's order key (OrderRef.requestKey), if any. */
export async function refundByRequestKey(db: Executor, accountId: string, requestKey: string): Promise<RefundRow | null> {
  const [row] = await db.select().from(refunds).where(and(eq(refunds.accountId, accountId), eq(refunds.requestKey, requestKey)));
  return row ?? null;
}

// The lock step of recording refunds (record-refund.ts): each refund and its payment, each read
// as one JSON value (row_to_json) that maps back with its table's own column mappers, locked in
// the payments' id order; and the progress of the subscription the payment began, if any (read,
// not locked), which the refund's notification reports. One value a row instead of a value a
// column: a batch of 50 locked about 4 000 columns, and the drivers' per-column decoding cost
// more than the statement (docs/performance.md, "Wide rows").
const LOCK_REFUNDS_AND_PAYMENTS_SQL = `SELECT row_to_json(r) AS refund, row_to_json(p) AS payment,
    s.id AS "s.id", s.status AS "s.status", s.next_charge_at AS "s.next_charge_at", s.next_due_at AS "s.next_due_at"
  FROM refunds r JOIN payments p ON p.id = r.payment_id LEFT JOIN subscriptions s ON s.first_payment_id = p.id
  WHERE r.id = ANY ($1::text[]) ORDER BY p.id, r.id FOR UPDATE OF r, p`;
const toPayment = rowMapper(payments);
const toSubscription = rowMapper(subscriptions, 's.');

/** A refund and its payment, locked, with the subscription the payment began (null: none). */
export interface LockedRefund extends RefundWithPayment {
  readonly subscription: SubscriptionProgress | null;
}

/** Locks refunds and their payments (one prepared statement), inside `database.transaction`: by refund id. */
export async function lockRefundsAndPayments(query: RawQuery, refundIds: readonly string[]): Promise<Map<string, LockedRefund>> {
  const rows = await query<{ refund: JsonRow; payment: JsonRow; 's.id': string | null } & JsonRow>(LOCK_REFUNDS_AND_PAYMENTS_SQL, [refundIds], 'lock_refunds_and_payments');
  return new Map(
    rows.map((row) => {
      const refund = toRefund(row.refund);
      return [refund.id, { refund, payment: toPayment(row.payment), subscription: row['s.id'] ? toSubscription(row) : null }];
    }),
  );
}

// Each refund's move and, when its payment moves too (payment_id not null), the payment's, in one
// statement: the same columns a refund's move writes, and transitionPayment for the payment
// (next_check_at as nextCheckColumn). A row not in its `from` state is not written.
const SETTLE_REFUNDS_SQL = `WITH s AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::timestamptz[],
        $9::text[], $10::text[], $11::text[], $12::bigint[], $13::bigint[], $14::timestamptz[])
      AS s(refund_id, refund_to, refund_from, connector_reference, result_code, result_message, settled_at, next_check_at,
        payment_id, payment_to, payment_from, refunded_amount, refund_reserved, payment_next_check_at)
  ), refund AS (
    UPDATE refunds r SET status = s.refund_to, connector_reference = s.connector_reference, result_code = s.result_code,
      result_message = s.result_message, settled_at = s.settled_at, next_check_at = s.next_check_at, updated_at = now()
    FROM s WHERE r.id = s.refund_id AND r.status = s.refund_from RETURNING r.*
  ), payment AS (
    UPDATE payments p SET status = s.payment_to, refunded_amount = s.refunded_amount, refund_reserved = s.refund_reserved,
      next_check_at = CASE WHEN s.payment_to = 'requires_redirect' THEN p.expires_at ELSE s.payment_next_check_at END,
      version = p.version + 1, updated_at = now()
    FROM s WHERE p.id = s.payment_id AND p.status = s.payment_from AND EXISTS (SELECT 1 FROM refund WHERE refund.id = s.refund_id)
    RETURNING p.id
  )
  SELECT row_to_json(refund) AS refund, EXISTS (SELECT 1 FROM payment WHERE payment.id = refund.payment_id) AS payment_moved FROM refund`;

export interface RefundSettlement {
  readonly refund: RefundRow;
  readonly refundMove: Transition<RefundStatus>;
  /** The payment's move and columns; absent when the payment stays as it is. */
  readonly payment?: { readonly row: PaymentRow; readonly move: Transition<PaymentStatus>; readonly nextCheckAt: Date | null };
}

/**
 * Writes locked refunds' moves (and their payments', each payment at most once) with one raw
 * prepared statement; answers the refunds as written, in the settlements' order.
 */
export async function settleRefunds(query: RawQuery, settlements: readonly RefundSettlement[]): Promise<RefundRow[]> {
  const iso = (date: Date | null) => date?.toISOString() ?? null;
  const column = <T>(pick: (s: RefundSettlement) => T) => settlements.map(pick);
  const rows = await query<{ refund: JsonRow; payment_moved: boolean }>(
    SETTLE_REFUNDS_SQL,
    [
      column((s) => s.refund.id),
      column((s) => s.refundMove.to),
      column((s) => s.refundMove.from),
      column((s) => s.refund.connectorReference),
      column((s) => s.refund.resultCode),
      column((s) => s.refund.resultMessage),
      column((s) => iso(s.refund.settledAt)),
      column((s) => iso(s.refund.nextCheckAt)),
      column((s) => s.payment?.row.id ?? null),
      column((s) => s.payment?.move.to ?? null),
      column((s) => s.payment?.move.from ?? null),
      column((s) => s.payment?.row.refundedAmount ?? null),
      column((s) => s.payment?.row.refundReserved ?? null),
      column((s) => iso(s.payment?.nextCheckAt ?? null)),
    ],
    'settle_refunds',
  );
  const byId = new Map(rows.map((row) => [String(row.refund.id), row]));
  return settlements.map(({ refund, refundMove, payment }) => {
    const row = byId.get(refund.id);
    if (!row) throw new Error(`refund ${refund.id} is no longer ${refundMove.from}: lock it before settling it`);
    if (payment && row.payment_moved !== true) throw new Error(`payment ${payment.row.id} is no longer ${payment.move.from}: lock it before moving it`);
    return toRefund(row.refund);
  });
}

/** Leases pending refunds whose check is due (QUEUES.pendingRefunds; see leaseDueOperations). */
export async function leaseDueRefunds(db: Db, clocks: LeaseClocks, limit: number, leaseMs: number): Promise<RefundRow[]> {
  return (await leaseDue(db, QUEUES.pendingRefunds, lease(clocks, leaseMs), limit)).map(toRefund);
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
