// The APM payment answer (`respon`): the documented fields (merchant_id, account_id, order_no, amount,
// currency, issuer_url), then what a merchant needs to follow the payment up: transaction_id,
// payment_method, order_status and result_info. encryption_data is added when it is sent.
import type { PaymentRow } from '../../db/schema.ts';
import { paymentAnswer } from './payment.ts';

export function apmAnswer(payment: PaymentRow): Record<string, unknown> {
  const { merchant_id, account_id, order_no, amount, currency, transaction_id, order_status, result_info } = paymentAnswer(payment, null);
  return {
    merchant_id,
    account_id,
    order_no,
    amount,
    currency,
    issuer_url: payment.status === 'requires_redirect' ? (payment.actionUrl ?? '') : '',
    transaction_id,
    payment_method: payment.paymentMethod,
    order_status,
    result_info,
  };
}
