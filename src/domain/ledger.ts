// Double-entry bookkeeping of every money movement. A journal is a set of entries whose amounts
// (debit positive, credit negative) sum to zero; this module builds them, pure, and the ledger
// repository writes them in the same transaction as the movement.
//
// Books, per merchant account and currency:
//   authorised_funds     memo asset: funds held on the shopper's card, not yet captured
//   authorisation_hold   memo liability, the other side of a hold
//   processor_receivable asset: captured money the processor owes us
//   merchant_balance     liability: captured money we owe the merchant, not yet settled (pending)
//   merchant_available   liability: settled money the merchant may be paid out (available)
//   merchant_reserved    liability: available money a payout has reserved (reserved)
//   fee_revenue          income: our fees, in the platform account (PLATFORM_ACCOUNT_ID)
//   payouts_in_transit   asset: money sent to the merchant, not yet confirmed
//   payouts_paid         asset: money paid out to merchants' beneficiaries (its credit side)
//   sandbox_funding      equity: money a sandbox operator credited with `acquiro balance topup`

export type Book =
  | 'authorised_funds'
  | 'authorisation_hold'
  | 'processor_receivable'
  | 'merchant_balance'
  | 'merchant_available'
  | 'merchant_reserved'
  | 'fee_revenue'
  | 'payouts_in_transit'
  | 'payouts_paid'
  | 'sandbox_funding';

/** Our own account: fee_revenue lives here, never in a merchant's books. */
export const PLATFORM_ACCOUNT_ID = 'platform';
/** The platform account's merchant: disabled, it signs nothing and lists nowhere. */
export const PLATFORM_MERCHANT_ID = 'platform';

/** The books kept in the platform account whoever's movement writes them. */
export const PLATFORM_BOOKS: readonly Book[] = ['fee_revenue'];

export interface Entry {
  readonly book: Book;
  readonly amount: number;
}

export type JournalKind =
  | 'authorisation'
  | 'capture'
  | 'release'
  | 'refund'
  | 'fee'
  | 'payout'
  | 'settlement'
  | 'topup'
  | 'payout_reserve'
  | 'payout_release'
  | 'payout_return'
  | 'chargeback'
  | 'chargeback_reversal';

export function isBalanced(entries: readonly Entry[]): boolean {
  return entries.reduce((sum, entry) => sum + entry.amount, 0) === 0;
}

/** Funds held on the card at authorisation. */
export function holdEntries(amount: number): Entry[] {
  return [
    { book: 'authorised_funds', amount },
    { book: 'authorisation_hold', amount: -amount },
  ];
}

/** Undoes (part of) a hold: at capture, cancellation or the release of an uncaptured rest. */
export function releaseEntries(amount: number): Entry[] {
  return [
    { book: 'authorisation_hold', amount },
    { book: 'authorised_funds', amount: -amount },
  ];
}

/** Captured money: owed to us by the processor, owed by us to the merchant. */
export function captureEntries(amount: number): Entry[] {
  return [
    { book: 'processor_receivable', amount },
    { book: 'merchant_balance', amount: -amount },
  ];
}

export function feeEntries(fee: number): Entry[] {
  if (fee === 0) return [];
  return [
    { book: 'merchant_balance', amount: fee },
    { book: 'fee_revenue', amount: -fee },
  ];
}

export function refundEntries(amount: number): Entry[] {
  return [
    { book: 'merchant_balance', amount },
    { book: 'processor_receivable', amount: -amount },
  ];
}

/**
 * A chargeback: the acquirer took the disputed amount back from us, and we take it from the
 * merchant (as a refund books, but the shopper's bank decided it, not the merchant).
 */
export function chargebackEntries(amount: number): Entry[] {
  return refundEntries(amount);
}

/** A chargeback the merchant won: the acquirer pays the amount back, and so do we. */
export function chargebackReversalEntries(amount: number): Entry[] {
  return [
    { book: 'processor_receivable', amount },
    { book: 'merchant_balance', amount: -amount },
  ];
}

/**
 * The fee on a captured amount, in basis points, rounded half up to the minor unit. In integers
 * (BigInt): an amount up to MAX_MINOR times a fee up to 10 000 basis points passes 2^53, where a
 * float product or quotient rounds, and the fee came out a minor unit off.
 */
export function feeFor(amount: number, feeBps: number): number {
  return Number((BigInt(amount) * BigInt(feeBps) + 5_000n) / 10_000n);
}

/** An account's fee in one currency: a fixed part (minor units) plus basis points of the amount. */
export interface CurrencyFee {
  readonly fixed: number;
  readonly bps: number;
}

export type FeeSchedule = Readonly<Record<string, CurrencyFee>>;

/**
 * The fee on a captured amount: the currency's own fee when the account sets one (fixed plus
 * percentage, never more than the amount itself), else the account's basis points alone.
 */
export function feeOf(amount: number, currency: string, account: { readonly feeBps: number; readonly fees: FeeSchedule }): number {
  const own = account.fees[currency];
  if (!own) return feeFor(amount, account.feeBps);
  return Math.min(amount, own.fixed + feeFor(amount, own.bps));
}

/** Pending money that has settled becomes available (a negative amount moves a debt). */
export function settlementEntries(amount: number): Entry[] {
  return [
    { book: 'merchant_balance', amount },
    { book: 'merchant_available', amount: -amount },
  ];
}

/** Sandbox funding credited straight to the available balance. */
export function topupEntries(amount: number): Entry[] {
  return [
    { book: 'sandbox_funding', amount },
    { book: 'merchant_available', amount: -amount },
  ];
}

/** A payout takes what it will pay out of the available balance. */
export function reserveEntries(amount: number): Entry[] {
  return [
    { book: 'merchant_available', amount },
    { book: 'merchant_reserved', amount: -amount },
  ];
}

/** A failed or cancelled payout gives its reservation back. */
export function releaseReservationEntries(amount: number): Entry[] {
  return [
    { book: 'merchant_reserved', amount },
    { book: 'merchant_available', amount: -amount },
  ];
}

/**
 * A completed payout: the reservation leaves the merchant's books, as money paid out to the
 * beneficiary and, for `fee` of it, as our fee revenue (in the platform account).
 */
export function payoutEntries(amount: number, fee = 0): Entry[] {
  return [
    { book: 'merchant_reserved', amount },
    { book: 'payouts_paid', amount: -(amount - fee) },
    { book: 'fee_revenue', amount: -fee },
  ];
}

/** A paid payout the beneficiary's bank sent back: what was sent returns to the available balance (the fee is kept). */
export function payoutReturnEntries(amount: number): Entry[] {
  return [
    { book: 'payouts_paid', amount },
    { book: 'merchant_available', amount: -amount },
  ];
}
