// A payout's life: SCHEDULED (a future payment_date) or PROCESSING (today's), then COMPLETED or
// FAILED; an operator CANCELS a scheduled one; a completed one may come back, RETURNED, when the
// beneficiary's bank sends it back. FAILED is also a first state: a payout the available balance
// cannot cover is recorded FAILED with INSUFFICIENT_FUNDS and moves nothing. docs/payouts.md.
import { defineStateMachine } from '../state-machine.ts';

export const PAYOUT_STATUSES = ['SCHEDULED', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED', 'RETURNED'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

export const PAYOUT_MACHINE = defineStateMachine('payout', {
  initial: ['SCHEDULED', 'PROCESSING', 'FAILED'],
  next: {
    SCHEDULED: ['PROCESSING', 'CANCELLED'],
    PROCESSING: ['COMPLETED', 'FAILED'],
    COMPLETED: ['RETURNED'],
    FAILED: [],
    CANCELLED: [],
    RETURNED: [],
  } satisfies Record<PayoutStatus, readonly PayoutStatus[]>,
});

/** Why a payout failed (or came back): `failure_type` in answers, with the reason it is given. */
export const FAILURE_TYPES = {
  INSUFFICIENT_FUNDS: 'the available balance does not cover amount_payer_pays',
  ACCOUNT_CLOSED: "the beneficiary's account is closed",
  INVALID_ACCOUNT: "the beneficiary's bank knows no such account",
  BENEFICIARY_NAME_MISMATCH: "the account name does not match the beneficiary bank's records",
  COMPLIANCE_REJECTED: 'refused by compliance screening',
  REJECTED_BY_BANK: "refused by the beneficiary's bank",
  RETURNED_BY_BANK: "paid, then sent back by the beneficiary's bank",
} as const satisfies Record<string, string>;

export type FailureType = keyof typeof FAILURE_TYPES;

export function isFailureType(value: string): value is FailureType {
  return Object.hasOwn(FAILURE_TYPES, value);
}

/**
 * Not yet with the rail: SCHEDULED, or PROCESSING without the rail's reference (never sent, or
 * its answer lost). What a disabled merchant or account holds (docs/payouts.md, "Held"); the
 * rail task's lease (QUEUES.duePayouts) states the same in SQL.
 */
export function awaitsRail(payout: { readonly status: PayoutStatus; readonly railReference: string | null }): boolean {
  return payout.status === 'SCHEDULED' || (payout.status === 'PROCESSING' && payout.railReference === null);
}
