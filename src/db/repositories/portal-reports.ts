// The portal's sums over one merchant's accounts (src/app/portal/reports.ts): the settlement
// report from the ledger's merchant_balance book, and the daily counts behind the charts from the
// payments. Days are UTC days of the business clock's stamps (booked_at, created_at).
import { sql } from 'drizzle-orm';
import { rowsOf, type Executor } from '../client.ts';

export interface Window {
  readonly merchantId: string;
  /** At or after. */
  readonly from: Date;
  /** Before. */
  readonly before: Date;
}

export interface SettlementDayRow {
  readonly day: string;
  readonly currency: string;
  /** Minor units, each positive: captured, refunded and fees charged that day. */
  readonly captured: number;
  readonly refunded: number;
  readonly fees: number;
}

export async function settlementDays(db: Executor, window: Window): Promise<SettlementDayRow[]> {
  const rows = await rowsOf<{ day: string; currency: string; captured: string; refunded: string; fees: string }>(
    db,
    sql`SELECT to_char(e.booked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, e.currency,
               coalesce(-sum(e.amount) FILTER (WHERE e.kind = 'capture'), 0)::text AS captured,
               coalesce(sum(e.amount) FILTER (WHERE e.kind = 'refund'), 0)::text AS refunded,
               coalesce(sum(e.amount) FILTER (WHERE e.kind = 'fee'), 0)::text AS fees
          FROM ledger_entries e JOIN accounts a ON a.id = e.account_id
         WHERE a.merchant_id = ${window.merchantId} AND e.book = 'merchant_balance' AND e.kind IN ('capture', 'refund', 'fee')
           AND e.booked_at >= ${window.from} AND e.booked_at < ${window.before}
         GROUP BY 1, 2 ORDER BY 1 DESC, 2`,
  );
  return rows.map((r) => ({ day: r.day, currency: r.currency, captured: Number(r.captured), refunded: Number(r.refunded), fees: Number(r.fees) }));
}

export interface ActivityDayRow {
  readonly day: string;
  readonly currency: string;
  /** Minor units of the payments approved that day (whatever became of them later). */
  readonly approvedVolume: number;
  readonly approved: number;
  readonly declined: number;
}

/** Approved: any state an approval leads to; declined: failed. Payments still pending count in neither. */
export async function activityDays(db: Executor, window: Window): Promise<ActivityDayRow[]> {
  const rows = await rowsOf<{ day: string; currency: string; volume: string; approved: number; declined: number }>(
    db,
    sql`SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, currency,
               coalesce(sum(amount) FILTER (WHERE status IN ('authorised', 'captured', 'partially_refunded', 'refunded', 'pending_review', 'cancelled')), 0)::text AS volume,
               (count(*) FILTER (WHERE status IN ('authorised', 'captured', 'partially_refunded', 'refunded', 'pending_review', 'cancelled')))::int AS approved,
               (count(*) FILTER (WHERE status = 'failed'))::int AS declined
          FROM payments
         WHERE merchant_id = ${window.merchantId} AND created_at >= ${window.from} AND created_at < ${window.before}
         GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  return rows.map((r) => ({ day: r.day, currency: r.currency, approvedVolume: Number(r.volume), approved: Number(r.approved), declined: Number(r.declined) }));
}

export interface DeclineReasonRow {
  readonly reason: string;
  readonly count: number;
}

export async function declineReasons(db: Executor, window: Window, limit = 10): Promise<DeclineReasonRow[]> {
  const rows = await rowsOf<{ reason: string; count: number }>(
    db,
    sql`SELECT coalesce(result_code, '') || ':' || coalesce(result_message, '') AS reason, count(*)::int AS count
          FROM payments
         WHERE merchant_id = ${window.merchantId} AND status = 'failed' AND created_at >= ${window.from} AND created_at < ${window.before}
         GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${limit}`,
  );
  return rows.map((r) => ({ reason: r.reason, count: Number(r.count) }));
}
