// Double-entry bookkeeping of every money movement. A journal is a set of entries whose amounts
// (debit positive, credit negative) sum to zero; this module builds them, pure, and the ledger
// repository writes them in the same transaction as the movement.
//
// Books, per merchant account and currency:
//   authorised_funds     memo asset: funds held on the shopper's card, not yet captured
//   authorisation_hold   memo liability, the other side of a hold
//   processor_receivable asset: captured money the processor owes us
//   merchant_balance     liability: what we owe the merchant (their balance is its credit side)
//   fee_revenue          income: our fees
//   payouts_in_transit   asset: money sent to the merchant, not yet confirmed

export type Book =
  | 'authorised_funds'
  | 'authorisation_hold'
  | 'processor_receivable'
  | 'merchant_balance'
  | 'fee_revenue'
  | 'payouts_in_transit';

export interface Entry {
  readonly book: Book;
  readonly amount: number;
}

export type JournalKind = 'authorisation' | 'capture' | 'release' | 'refund' | 'fee' | 'payout';

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

/** The fee on a captured amount, in basis points, rounded half up to the minor unit. */
export function feeFor(amount: number, feeBps: number): number {
  return Math.floor((amount * feeBps + 5_000) / 10_000);
}
