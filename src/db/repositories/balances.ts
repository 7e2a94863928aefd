// The balance rows payouts draw on (account_balances), moved only beside their journal and only
// inside the caller's transaction. A reservation is one conditional UPDATE: PostgreSQL locks the
// row and re-checks `available >= amount` on the row as committed by any concurrent debit, so
// however many run at once, the available balance never goes below zero through a reservation.
// Settlement may take it below zero (refunds, chargebacks): that is owed, and recovered from the
// next settlements. docs/ledger.md.
import type { RawQuery } from '../client.ts';

export interface BalanceRow {
  readonly currency: string;
  readonly available: number;
  readonly reserved: number;
}

interface RawBalance {
  currency: string;
  available: string;
  reserved: string;
}

const toRow = (r: RawBalance): BalanceRow => ({ currency: r.currency, available: Number(r.available), reserved: Number(r.reserved) });

/** Creates the account's row for a currency if it has none, and locks it for this transaction. */
export async function lockBalance(query: RawQuery, accountId: string, currency: string): Promise<BalanceRow> {
  await query(`INSERT INTO account_balances (account_id, currency) VALUES ($1, $2) ON CONFLICT (account_id, currency) DO NOTHING`, [accountId, currency]);
  const [row] = await query<RawBalance>(
    `SELECT currency, available::text AS available, reserved::text AS reserved FROM account_balances WHERE account_id = $1 AND currency = $2 FOR UPDATE`,
    [accountId, currency],
  );
  return toRow(row!);
}

/** Adds to (or, negative, takes from) the available balance, unconditionally: settlements, top-ups, returned payouts. */
export async function creditAvailable(query: RawQuery, accountId: string, currency: string, amount: number): Promise<BalanceRow | null> {
  const [row] = await query<RawBalance>(
    `UPDATE account_balances SET available = available + $3, updated_at = now() WHERE account_id = $1 AND currency = $2
      RETURNING currency, available::text AS available, reserved::text AS reserved`,
    [accountId, currency, amount],
  );
  return row ? toRow(row) : null;
}

/** Moves `amount` from available to reserved if available covers it; null when it does not. */
export async function reserveAvailable(query: RawQuery, accountId: string, currency: string, amount: number): Promise<BalanceRow | null> {
  const [row] = await query<RawBalance>(
    `UPDATE account_balances SET available = available - $3, reserved = reserved + $3, updated_at = now()
      WHERE account_id = $1 AND currency = $2 AND available >= $3
      RETURNING currency, available::text AS available, reserved::text AS reserved`,
    [accountId, currency, amount],
  );
  return row ? toRow(row) : null;
}

/** Takes `amount` out of reserved (a payout paid, or released when `toAvailable`); null when less is reserved. */
export async function takeReserved(query: RawQuery, accountId: string, currency: string, amount: number, toAvailable: boolean): Promise<BalanceRow | null> {
  const [row] = await query<RawBalance>(
    `UPDATE account_balances SET reserved = reserved - $3, available = available + CASE WHEN $4::boolean THEN $3 ELSE 0 END, updated_at = now()
      WHERE account_id = $1 AND currency = $2 AND reserved >= $3
      RETURNING currency, available::text AS available, reserved::text AS reserved`,
    [accountId, currency, amount, toAvailable],
  );
  return row ? toRow(row) : null;
}

/** Whether a journal with this id is already written (a retried movement). */
export async function journalWritten(query: RawQuery, journalId: string): Promise<boolean> {
  const rows = await query(`SELECT 1 FROM ledger_entries WHERE journal_id = $1 LIMIT 1`, [journalId]);
  return rows.length > 0;
}

/** An account's balance rows with the pending money of its journal, per currency. */
export async function balancesOf(query: RawQuery, accountId: string): Promise<(BalanceRow & { pending: number })[]> {
  const rows = await query<RawBalance & { pending: string }>(
    `WITH pending AS (
       SELECT currency, -sum(amount) AS pending FROM ledger_entries WHERE account_id = $1 AND book = 'merchant_balance' GROUP BY currency)
     SELECT coalesce(b.currency, p.currency) AS currency, coalesce(b.available, 0)::text AS available,
            coalesce(p.pending, 0)::text AS pending, coalesce(b.reserved, 0)::text AS reserved
       FROM (SELECT * FROM account_balances WHERE account_id = $1) b FULL JOIN pending p ON p.currency = b.currency
      ORDER BY 1`,
    [accountId],
  );
  return rows.map((r) => ({ ...toRow(r), pending: Number(r.pending) }));
}

export interface DueSettlement {
  readonly accountId: string;
  readonly currency: string;
}

/**
 * Accounts on `connector` with pending money booked (on the injected clock) before `cutoff` and not yet settled. What
 * is due is cumulative (everything booked before the cutoff, less every settlement so far), so a
 * movement committed late is settled by the next batch, and a batch repeated settles nothing. The
 * cutoff is never earlier than the one the account's currency was settled up to (settled_before):
 * a worker whose business time lags another's never takes settled money back.
 */
export async function dueSettlements(query: RawQuery, connector: string, cutoff: Date, limit: number): Promise<DueSettlement[]> {
  const rows = await query<{ account_id: string; currency: string }>(
    `SELECT e.account_id, e.currency FROM ledger_entries e JOIN accounts a ON a.id = e.account_id
       LEFT JOIN account_balances b ON b.account_id = e.account_id AND b.currency = e.currency
      WHERE e.book = 'merchant_balance' AND a.connector = $1
      GROUP BY e.account_id, e.currency, b.settled_before
     HAVING coalesce(sum(e.amount) FILTER (WHERE e.kind <> 'settlement' AND e.booked_at < greatest($2::timestamptz, b.settled_before)), 0)
          + coalesce(sum(e.amount) FILTER (WHERE e.kind = 'settlement'), 0) <> 0
      LIMIT $3`,
    [connector, cutoff, limit],
  );
  return rows.map((r) => ({ accountId: r.account_id, currency: r.currency }));
}

/** What settles now for one account and currency, and the cutoff it settles up to (call it under the balance row's lock). */
export async function settlementDue(query: RawQuery, accountId: string, currency: string, cutoff: Date): Promise<{ readonly amount: number; readonly cutoff: Date }> {
  const [row] = await query<{ due: string; cutoff: Date | string }>(
    `WITH upto AS (SELECT greatest($3::timestamptz, (SELECT settled_before FROM account_balances WHERE account_id = $1 AND currency = $2)) AS cutoff)
     SELECT (-(coalesce(sum(e.amount) FILTER (WHERE e.kind <> 'settlement' AND e.booked_at < u.cutoff), 0)
              + coalesce(sum(e.amount) FILTER (WHERE e.kind = 'settlement'), 0)))::text AS due, u.cutoff
       FROM upto u LEFT JOIN ledger_entries e ON e.account_id = $1 AND e.currency = $2 AND e.book = 'merchant_balance'
      GROUP BY u.cutoff`,
    [accountId, currency, cutoff],
  );
  return { amount: Number(row!.due), cutoff: new Date(row!.cutoff) };
}

/** Settlement moved `amount` (possibly 0) into available, everything booked before `cutoff` counted. */
export async function recordSettlement(query: RawQuery, accountId: string, currency: string, amount: number, cutoff: Date): Promise<void> {
  await query(
    `UPDATE account_balances SET available = available + $3, settled_before = greatest(settled_before, $4::timestamptz), updated_at = now()
      WHERE account_id = $1 AND currency = $2`,
    [accountId, currency, amount, cutoff],
  );
}
