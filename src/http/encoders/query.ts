// The query answer (docs/api/query.md): one entry per transaction, with the risk engine's checks;
// query_result 0 and empty fields for a key that matches no transaction of this account.
import type { QueryKey, QueryResult } from '../../app/query/query.ts';
import { compactTime } from '../../app/batch/selection.ts';
import { formatAmount } from '../../domain/money.ts';
import { PAYMENT_STATUS_CODES, type PaymentStatus } from '../../domain/payment.ts';
import type { AccountRow, SubscriptionRow } from '../../db/schema.ts';
import type { ReportedPayment } from '../../db/repositories/payment-lookup.ts';
import { readAnswer } from './read.ts';
import { recurringFields } from '../../app/subscriptions/payment-fields.ts';

export const QUERY_LIST = 'orders_list';
/** Our own risk engine (src/domain/risk.ts) makes the fraud checks. */
export const ANTIFRAUD_PROVIDER = 'acquiro';

export function queryAnswer(account: AccountRow, result: QueryResult): Record<string, unknown> {
  const subscriptionOf = (payment: ReportedPayment) => (payment.subscriptionId ? (result.subscriptions.get(payment.subscriptionId) ?? null) : null);
  return readAnswer(account, result, { list: QUERY_LIST, entry: (payment) => queriedOrder(payment, subscriptionOf(payment)), unknown: unknownOrder });
}

/** A transaction as the query answers it: the documented record, with the risk engine's checks (and the subscription it began, as it stands). */
export function queriedOrder(payment: ReportedPayment, subscription: SubscriptionRow | null): Record<string, unknown> {
  return {
    transaction_id: payment.id,
    order_no: payment.orderNo,
    amount: formatAmount(payment.amount, payment.currency),
    currency: payment.currency,
    payment_status: PAYMENT_STATUS_CODES[payment.status as PaymentStatus],
    query_result: '1',
    reference_no: payment.connectorReference ?? '',
    transaction_date: compactTime(payment.createdAt),
    service: payment.request.service ?? '',
    captured_amount: formatAmount(payment.capturedAmount, payment.currency),
    refunded_amount: formatAmount(payment.refundedAmount, payment.currency),
    is3ds: payment.threedsResult ? '1' : '0',
    // No provider is named for checks never run (a hosted page no card was tried on): fraud_check_result is empty too.
    antifraud_provider: payment.riskAction ? ANTIFRAUD_PROVIDER : '',
    fraud_check_result: (payment.riskReasons ?? []).map((reason) => ({ check_items: reason.name, status: reason.status })),
    ...recurringFields(payment, subscription),
  };
}

function unknownOrder(field: QueryKey, key: string): Record<string, unknown> {
  return {
    transaction_id: field === 'transaction_id' ? key : '',
    order_no: field === 'order_no' ? key : '',
    amount: '',
    currency: '',
    payment_status: '',
    query_result: '0',
    reference_no: '',
    transaction_date: '',
    service: '',
    captured_amount: '',
    refunded_amount: '',
    is3ds: '',
    antifraud_provider: '',
    fraud_check_result: [],
    contract_name: '',
    recurring_id: '',
    recurring_deduction_period: '',
    recurring_deduction_time: '',
  };
}
