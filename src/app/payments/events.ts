// The body of a payment notification (docs/notifications.md), less notify_id, notify_time and
// encryption_data, which delivery adds. Built from the row as committed.
import { codeText } from '../../domain/errors.ts';
import { maskFrom } from '../../domain/card.ts';
import { formatAmount } from '../../domain/money.ts';
import { orderStatus, PAYMENT_STATUS_CODES, type PaymentStatus } from '../../domain/payment.ts';
import type { PaymentRow } from '../../db/schema.ts';
import type { SubscriptionProgress } from '../../domain/subscriptions/subscription.ts';
import { recurringFields } from '../subscriptions/payment-fields.ts';

/** Every `notify_type` a merchant can receive. docs/notifications.md shows each one. */
export const EVENT_TYPES = [
  'payment.authorised',
  'payment.captured',
  'payment.review',
  'payment.failed',
  'payment.cancelled',
  'payment.capture_failed',
  'payment.cancel_failed',
  'refund.succeeded',
  'refund.failed',
  'chargeback.opened',
  'chargeback.reversed',
  'subscription.charged',
  'subscription.charge_failed',
  'subscription.cancelled',
  'payout.completed',
  'payout.failed',
  'payout.cancelled',
  'payout.returned',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
export type PaymentEventType = Extract<EventType, `payment.${string}`>;

export function resultInfo(payment: PaymentRow): string {
  return payment.resultCode ? `${payment.resultCode}:${payment.resultMessage ?? ''}` : codeText('pending');
}

export function maskedCard(payment: PaymentRow): string {
  return payment.cardBin && payment.cardLast4 && payment.cardLength ? maskFrom(payment.cardBin, payment.cardLast4, payment.cardLength) : '';
}

/**
 * The payment's fields of any event about it (refund events add the refund's: src/app/refund/refund-answer.ts; their answer fields: src/http/encoders/refund.ts;
 * chargeback events add the dispute's: src/app/disputes/record.ts).
 * `subscription`: the one the payment began, as the event's transaction sees it (null: none).
 */
export function paymentEventPayload(type: EventType, payment: PaymentRow, subscription: SubscriptionProgress | null): Record<string, unknown> {
  const status = payment.status as PaymentStatus;
  return {
    notify_type: type,
    merchant_id: payment.merchantId,
    account_id: payment.accountId,
    transaction_id: payment.id,
    order_no: payment.orderNo,
    amount: formatAmount(payment.amount, payment.currency),
    currency: payment.currency,
    captured_amount: formatAmount(payment.capturedAmount, payment.currency),
    refunded_amount: formatAmount(payment.refundedAmount, payment.currency),
    order_status: orderStatus(status),
    payment_status: PAYMENT_STATUS_CODES[status],
    result_info: resultInfo(payment),
    payment_method: payment.paymentMethod,
    card: maskedCard(payment),
    token_id: payment.tokenId ?? '',
    connector: payment.connector,
    risk_action: payment.riskAction ?? '',
    risk_score: payment.riskScore === null ? '' : String(payment.riskScore),
    threeds_result: payment.threedsResult ?? '',
    ...recurringFields(payment, subscription),
  };
}
