// Payouts: the row a request records (with its reservation, in one unit of work), its moves
// (each from a Transition, only where the row still is in the move's `from` state), the rail
// task's lease, and the operator's reads. Raw statements: the reservation they sit beside is one.
import { and, desc, eq, lt, type SQL } from 'drizzle-orm';
import type { PayoutFeeSchedule } from '../../domain/payouts/fees.ts';
import type { PayoutStatus } from '../../domain/payouts/status.ts';
import type { Entry, Transition } from '../../domain/state-machine.ts';
import type { Executor, RawQuery } from '../client.ts';
import { rowMapper } from '../rows.ts';
import { payouts, type PayoutRow } from '../schema.ts';
import { lease, leaseDue, QUEUES, type LeaseClocks } from './leases.ts';

export type NewPayout = Omit<PayoutRow, 'status' | 'attempts'>;

const toPayout = rowMapper(payouts);

const COLUMNS = [
  'id', 'account_id', 'merchant_id', 'request_id', 'request_fingerprint', 'request', 'short_reference_id', 'payment_method',
  'clearing_system', 'payment_date', 'payment_currency', 'source_currency', 'transfer_payment', 'transfer_source',
  'amount_beneficiary_receives', 'amount_payer_pays', 'fee_amount', 'fee_currency', 'fee_paid_by', 'fx_rate', 'status',
  'failure_type', 'failure_reason', 'connector', 'rail_reference', 'notify_url', 'next_check_at', 'created_at', 'updated_at',
] as const;

const INSERT_PAYOUT_SQL = `INSERT INTO payouts (${COLUMNS.join(', ')})
  VALUES (${COLUMNS.map((_, i) => `$${i + 1}${i === 5 ? '::jsonb' : ''}`).join(', ')})
  ON CONFLICT (account_id, request_id) DO NOTHING RETURNING *`;

/** Inserts a payout in its first state; null when the account already has one with this request_id. */
export async function insertPayout(query: RawQuery, payout: NewPayout, entry: Entry<PayoutStatus>): Promise<PayoutRow | null> {
  const p = payout;
  const [row] = await query<Record<string, unknown>>(
    INSERT_PAYOUT_SQL,
    [
      p.id, p.accountId, p.merchantId, p.requestId, p.requestFingerprint, JSON.stringify(p.request), p.shortReferenceId, p.paymentMethod,
      p.clearingSystem, p.paymentDate, p.paymentCurrency, p.sourceCurrency, p.transferPayment, p.transferSource,
      p.amountBeneficiaryReceives, p.amountPayerPays, p.feeAmount, p.feeCurrency, p.feePaidBy, p.fxRate, entry.to,
      p.failureType, p.failureReason, p.connector, p.railReference, p.notifyUrl, p.nextCheckAt, p.createdAt, p.updatedAt,
    ],
    'insert_payout',
  );
  return row ? toPayout(row) : null;
}

/** Locks one payout (of `accountId` when given) for this transaction. */
export async function lockPayout(query: RawQuery, id: string, accountId?: string): Promise<PayoutRow | null> {
  const [row] = await query<Record<string, unknown>>(
    `SELECT * FROM payouts WHERE id = $1 AND ($2::text IS NULL OR account_id = $2) FOR UPDATE`,
    [id, accountId ?? null],
    'lock_payout',
  );
  return row ? toPayout(row) : null;
}

/** What a move writes beside the status. */
export interface PayoutChanges {
  readonly failureType?: string | null;
  readonly failureReason?: string | null;
  readonly railReference?: string | null;
  readonly nextCheckAt: Date | null;
  readonly at: Date;
  /**
   * Keep the rail task's lease (its own SCHEDULED → PROCESSING on the way to the rail: it still
   * works on the row). Any other move ends the lease: the row is then due at next_check_at.
   */
  readonly keepLease?: boolean;
}

const MOVE_PAYOUT_SQL = `UPDATE payouts SET status = $3, failure_type = coalesce($4, failure_type), failure_reason = coalesce($5, failure_reason),
    rail_reference = coalesce($6, rail_reference), next_check_at = $7, updated_at = CASE WHEN $2 <> $3 THEN $8::timestamptz ELSE updated_at END,
    leased_until = CASE WHEN $9::boolean THEN leased_until END
  WHERE id = $1 AND status = $2 RETURNING *`;

/**
 * Writes a Transition of a locked payout; throws when the row is no longer in its `from` state.
 * updated_at (the answer's last_updated_at) moves with the status only: a stay (the rail asked
 * again, a return check) changes nothing the merchant sees.
 */
export async function movePayout(query: RawQuery, id: string, move: Transition<PayoutStatus>, changes: PayoutChanges): Promise<PayoutRow> {
  const [row] = await query<Record<string, unknown>>(
    MOVE_PAYOUT_SQL,
    [id, move.from, move.to, changes.failureType ?? null, changes.failureReason ?? null, changes.railReference ?? null, changes.nextCheckAt, changes.at, changes.keepLease ?? false],
    'move_payout',
  );
  if (!row) throw new Error(`payout ${id} is no longer ${move.from}`);
  return toPayout(row);
}

const ROUTE_PAYOUT_SQL = `UPDATE payouts p SET connector = a.connector FROM accounts a
  WHERE p.id = $1 AND a.id = p.account_id AND p.connector = $2 AND a.connector <> p.connector
    AND p.status = 'PROCESSING' AND p.rail_reference IS NULL
  RETURNING p.*`;

/**
 * Moves a PROCESSING payout no rail has given a reference for from `payout.connector` to its
 * account's connector; null when it is elsewhere already, or the account is still on that one.
 */
export async function routePayoutToAccountConnector(query: RawQuery, payout: Pick<PayoutRow, 'id' | 'connector'>): Promise<PayoutRow | null> {
  const [row] = await query<Record<string, unknown>>(ROUTE_PAYOUT_SQL, [payout.id, payout.connector], 'route_payout');
  return row ? toPayout(row) : null;
}

export async function payoutByRequestId(query: RawQuery, accountId: string, requestId: string): Promise<PayoutRow | null> {
  const [row] = await query<Record<string, unknown>>(`SELECT * FROM payouts WHERE account_id = $1 AND request_id = $2`, [accountId, requestId], 'payout_by_request');
  return row ? toPayout(row) : null;
}

export async function payoutById(db: Executor, accountId: string, id: string): Promise<PayoutRow | null> {
  const [row] = await db.select().from(payouts).where(and(eq(payouts.accountId, accountId), eq(payouts.id, id)));
  return row ?? null;
}

/** Leases the payouts due for the rail task (QUEUES.duePayouts); each is due again when `leaseMs` runs out. */
export async function leaseDuePayouts(db: Executor, clocks: LeaseClocks, limit: number, leaseMs: number): Promise<PayoutRow[]> {
  const rows = await leaseDue<Record<string, unknown>>(db, QUEUES.duePayouts, lease(clocks, leaseMs), limit);
  return rows.map(toPayout);
}

export interface PayoutFilter {
  readonly status?: PayoutStatus;
  /** Payouts created before this one (id order is creation order): the next page. */
  readonly before?: string;
  readonly limit: number;
  /** Rows skipped first (the portal's pages). */
  readonly offset?: number;
}

/** An account's payouts, newest first (ids break ties, so that pages never overlap). */
export async function listPayouts(db: Executor, accountId: string, filter: PayoutFilter): Promise<PayoutRow[]> {
  const where: SQL[] = [eq(payouts.accountId, accountId)];
  if (filter.status) where.push(eq(payouts.status, filter.status));
  if (filter.before) where.push(lt(payouts.id, filter.before));
  return db
    .select()
    .from(payouts)
    .where(and(...where))
    .orderBy(desc(payouts.createdAt), desc(payouts.id))
    .limit(filter.limit)
    .offset(filter.offset ?? 0);
}

/**
 * The account's payout fees as committed now: read at each payout rather than from the account
 * directory's cache, so a fee changed a moment ago is the one charged.
 */
export async function currentPayoutFees(query: RawQuery, accountId: string): Promise<PayoutFeeSchedule> {
  const [row] = await query<{ payout_fees: PayoutFeeSchedule }>(`SELECT payout_fees FROM accounts WHERE id = $1`, [accountId], 'payout_fees');
  return row?.payout_fees ?? {};
}
