// A payout's fields as its answer and its notifications carry them (docs/api/payout.md): the
// request as echoed (bank_code left out, local_clearing_system added), both amounts of the
// transfer, the rate used, the integer amounts in minor units, the status and the times.
import { formatAmount } from '../../domain/money.ts';
import type { PayoutRow } from '../../db/schema.ts';
import type { EventType } from '../payments/events.ts';

/** ISO 8601 with a numeric offset, as §9 writes times: 2026-11-22T10:15:00+00:00. */
export function isoTime(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/**
 * The beneficiary as the rail is told of it: the request's, its bank details with the clearing
 * system the payout travels on (and bank_code, by which a local rail routes it).
 */
export function railBeneficiary(payout: PayoutRow): Record<string, unknown> {
  const request = payout.request as Record<string, unknown> & { beneficiary?: Record<string, unknown> };
  const beneficiary = request.beneficiary ?? {};
  const bankDetails = (beneficiary.bank_details ?? {}) as Record<string, unknown>;
  return { ...beneficiary, bank_details: { ...bankDetails, local_clearing_system: payout.clearingSystem } };
}

export function payoutFields(payout: PayoutRow): Record<string, unknown> {
  const request = payout.request as Record<string, unknown>;
  const beneficiary = railBeneficiary(payout);
  // The answer echoes the bank details less bank_code (the interface's payout response has none).
  const { bank_code: _code, ...bankDetails } = beneficiary.bank_details as Record<string, unknown>;
  return {
    merchant_id: payout.merchantId,
    account_id: payout.accountId,
    ...request,
    beneficiary: { ...beneficiary, bank_details: bankDetails },
    payment_amount: request.payment_amount ?? formatAmount(payout.transferPayment, payout.paymentCurrency),
    source_amount: request.source_amount ?? formatAmount(payout.transferSource, payout.sourceCurrency),
    fx_rate: payout.fxRate,
    amount_beneficiary_receives: payout.amountBeneficiaryReceives,
    amount_payer_pays: payout.amountPayerPays,
    fee_amount: payout.feeAmount,
    fee_currency: payout.feeCurrency,
    created_at: isoTime(payout.createdAt),
    last_updated_at: isoTime(payout.updatedAt),
    failure_reason: payout.failureReason ?? '',
    failure_type: payout.failureType ?? '',
    payer_id: payout.accountId,
    transaction_id: payout.id,
    short_reference_id: payout.shortReferenceId,
    status: payout.status,
  };
}

export type PayoutEventType = Extract<EventType, `payout.${string}`>;

/** The body of a payout notification, less notify_id, notify_time and encryption_data, which delivery adds. */
export function payoutEventPayload(type: PayoutEventType, payout: PayoutRow): Record<string, unknown> {
  return { notify_type: type, ...payoutFields(payout) };
}
