// Refunds of captured money. The claim (a pending row) and the settlement are written under the
// payment's row lock, so the sum of pending and succeeded refunds is read and grown atomically.
import { and, asc, eq, getTableColumns, gte, inArray, lte, sql } from 'drizzle-orm';
import { REFUND_MACHINE, type RefundStatus } from '../../domain/lifecycle.ts';
import type { Transition } from '../../domain/state-machine.ts';
import type { PaymentStatus } from '../../domain/payment.ts';
import type { Database, Db, Executor, RawQuery } from '../client.ts';
import { lease, leaseDue, QUEUES, type LeaseClocks } from './leases.ts';
import { rowMapper } from '../rows.ts';
import { isUniqueViolation } from '../unique.ts';
import { payments, refunds, type PaymentRow, type RefundRow } from '../schema.ts';

export type NewRefund = typeof refunds.$inferInsert;

const toRefund = rowMapper(refunds);
const toPayment = rowMapper(payments);

// The claim of a refund order is constant raw SQL prepared once per connection (a 50-order batch
// runs it fifty times); its settlement is a unit of work (record-refund.ts).

// Claims a refund with one conditional update: the payment is this account's, named by both keys
// with its currency and amount, in a refundable state, with enough left, and (in a request with an
// Idempotency-Key) no refund claimed under the order's request key yet. Under concurrency the
// database re-checks the condition against the latest row, so refunds never exceed the capture
// (and payments_refund_reserved_bounds would refuse it anyway); two claims under one request key
// at once are settled by refunds_request_key (0019): the loser's statement, reservation
// included, is undone.
const CLAIM_REFUND_SQL = `WITH reserved AS (
    UPDATE payments SET refund_reserved = refund_reserved + $6, version = version + 1, updated_at = now()
    WHERE account_id = $1 AND id = $2 AND order_no = $3 AND currency = $4 AND amount = $5
      AND status = ANY ($7::text[]) AND captured_amount - refund_reserved >= $6
      AND ($12::text IS NULL OR NOT EXISTS (SELECT 1 FROM refunds WHERE account_id = $1 AND request_key = $12))
    RETURNING id, account_id, currency, connector, connector_reference
  ), claimed AS (
    INSERT INTO refunds (id, payment_id, account_id, amount, currency, reason, next_check_at, status, request_key)
    SELECT $8, r.id, r.account_id, $6, r.currency, $9, $10, $11, $12 FROM reserved r
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
  /** The order's key in a keyed request (OrderRef.requestKey): at most one refund per key. */
  readonly requestKey?: string;
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
      claim.requestKey ?? null,
    ],
    'claim_refund',
  ).catch((error: unknown) => {
    // Another request claimed under this key meanwhile (refunds_request_key): nothing was claimed here.
    if (isUniqueViolation(error, 'refunds_request_key')) return [];
    throw error;
  });
  if (!row) return null;
  return { refund: toRefund(row), connector: String(row.payment_connector), paymentReference: (row.payment_reference as string | null) ?? null };
}

/** The refund claimed under a keyed request's order key (OrderRef.requestKey), if any. */
export async function refundByRequestKey(db: Executor, accountId: string, requestKey: string): Promise<RefundRow | null> {
  const [row] = await db.select().from(refunds).where(and(eq(refunds.accountId, accountId), eq(refunds.requestKey, requestKey)));
  return row ?? null;
}

// A refund's settlement as a raw unit of work (record-refund.ts): two constant statements, prepared
// once per connection. The lock reads both rows with their columns prefixed (r. and p.), so each
// maps back with its table's own column mappers.
const columnList = (alias: string, table: typeof refunds | typeof payments) =>
  Object.values(getTableColumns(table)).map((c) => `${alias}."${c.name}" AS "${alias}.${c.name}"`).join(', ');
const LOCK_REFUND_AND_PAYMENT_SQL = `SELECT ${columnList('r', refunds)}, ${columnList('p', payments)}
  FROM refunds r JOIN payments p ON p.id = r.payment_id WHERE r.id = $1 FOR UPDATE OF r, p`;

const unprefix = (raw: Record<string, unknown>, alias: string) =>
  Object.fromEntries(Object.entries(raw).filter(([k]) => k.startsWith(`${alias}.`)).map(([k, v]) => [k.slice(alias.length + 1), v]));

/** Locks a refund and its payment (one prepared statement), inside `database.transaction`. */
export async function lockRefundAndPayment(query: RawQuery, refundId: string): Promise<RefundWithPayment | null> {
  const [row] = await query<Record<string, unknown>>(LOCK_REFUND_AND_PAYMENT_SQL, [refundId], 'lock_refund_and_payment');
  return row ? { refund: toRefund(unprefix(row, 'r')), payment: toPayment(unprefix(row, 'p')) } : null;
}

// The refund's move and, when the payment moves too ($15), the payment's, in one statement: the
// same columns a refund's move writes, and transitionPayment for the payment (next_check_at as
// nextCheckColumn).
const SETTLE_REFUND_SQL = `WITH refund AS (
    UPDATE refunds SET status = $2, connector_reference = $4, result_code = $5, result_message = $6,
      settled_at = $7, next_check_at = $8, updated_at = now()
    WHERE id = $1 AND status = $3 RETURNING *
  ), payment AS (
    UPDATE payments SET status = $10, refunded_amount = $12, refund_reserved = $13,
      next_check_at = CASE WHEN $10::text = 'requires_redirect' THEN expires_at ELSE $14::timestamptz END,
      version = version + 1, updated_at = now()
    WHERE id = $9 AND status = $11 AND $15::boolean AND EXISTS (SELECT 1 FROM refund) RETURNING id
  )
  SELECT refund.*, (SELECT count(*) FROM payment)::int AS payment_moved FROM refund`;

export interface RefundSettlement {
  readonly refund: RefundRow;
  readonly refundMove: Transition<RefundStatus>;
  /** The payment's move and columns; absent when the payment stays as it is. */
  readonly payment?: { readonly row: PaymentRow; readonly move: Transition<PaymentStatus>; readonly nextCheckAt: Date | null };
}

/** Writes a locked refund's move (and its payment's) with one raw prepared statement. */
export async function settleRefund(query: RawQuery, settlement: RefundSettlement): Promise<RefundRow> {
  const { refund, refundMove, payment } = settlement;
  const [row] = await query<Record<string, unknown>>(
    SETTLE_REFUND_SQL,
    [
      refund.id,
      refundMove.to,
      refundMove.from,
      refund.connectorReference,
      refund.resultCode,
      refund.resultMessage,
      refund.settledAt,
      refund.nextCheckAt,
      payment?.row.id ?? null,
      payment?.move.to ?? null,
      payment?.move.from ?? null,
      payment?.row.refundedAmount ?? null,
      payment?.row.refundReserved ?? null,
      payment?.nextCheckAt ?? null,
      payment !== undefined,
    ],
    'settle_refund',
  );
  if (!row) throw new Error(`refund ${refund.id} is no longer ${refundMove.from}: lock it before settling it`);
  if (payment && Number(row.payment_moved) !== 1) throw new Error(`payment ${payment.row.id} is no longer ${payment.move.from}: lock it before moving it`);
  return toRefund(row);
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
