// `acquiro ledger check`: proves the books. Every journal sums to zero in its one currency (a
// payment's movement carrying its payment), and
// every payment's books agree with its row: the hold outstanding only while it is authorised or
// held for review, the captured and refunded amounts as booked, refunds (pending and succeeded)
// never above what was captured, the chargebacks booked as its open disputes say, and the state
// matching the amounts; every balance row (available,
// reserved) equals the sum of its books' entries; every payout's reservation, payment, fee and
// return are booked as its status says. docs/ledger.md.
import type { PaymentStatus } from '../../domain/payment.ts';
import { balanceProblems, countBalances, countJournals, countPayouts, journalProblems, paymentBooks, payoutProblems, type PaymentBooks } from '../../db/repositories/ledger-audit.ts';
import type { Deps } from '../context.ts';

export interface Violation {
  /** A journal_id or a payment's transaction_id. */
  readonly id: string;
  readonly problem: string;
  readonly detail: string;
}

export interface LedgerReport {
  readonly ok: boolean;
  readonly journals: number;
  readonly payments: number;
  /** Balance rows (account and currency), each equal to the sum of its entries when ok. */
  readonly balances: number;
  /** Payouts, each with its reservation, payment, fee and return booked as its status says when ok. */
  readonly payouts: number;
  /** The first violations found (at most `limit`). */
  readonly violations: readonly Violation[];
}

const PAGE = 1_000;
const HELD_STATES: readonly string[] = ['authorised', 'pending_review'] satisfies PaymentStatus[];

export async function checkLedger(deps: Pick<Deps, 'database'>, limit = 100): Promise<LedgerReport> {
  const db = deps.database.db;
  const violations: Violation[] = (await journalProblems(db, limit)).map((p) => ({ id: p.journal_id, problem: `journal_${p.problem}`, detail: p.detail }));
  for (const b of await balanceProblems(db, limit)) {
    violations.push({
      id: `${b.account_id}/${b.currency}`,
      problem: 'balance',
      detail: `stored available ${b.stored_available} and reserved ${b.stored_reserved}, the entries say ${b.booked_available} and ${b.booked_reserved}`,
    });
  }
  for (const p of await payoutProblems(db, limit)) {
    violations.push({
      id: p.id,
      problem: 'payout',
      detail: `a ${p.status} payout of ${p.amount_payer_pays} (fee ${p.fee_amount}) with ${p.reserved} reserved, ${p.paid} paid out and ${p.fee} fee booked${p.misplaced !== '0' ? `, ${p.misplaced} entries in another account or currency` : ''}`,
    });
  }
  let payments = 0;
  let after = '';
  for (;;) {
    const page = await paymentBooks(db, after, PAGE);
    for (const books of page) violations.push(...paymentViolations(books));
    payments += page.length;
    if (page.length < PAGE) break;
    after = page[page.length - 1]!.id;
  }
  return {
    ok: violations.length === 0,
    journals: await countJournals(db),
    payments,
    balances: await countBalances(db),
    payouts: await countPayouts(db),
    violations: violations.slice(0, limit),
  };
}

/** What is wrong with one payment's books, if anything. */
export function paymentViolations(p: PaymentBooks): Violation[] {
  const found: Violation[] = [];
  const add = (problem: string, detail: string) => found.push({ id: p.id, problem, detail });
  const expectedHeld = HELD_STATES.includes(p.status) ? p.amount : 0;
  if (p.held !== expectedHeld) add('hold', `${p.held} held in authorised_funds, expected ${expectedHeld} for a ${p.status} payment`);
  if (p.bookedCaptured !== p.capturedAmount) add('captured', `${p.bookedCaptured} booked as captured, the payment says ${p.capturedAmount}`);
  if (p.operationCaptured !== null && p.operationCaptured !== p.capturedAmount) {
    add('captured', `the capture operation took ${p.operationCaptured}, the payment says ${p.capturedAmount}`);
  }
  if (p.bookedRefunded !== p.refundedAmount) add('refunded', `${p.bookedRefunded} booked as refunded, the payment says ${p.refundedAmount}`);
  if (p.refundsSucceeded !== p.refundedAmount) add('refunded', `refunds that succeeded sum to ${p.refundsSucceeded}, the payment says ${p.refundedAmount}`);
  if (p.refundsReserved > p.capturedAmount) add('over_refund', `pending and succeeded refunds sum to ${p.refundsReserved}, above the ${p.capturedAmount} captured`);
  if (p.refundReserved !== p.refundsReserved) add('reserved', `pending and succeeded refunds sum to ${p.refundsReserved}, the payment reserves ${p.refundReserved}`);
  if (p.capturedAmount > p.amount) add('over_capture', `${p.capturedAmount} captured of ${p.amount} authorised`);
  // Refunds and chargebacks are not summed against the capture: a dispute the acquirer reports
  // after a refund is its fact, recorded whatever was refunded (docs/chargebacks.md).
  if (p.bookedChargedBack !== p.disputesOpen) add('chargeback', `${p.bookedChargedBack} booked as charged back, the payment's open disputes say ${p.disputesOpen}`);
  if (!stateMatches(p)) add('state', `a ${p.status} payment with ${p.capturedAmount} captured and ${p.refundedAmount} refunded`);
  return found;
}

function stateMatches(p: PaymentBooks): boolean {
  switch (p.status) {
    case 'captured':
      return p.capturedAmount > 0 && p.refundedAmount === 0;
    case 'partially_refunded':
      return p.refundedAmount > 0 && p.refundedAmount < p.capturedAmount;
    case 'refunded':
      return p.capturedAmount > 0 && p.refundedAmount === p.capturedAmount;
    default:
      return p.capturedAmount === 0 && p.refundedAmount === 0;
  }
}
