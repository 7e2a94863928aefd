// The APM payment answer (`respon`): the seed's fields (merchant_id, account_id, order_no, amount,
// currency, issuer_url), then what a merchant needs to follow the payment up: transaction_id,
// payment_method, order_status and result_info. encryption_data is added when it is sent.
import { resultInfo } from '../../app/payments/events.ts';
import { formatAmount } from '../../domain/money.ts';
import { orderStatus, type PaymentStatus } from '../../domain/payment.ts';
import type { PaymentRow } from '../../db/schema.ts';

export function apmAnswer(payment: PaymentRow): Record<string, unknown> {
  return {
    merchant_id: payment.merchantId,
    account_id: payment.accountId,
    order_no: payment.orderNo,
    amount: formatAmount(payment.amount, payment.currency),
    currency: payment.currency,
    issuer_url: payment.status === 'requires_redirect' ? (payment.actionUrl ?? '') : '',
    transaction_id: payment.id,
    payment_method: payment.paymentMethod,
    order_status: orderStatus(payment.status as PaymentStatus),
    result_info: resultInfo(payment),
  };
}
