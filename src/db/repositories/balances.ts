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
 *
 * Found through the movements no settlement has counted yet (settlement_pending, migration 0032):
 * the `limit` booked first, in the order of their partial index, and their accounts and
 * currencies, so a round reads what is due and never the whole book. `full` when there may be more.
 * A worker behind another also reads those booked before the latest cutoff already settled (found
 * through its own index), each kept only if its currency was settled past it.
 */
export async function dueSettlements(query: RawQuery, connector: string, cutoff: Date, limit: number): Promise<{ readonly dues: DueSettlement[]; readonly full: boolean }> {
  const [latest] = await query<{ settled_before: Date | string | null }>(`SELECT max(settled_before) AS settled_before FROM account_balances`);
  const settled = latest?.settled_before ? new Date(latest.settled_before) : null;
  const upTo = settled && settled > cutoff ? settled : cutoff;
  const rows = await query<{ account_id: string; currency: string }>(
    `SELECT e.account_id, e.currency FROM ledger_entries e
      WHERE e.settlement_pending AND e.book = 'merchant_balance' AND e.kind <> 'settlement' AND e.booked_at < $3::timestamptz
        AND (e.booked_at < $2::timestamptz
             OR e.booked_at < (SELECT b.settled_before FROM account_balances b WHERE b.account_id = e.account_id AND b.currency = e.currency))
        AND (SELECT a.connector FROM accounts a WHERE a.id = e.account_id) = $1
      ORDER BY e.booked_at
      LIMIT $4`,
    [connector, cutoff, upTo, limit],
  );
  const dues = new Map(rows.map((r) => [`${r.account_id} ${r.currency}`, { accountId: r.account_id, currency: r.currency }]));
  return { dues: [...dues.values()], full: rows.length === limit };
}

/**
 * What settles now for one account and currency, and the cutoff it settles up to (call it under the balance row's lock).
 * The same statement clears the mark of the movements it counts (settlement_pending): one snapshot,
 * so a movement committed meanwhile is neither counted nor cleared, and the next round finds it.
 */
export async function settlementDue(query: RawQuery, accountId: string, currency: string, cutoff: Date): Promise<{ readonly amount: number; readonly cutoff: Date }> {
  const [row] = await query<{ due: string; cutoff: Date | string }>(
    `WITH upto AS (SELECT greatest($3::timestamptz, (SELECT settled_before FROM account_balances WHERE account_id = $1 AND currency = $2)) AS cutoff),
     counted AS (
       UPDATE ledger_entries e SET settlement_pending = false FROM upto u
        WHERE e.account_id = $1 AND e.currency = $2 AND e.book = 'merchant_balance' AND e.kind <> 'settlement'
          AND e.settlement_pending AND e.booked_at < u.cutoff)
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
