// Each account's payout fees per source currency: a fixed part, a percentage of the transfer's
// source amount, and the SWIFT charge taken when the payer bears it. A currency the account sets
// nothing for pays the sandbox default: 1.00 (one unit of the currency) + 0.50 %, SWIFT 15.00.
import { exponentOf } from '../money.ts';
import type { FeeSchedule } from './amounts.ts';

/** As stored (accounts.payout_fees): minor units and basis points. */
export interface PayoutFee {
  readonly fixed: number;
  readonly bps: number;
  readonly swift: number;
}

export type PayoutFeeSchedule = Readonly<Record<string, PayoutFee>>;

/** The sandbox default in `currency`: 1 unit + 0.50 %, SWIFT charge 15 units. */
export function defaultPayoutFee(currency: string): PayoutFee {
  const unit = 10 ** exponentOf(currency);
  return { fixed: unit, bps: 50, swift: 15 * unit };
}

/** The fee schedule a payout in `currency` pays on this account. */
export function payoutFeeFor(schedule: PayoutFeeSchedule, currency: string): FeeSchedule {
  const fee = schedule[currency] ?? defaultPayoutFee(currency);
  return { fixedMinor: fee.fixed, basisPoints: fee.bps, swiftChargeMinor: fee.swift };
}
