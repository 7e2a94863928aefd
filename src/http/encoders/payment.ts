// The direct payment answer (`respon`): every field docs/api/authorise.md lists, empty when it does not apply.
import { maskedCard, resultInfo } from '../../app/payments/events.ts';
import { recurringFields } from '../../app/subscriptions/payment-fields.ts';
import { formatAmount } from '../../domain/money.ts';
import { orderStatus, PAYMENT_STATUS_CODES, type PaymentStatus } from '../../domain/payment.ts';
import type { PaymentRow, SubscriptionRow } from '../../db/schema.ts';
import type { AppError } from '../../domain/errors.ts';
import { textField } from '../operation.ts';

/**
 * Encoded from the payment's columns and its typed OrderRecord, never from a stored wire body;
 * `subscription`: the one the payment began, as it stands (subscriptionOfPayment), else null.
 */
export function paymentAnswer(payment: PaymentRow, subscription: SubscriptionRow | null): Record<string, unknown> {
  const record = payment.request;
  return {
    merchant_id: payment.merchantId,
    account_id: payment.accountId,
    order_no: payment.orderNo,
    amount: formatAmount(payment.amount, payment.currency),
    currency: payment.currency,
    transaction_id: payment.id,
    card: maskedCard(payment),
    order_status: orderStatus(payment.status as PaymentStatus),
    // order_status 1 covers authorised and captured alike; this tells them apart with the
    // query's four-digit code (2000 authorised, not captured; 3000 captured; ...).
    payment_status: PAYMENT_STATUS_CODES[payment.status as PaymentStatus],
    result_info: resultInfo(payment),
    ...recurringFields(payment, subscription),
    note: record.note ?? '',
    token_id: payment.tokenId ?? '',
    connector: payment.connector,
    threeds_result: payment.threedsResult ?? '',
    risk_action: payment.riskAction ?? '',
    risk_score: payment.riskScore === null ? '' : String(payment.riskScore),
    risk_reasons: payment.riskReasons ?? [],
    redirect_url: payment.actionUrl ?? '',
  };
}

/** A refused payment request: the echo of what could be read, order_status 0 and the code. */
export function paymentRefusal(body: Record<string, unknown>, error: AppError): Record<string, unknown> {
  return {
    merchant_id: textField(body, 'merchant_id'),
    account_id: textField(body, 'account_id'),
    order_no: textField(body, 'order_no'),
    amount: textField(body, 'amount'),
    currency: textField(body, 'currency'),
    transaction_id: '',
    order_status: '0',
    result_info: error.info,
  };
}
