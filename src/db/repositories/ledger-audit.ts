// The reads behind `acquiro ledger check` and `acquiro ledger balance`: journals that do not sum to
// zero, entries that disagree with their payment, and each payment's books beside its row.
import { sql } from 'drizzle-orm';
import { PLATFORM_ACCOUNT_ID, PLATFORM_BOOKS, type JournalKind } from '../../domain/ledger.ts';
import { rowsOf, type Executor } from '../client.ts';

export interface JournalProblem {
  readonly journal_id: string;
  readonly problem: 'unbalanced' | 'mixed' | 'payment_mismatch' | 'platform_book' | 'orphan';
  readonly detail: string;
}

/** The journals that record a payment's movement. */
const PAYMENT_KINDS: readonly JournalKind[] = ['authorisation', 'capture', 'release', 'fee', 'refund', 'chargeback', 'chargeback_reversal'];
const list = (values: readonly string[]) => sql.join(values.map((v) => sql`${v}`), sql`, `);

/**
 * Journals that do not sum to zero, mix currencies, accounts or payments, book another account's
 * payment or a platform book outside the platform account; and orphans, a payment's movement
 * with no payment: one balances and moves a merchant's balance (a capture without a payment
 * settles and pays out like any other), yet no payment's books count it, so nothing else finds it.
 */
export async function journalProblems(db: Executor, limit: number): Promise<JournalProblem[]> {
  return rowsOf<JournalProblem>(
    db,
    sql`(SELECT journal_id, 'unbalanced' AS problem, currency || ' entries sum to ' || sum(amount)::text AS detail
           FROM ledger_entries GROUP BY journal_id, currency HAVING sum(amount) <> 0 LIMIT ${limit})
        UNION ALL
        (SELECT journal_id, 'mixed', 'one journal spans several currencies, accounts or payments'
           FROM ledger_entries GROUP BY journal_id
           HAVING count(DISTINCT currency) > 1 OR count(DISTINCT account_id) FILTER (WHERE account_id <> ${PLATFORM_ACCOUNT_ID}) > 1
               OR count(DISTINCT coalesce(payment_id, '')) > 1 LIMIT ${limit})
        UNION ALL
        (SELECT DISTINCT e.journal_id, 'payment_mismatch', 'entry of payment ' || e.payment_id || ' in another account or currency, or of no payment'
           FROM ledger_entries e LEFT JOIN payments p ON p.id = e.payment_id
          WHERE e.payment_id IS NOT NULL AND (p.id IS NULL OR (p.account_id <> e.account_id AND e.account_id <> ${PLATFORM_ACCOUNT_ID}) OR p.currency <> e.currency) LIMIT ${limit})
        UNION ALL
        (SELECT journal_id, 'platform_book', book || ' booked outside the platform account, or the platform account holding ' || book
           FROM ledger_entries WHERE (book IN (${list(PLATFORM_BOOKS)})) <> (account_id = ${PLATFORM_ACCOUNT_ID}) LIMIT ${limit})
        UNION ALL
        (SELECT DISTINCT journal_id, 'orphan', kind || ' journal of no payment'
           FROM ledger_entries WHERE kind IN (${list(PAYMENT_KINDS)}) AND payment_id IS NULL LIMIT ${limit})`,
  );
}

export async function countJournals(db: Executor): Promise<number> {
  const [row] = await rowsOf<{ n: string }>(db, sql`SELECT count(DISTINCT journal_id)::text AS n FROM ledger_entries`);
  return Number(row!.n);
}

/** A payment's row beside what its books, refunds and captures say, in minor units. */
export interface PaymentBooks {
  readonly id: string;
  readonly status: string;
  readonly currency: string;
  readonly amount: number;
  readonly capturedAmount: number;
  readonly refundedAmount: number;
  /** What the payment row reserves for refunds (payments.refund_reserved). */
  readonly refundReserved: number;
  /** Outstanding authorisation hold (authorised_funds). */
  readonly held: number;
  readonly bookedCaptured: number;
  readonly bookedRefunded: number;
  readonly refundsSucceeded: number;
  /** Pending and succeeded refunds. */
  readonly refundsReserved: number;
  /** What the chargeback journals took back and did not give back (processor_receivable). */
  readonly bookedChargedBack: number;
  /** The amounts of the payment's disputes still open: what its chargebacks took back. */
  readonly disputesOpen: number;
  /** The succeeded capture operation's amount, when the payment was captured after authorisation. */
  readonly operationCaptured: number | null;
}

/** One page of payments (ordered by id, after `afterId`) with their books. */
export async function paymentBooks(db: Executor, afterId: string, limit: number): Promise<PaymentBooks[]> {
  const rows = await rowsOf<Record<string, string | null>>(
    db,
    sql`WITH page AS (SELECT * FROM payments WHERE id > ${afterId} ORDER BY id LIMIT ${limit}),
        books AS (
          SELECT payment_id,
                 coalesce(sum(amount) FILTER (WHERE book = 'authorised_funds'), 0) AS held,
                 coalesce(sum(amount) FILTER (WHERE book = 'processor_receivable' AND kind = 'capture'), 0) AS captured,
                 coalesce(-sum(amount) FILTER (WHERE book = 'processor_receivable' AND kind = 'refund'), 0) AS refunded,
                 coalesce(-sum(amount) FILTER (WHERE book = 'processor_receivable' AND kind IN ('chargeback', 'chargeback_reversal')), 0) AS charged_back
            FROM ledger_entries WHERE payment_id IN (SELECT id FROM page) GROUP BY payment_id),
        disputed AS (
          SELECT payment_id, sum(amount) FILTER (WHERE status = 'open') AS open
            FROM disputes WHERE payment_id IN (SELECT id FROM page) GROUP BY payment_id),
        refund_sums AS (
          SELECT payment_id,
                 coalesce(sum(amount) FILTER (WHERE status = 'succeeded'), 0) AS succeeded,
                 coalesce(sum(amount) FILTER (WHERE status <> 'failed'), 0) AS reserved
            FROM refunds WHERE payment_id IN (SELECT id FROM page) GROUP BY payment_id),
        captures AS (
          SELECT payment_id, sum(amount) AS captured FROM payment_operations
           WHERE kind = 'capture' AND status = 'succeeded' AND payment_id IN (SELECT id FROM page) GROUP BY payment_id)
        SELECT p.id, p.status, p.currency, p.amount::text AS amount, p.captured_amount::text AS captured_amount,
               p.refunded_amount::text AS refunded_amount, p.refund_reserved::text AS refund_reserved, coalesce(b.held, 0)::text AS held,
               coalesce(b.captured, 0)::text AS booked_captured, coalesce(b.refunded, 0)::text AS booked_refunded,
               coalesce(r.succeeded, 0)::text AS refunds_succeeded, coalesce(r.reserved, 0)::text AS refunds_reserved,
               c.captured::text AS operation_captured, coalesce(b.charged_back, 0)::text AS booked_charged_back,
               coalesce(d.open, 0)::text AS disputes_open
          FROM page p LEFT JOIN books b ON b.payment_id = p.id LEFT JOIN refund_sums r ON r.payment_id = p.id
          LEFT JOIN captures c ON c.payment_id = p.id LEFT JOIN disputed d ON d.payment_id = p.id
         ORDER BY p.id`,
  );
  return rows.map((r) => ({
    id: r.id!,
    status: r.status!,
    currency: r.currency!,
    amount: Number(r.amount),
    capturedAmount: Number(r.captured_amount),
    refundedAmount: Number(r.refunded_amount),
    refundReserved: Number(r.refund_reserved),
    held: Number(r.held),
    bookedCaptured: Number(r.booked_captured),
    bookedRefunded: Number(r.booked_refunded),
    refundsSucceeded: Number(r.refunds_succeeded),
    refundsReserved: Number(r.refunds_reserved),
    operationCaptured: r.operation_captured === null ? null : Number(r.operation_captured),
    bookedChargedBack: Number(r.booked_charged_back),
    disputesOpen: Number(r.disputes_open),
  }));
}

/** Every book of an account, per currency: debit positive, credit negative. */
export async function bookTotals(db: Executor, accountId: string): Promise<{ currency: string; book: string; total: number }[]> {
  const rows = await rowsOf<{ currency: string; book: string; total: string }>(
    db,
    sql`SELECT currency, book, sum(amount)::text AS total FROM ledger_entries WHERE account_id = ${accountId}
        GROUP BY currency, book ORDER BY currency, book`,
  );
  return rows.map((row) => ({ ...row, total: Number(row.total) }));
}

/** Balance rows that differ from the sum of their books' entries (available, reserved). */
export interface BalanceProblem {
  readonly account_id: string;
  readonly currency: string;
  readonly stored_available: string;
  readonly booked_available: string;
  readonly stored_reserved: string;
  readonly booked_reserved: string;
}

export async function balanceProblems(db: Executor, limit: number): Promise<BalanceProblem[]> {
  return rowsOf<BalanceProblem>(
    db,
    sql`WITH booked AS (
          SELECT account_id, currency,
                 -coalesce(sum(amount) FILTER (WHERE book = 'merchant_available'), 0) AS available,
                 -coalesce(sum(amount) FILTER (WHERE book = 'merchant_reserved'), 0) AS reserved
            FROM ledger_entries WHERE book IN ('merchant_available', 'merchant_reserved') GROUP BY account_id, currency)
        SELECT coalesce(b.account_id, k.account_id) AS account_id, coalesce(b.currency, k.currency) AS currency,
               coalesce(b.available, 0)::text AS stored_available, coalesce(k.available, 0)::text AS booked_available,
               coalesce(b.reserved, 0)::text AS stored_reserved, coalesce(k.reserved, 0)::text AS booked_reserved
          FROM account_balances b FULL JOIN booked k ON k.account_id = b.account_id AND k.currency = b.currency
         WHERE coalesce(b.available, 0) <> coalesce(k.available, 0) OR coalesce(b.reserved, 0) <> coalesce(k.reserved, 0)
         LIMIT ${limit}`,
  );
}

export async function countBalances(db: Executor): Promise<number> {
  const [row] = await rowsOf<{ n: string }>(db, sql`SELECT count(*)::text AS n FROM account_balances`);
  return Number(row!.n);
}

/** The fees taken on an account's captures, per currency (the merchant's side of fee journals). */
export async function feesCharged(db: Executor, accountId: string): Promise<Record<string, number>> {
  const rows = await rowsOf<{ currency: string; total: string }>(
    db,
    sql`SELECT currency, sum(amount)::text AS total FROM ledger_entries
        WHERE account_id = ${accountId} AND book = 'merchant_balance' AND kind = 'fee' GROUP BY currency`,
  );
  return Object.fromEntries(rows.map((r) => [r.currency, Number(r.total)]));
}

/** A payout whose books disagree with its status (docs/ledger.md, rule 5). */
export interface PayoutProblem {
  readonly id: string;
  readonly status: string;
  readonly amount_payer_pays: string;
  readonly fee_amount: string;
  readonly reserved: string;
  readonly paid: string;
  readonly fee: string;
  readonly misplaced: string;
}

/**
 * Payouts whose entries (reference_id = the payout) disagree with their status: reserved is
 * amount_payer_pays while SCHEDULED or PROCESSING and nothing after; paid out is the payer's
 * amount less the fee while COMPLETED (nothing once RETURNED: it came back); the fee is revenue
 * once COMPLETED (kept when RETURNED); every entry in the payout's account (or the platform's)
 * and its source currency. Only the problems are read, at most `limit`.
 */
export async function payoutProblems(db: Executor, limit: number): Promise<PayoutProblem[]> {
  return rowsOf<PayoutProblem>(
    db,
    sql`WITH books AS (
          SELECT e.reference_id,
                 coalesce(-sum(e.amount) FILTER (WHERE e.book = 'merchant_reserved'), 0) AS reserved,
                 coalesce(-sum(e.amount) FILTER (WHERE e.book = 'payouts_paid'), 0) AS paid,
                 coalesce(-sum(e.amount) FILTER (WHERE e.book = 'fee_revenue'), 0) AS fee,
                 count(*) FILTER (WHERE e.currency <> p.source_currency OR (e.account_id <> p.account_id AND e.account_id <> ${PLATFORM_ACCOUNT_ID})) AS misplaced
            FROM ledger_entries e JOIN payouts p ON p.id = e.reference_id GROUP BY e.reference_id)
        SELECT p.id, p.status, p.amount_payer_pays::text AS amount_payer_pays, p.fee_amount::text AS fee_amount,
               coalesce(b.reserved, 0)::text AS reserved, coalesce(b.paid, 0)::text AS paid, coalesce(b.fee, 0)::text AS fee,
               coalesce(b.misplaced, 0)::text AS misplaced
          FROM payouts p LEFT JOIN books b ON b.reference_id = p.id
         WHERE coalesce(b.reserved, 0) <> CASE WHEN p.status IN ('SCHEDULED', 'PROCESSING') THEN p.amount_payer_pays ELSE 0 END
            OR coalesce(b.paid, 0) <> CASE WHEN p.status = 'COMPLETED' THEN p.amount_payer_pays - p.fee_amount ELSE 0 END
            OR coalesce(b.fee, 0) <> CASE WHEN p.status IN ('COMPLETED', 'RETURNED') THEN p.fee_amount ELSE 0 END
            OR coalesce(b.misplaced, 0) > 0
         ORDER BY p.id LIMIT ${limit}`,
  );
}

export async function countPayouts(db: Executor): Promise<number> {
  const [row] = await rowsOf<{ n: string }>(db, sql`SELECT count(*)::text AS n FROM payouts`);
  return Number(row!.n);
}
