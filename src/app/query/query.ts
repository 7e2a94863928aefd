// /v1/retrievalTrans: the state of an account's transactions, for merchants to synchronise their
// own records (seed "Batch operation rules" 3). Registered IPs only. Selection per decisions §4;
// one entry per requested key, in the order asked (query_result 0 for a key that matches no
// transaction of this account), or one page of a time window, oldest first.
import { formatAmount } from '../../domain/money.ts';
import { PAYMENT_STATUS_CODES, type PaymentStatus } from '../../domain/payment.ts';
import { paymentsByIds, paymentsByOrderNos, paymentsInWindow } from '../../db/repositories/payment-lookup.ts';
import type { AccountRow, PaymentRow } from '../../db/schema.ts';
import { compactTime, PAGE_SIZE, selectionOf } from '../batch/selection.ts';
import type { Deps } from '../context.ts';
import { assertRegisteredIp } from './allow-list.ts';

export const QUERY_LIST = 'orders_list';
/** Our own risk engine (src/domain/risk.ts) makes the fraud checks. */
export const ANTIFRAUD_PROVIDER = 'acquiro';

export async function queryTransactions(
  deps: Pick<Deps, 'database'>,
  account: AccountRow,
  body: Record<string, unknown>,
  callerIp: string,
): Promise<Record<string, unknown>> {
  await assertRegisteredIp(deps, account.id, callerIp);
  const selection = selectionOf(body, ['order_no', 'transaction_id'] as const);
  const envelope = { merchant_id: account.merchantId, account_id: account.id, return_status: '1', return_message: 'OK' };
  const db = deps.database.db;
  if (selection.kind === 'window') {
    const { rows, total } = await paymentsInWindow(db, account.id, {
      from: selection.from,
      to: selection.to,
      offset: (selection.page - 1) * PAGE_SIZE,
      limit: PAGE_SIZE,
    });
    return { ...envelope, page: String(selection.page), total: String(total), [QUERY_LIST]: rows.map(queriedOrder) };
  }
  const byKey = selection.field === 'order_no';
  const found = byKey ? await paymentsByOrderNos(db, account.id, selection.keys) : await paymentsByIds(db, account.id, selection.keys);
  const index = new Map(found.map((payment) => [byKey ? payment.orderNo : payment.id, payment]));
  return {
    ...envelope,
    [QUERY_LIST]: selection.keys.map((key) => {
      const payment = index.get(key);
      return payment ? queriedOrder(payment) : unknownOrder(selection.field, key);
    }),
  };
}

/** A transaction as the query answers it: the seed's record, with the risk engine's checks. */
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
    service: typeof payment.request.service === 'string' ? payment.request.service : '',
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
