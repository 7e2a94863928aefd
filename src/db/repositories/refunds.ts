// Refunds of captured money. The claim (a pending row) and the settlement are written under the
// payment's row lock, so the sum of pending and succeeded refunds is read and grown atomically.
import { and, asc, eq, gte, inArray, lte, sql } from 'drizzle-orm';
import { REFUND_MACHINE, type RefundStatus } from '../../domain/lifecycle.ts';
import type { PaymentStatus } from '../../domain/payment.ts';
import type { Transition } from '../../domain/state-machine.ts';
import type { Database, Db, Executor, RawQuery } from '../client.ts';
import { lease, leaseDue, QUEUES } from './leases.ts';
import { rowMapper } from '../rows.ts';
import { payments, refunds, type PaymentRow, type RefundRow } from '../schema.ts';

export type NewRefund = typeof refunds.$inferInsert;

const toRefund = rowMapper(refunds);
const toPayment = rowMapper(payments);

// The statements of a refund order, as constant raw SQL prepared once per connection (a 50-order
// batch runs them fifty times): claim, then lock and settle.

// Claims a refund with one conditional update: the payment is this account's, named by both keys
// with its currency and amount, in a refundable state, with enough left. Under concurrency the
// database re-checks the condition against the latest row, so refunds never exceed the capture
// (and payments_refund_reserved_bounds would refuse it anyway).
const CLAIM_REFUND_SQL = `WITH reserved AS (
    UPDATE payments SET refund_reserved = refund_reserved + $6, version = version + 1, updated_at = now()
    WHERE account_id = $1 AND id = $2 AND order_no = $3 AND currency = $4 AND amount = $5
      AND status = ANY ($7::text[]) AND captured_amount - refund_reserved >= $6
    RETURNING id, account_id, currency, connector, connector_reference
  ), claimed AS (
    INSERT INTO refunds (id, payment_id, account_id, amount, currency, reason, next_check_at, status)
    SELECT $8, r.id, r.account_id, $6, r.currency, $9, $10, $11 FROM reserved r
    RETURNING *
  )
  SELECT claimed.*, reserved.connector AS payment_connector, reserved.connector_reference AS payment_reference FROM claimed, reserved`;

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
}

/** The claimed refund and what asking the processor needs; null when nothing was claimed. */
export async function claimRefund(
  database: Database,
  claim: RefundClaim,
): Promise<{ refund: RefundRow; connector: string; paymentReference: string | null } | null> {
  const [row] = await database.query<Record<string, unknown>>(
    CLAIM_REFUND_SQL,
    [
      claim.accountId,
      claim.transactionId,
      claim.orderNo,
      claim.currency,
      claim.amount,
      claim.refundAmount,
      claim.refundableFrom,
      claim.id,
      claim.reason,
      claim.nextCheckAt,
      REFUND_MACHINE.enter('pending').to,
    ],
    'claim_refund',
  );
  if (!row) return null;
  return { refund: toRefund(row), connector: String(row.payment_connector), paymentReference: (row.payment_reference as string | null) ?? null };
}

const LOCK_REFUND_SQL = `SELECT to_jsonb(r) AS refund, to_jsonb(p) AS payment
  FROM refunds r JOIN payments p ON p.id = r.payment_id WHERE r.id = $1 FOR UPDATE OF r, p`;

/** Locks a refund and its payment for the rest of the transaction. */
export async function lockRefundAndPayment(query: RawQuery, refundId: string): Promise<{ refund: RefundRow; payment: PaymentRow } | null> {
  const [row] = await query<{ refund: Record<string, unknown>; payment: Record<string, unknown> }>(LOCK_REFUND_SQL, [refundId], 'lock_refund');
  return row ? { refund: toRefund(row.refund), payment: toPayment(row.payment) } : null;
}

export interface RefundSettlement {
  /** The refund's and the payment's state moves (REFUND_MACHINE, PAYMENT_MACHINE); the rows' own `status` is ignored. */
  readonly refundMove: Transition<RefundStatus>;
  readonly paymentMove: Transition<PaymentStatus>;
  readonly refund: RefundRow;
  readonly payment: PaymentRow;
  readonly ledger: readonly { journalId: string; book: string; kind: string; amount: number }[];
  readonly event?: { id: string; type: string; payload: Record<string, unknown> };
}

// Writes a settlement decided under the locks: the refund, the payment's amounts and state, the
// refund journal and the event, in one statement.
const SETTLE_REFUND_SQL = `WITH refund AS (
    UPDATE refunds SET status = $2, connector_reference = $3, result_code = $4, result_message = $5, settled_at = $6,
      next_check_at = $7, updated_at = now()
    WHERE id = $1 AND status = $19
    RETURNING id
  ), payment AS (
    UPDATE payments SET status = $9, refunded_amount = $10, refund_reserved = $11, version = version + 1, updated_at = now()
    WHERE id = $8 AND status = $20 AND EXISTS (SELECT 1 FROM refund)
    RETURNING id, account_id, currency, notify_url
  ), journal AS (
    INSERT INTO ledger_entries (journal_id, account_id, book, kind, currency, amount, payment_id, reference_id)
    SELECT e.journal_id, p.account_id, e.book, e.kind, p.currency, e.amount, p.id, $1
    FROM payment p CROSS JOIN unnest($12::text[], $13::text[], $14::text[], $15::bigint[]) AS e(journal_id, book, kind, amount)
  ), event AS (
    INSERT INTO events (id, account_id, type, payment_id, payload, notify_url, delivery_status)
    SELECT $16, p.account_id, $17, p.id, $18::jsonb, p.notify_url, CASE WHEN p.notify_url IS NULL THEN 'no_target' ELSE 'pending' END
    FROM payment p WHERE $17::text IS NOT NULL
  )
  SELECT (SELECT count(*) FROM refund) AS refunds`;

export async function settleRefund(query: RawQuery, settlement: RefundSettlement): Promise<void> {
  const { refund, payment, ledger, event, refundMove, paymentMove } = settlement;
  const [written] = await query<{ refunds: string | number }>(
    SETTLE_REFUND_SQL,
    [
      refund.id,
      refundMove.to,
      refund.connectorReference,
      refund.resultCode,
      refund.resultMessage,
      refund.settledAt,
      refund.nextCheckAt,
      payment.id,
      paymentMove.to,
      payment.refundedAmount,
      payment.refundReserved,
      ledger.map((e) => e.journalId),
      ledger.map((e) => e.book),
      ledger.map((e) => e.kind),
      ledger.map((e) => e.amount),
      event?.id ?? null,
      event?.type ?? null,
      event ? JSON.stringify(event.payload) : null,
      refundMove.from,
      paymentMove.from,
    ],
    'settle_refund',
  );
  if (Number(written?.refunds) !== 1) throw new Error(`refund ${refund.id} is no longer ${refundMove.from}: lock it before settling it`);
}

/** Leases pending refunds whose check is due (QUEUES.pendingRefunds; see leaseDueOperations). */
export async function leaseDueRefunds(db: Db, now: Date, limit: number, leaseMs: number): Promise<RefundRow[]> {
  return (await leaseDue(db, QUEUES.pendingRefunds, lease(now, leaseMs), limit)).map(toRefund);
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
