// What the payout use case is given: a typed command its adapter built (HTTP parses /v1/payout's
// body into one in src/http/requests/payout.ts). Amounts are Money; the request as the answer
// echoes it is carried as `record`, and `identity` is what makes a repeat the same request.
import type { FeePaidBy } from '../../domain/payouts/amounts.ts';
import type { CheckedBankDetails } from '../../domain/payouts/bank-details.ts';
import type { PayoutMethod } from '../../domain/payouts/clearing.ts';
import type { Money } from '../../domain/money.ts';

/** What makes a repeat of a request_id the same request. */
export interface RequestIdentities {
  /** The canonical text of every request field: a repeat with other fields is refused. */
  readonly identity: string;
  /**
   * The identity as payouts recorded before 24 November 2026 were keyed, with the request_id as
   * written (when that is not lower case): a repeat of one of those is still the same request.
   */
  readonly earlierIdentity?: string;
}

export interface PayoutCommand extends RequestIdentities {
  /** The merchant's UUID, unique per account: the idempotency key. */
  readonly requestId: string;
  /** The request's fields, defaults filled in: kept, sent to the rail, and echoed less bank_code (view.ts). */
  readonly record: Readonly<Record<string, unknown>>;
  readonly method: PayoutMethod;
  readonly paymentCurrency: string;
  readonly sourceCurrency: string;
  /** Exactly one: the transfer in the beneficiary's currency, or in the payer's before any fee. */
  readonly amount: { readonly payment: Money } | { readonly source: Money };
  readonly feePaidBy: FeePaidBy;
  /** swift_charge_option PAYER: the account's SWIFT charge is added to the fee. */
  readonly payerPaysSwiftCharge: boolean;
  /** UTC day, YYYY-MM-DD; the use case refuses a new payout dated before today (a repeat may be). */
  readonly paymentDate: string;
  /**
   * When the request was read: the business clock's one reading for it. The default payment_date,
   * the dates of birth, "not before today", created_at and whether the payout waits for its date
   * all come from it, so a request that straddles midnight (or an `acquiro clock advance`) is
   * judged on one day, the day it was read.
   */
  readonly receivedAt: Date;
  /** The beneficiary's bank details as checked (its rail among them). */
  readonly bank: CheckedBankDetails;
  readonly bankCountry: string;
  readonly notifyUrl?: string;
}
