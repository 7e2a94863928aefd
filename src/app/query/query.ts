// /v1/retrievalTrans: the state of an account's transactions, for merchants to synchronise their
// own records. Registered IPs only. Selection as docs/api/query.md says;
// one entry per requested key, in the order asked (query_result 0 for a key that matches no
// transaction of this account), or one page of a time window, oldest first.
import { formatAmount } from '../../domain/money.ts';
import { PAYMENT_STATUS_CODES, type PaymentStatus } from '../../domain/payment.ts';
import { paymentsByIds, paymentsByOrderNos, paymentsInWindow } from '../../db/repositories/payment-lookup.ts';
import type { AccountRow, PaymentRow } from '../../db/schema.ts';
import { readAnswer } from '../batch/read.ts';
import { compactTime, type Selection } from '../batch/selection.ts';
import type { Deps } from '../context.ts';

export const QUERY_LIST = 'orders_list';
export const QUERY_KEYS = ['order_no', 'transaction_id'] as const;
type Key = (typeof QUERY_KEYS)[number];
/** Our own risk engine (src/domain/risk.ts) makes the fraud checks. */
export const ANTIFRAUD_PROVIDER = 'acquiro';

export async function queryTransactions(
  deps: Pick<Deps, 'database'>,
  account: AccountRow,
  /** The adapter's parse of what the request selects by (among the keys given), run once the caller is admitted. */
  select: (keys: readonly Key[]) => Selection<Key>,
  callerIp: string,
): Promise<Record<string, unknown>> {
  return readAnswer(deps, account, select, callerIp, {
    list: QUERY_LIST,
    keys: QUERY_KEYS,
    page: paymentsInWindow,
    entry: queriedOrder,
    async byKeys(db, accountId, field, keys) {
      const byOrderNo = field === 'order_no';
      const found = byOrderNo ? await paymentsByOrderNos(db, accountId, keys) : await paymentsByIds(db, accountId, keys);
      const index = new Map(found.map((payment) => [byOrderNo ? payment.orderNo : payment.id, payment]));
      return keys.map((key) => {
        const payment = index.get(key);
        return payment ? queriedOrder(payment) : unknownOrder(field, key);
      });
    },
  });
}

/** A transaction as the query answers it: the documented record, with the risk engine's checks. */
export function queriedOrder(payment: PaymentRow): Record<string, unknown> {
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
    antifraud_provider: payment.riskAction ? ANTIFRAUD_PROVIDER : '',
    fraud_check_result: (payment.riskReasons ?? []).map((reason) => ({ check_items: reason.name, status: reason.status })),
  };
}

function unknownOrder(field: 'order_no' | 'transaction_id', key: string): Record<string, unknown> {
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
  };
}
