// /v1/refundSearch ("Search a refund transaction", an operation the interface names without giving it a shape):
// an account's refunds by refund_reference_id, by the transaction_id or order_no they refund,
// or by a time window of their creation, paged like the query. Registered IPs only, as for the
// query. docs/api/refund-search.md.
import { formatAmount } from '../../domain/money.ts';
import { paymentsByIds, paymentsByOrderNos } from '../../db/repositories/payment-lookup.ts';
import { refundsByIds, refundsInWindow, refundsOfPayments, type RefundWithPayment } from '../../db/repositories/refunds.ts';
import type { AccountRow } from '../../db/schema.ts';
import { readAnswer } from '../batch/read.ts';
import { compactTime, type Selection } from '../batch/selection.ts';
import type { Deps } from '../context.ts';
import { refundFields } from '../refund/refund-answer.ts';

export const REFUND_SEARCH_LIST = 'refund_list';
/** Refunds listed per transaction asked for; more are read through the time window. */
export const REFUNDS_PER_TRANSACTION = 100;

type Key = 'refund_reference_id' | 'transaction_id' | 'order_no';

export async function searchRefunds(
  deps: Pick<Deps, 'database'>,
  account: AccountRow,
  /** The adapter's parse of what the request selects by (among the keys given), run once the caller is admitted. */
  select: (keys: readonly Key[]) => Selection<Key>,
  callerIp: string,
): Promise<Record<string, unknown>> {
  return readAnswer<Key, RefundWithPayment>(deps, account, select, callerIp, {
    list: REFUND_SEARCH_LIST,
    keys: ['refund_reference_id', 'transaction_id', 'order_no'],
    page: refundsInWindow,
    entry: refundEntry,
    async byKeys(db, accountId, field, keys) {
      let byKey: Map<string, RefundWithPayment[]>;
      if (field === 'refund_reference_id') {
        byKey = group(await refundsByIds(db, accountId, keys), (row) => row.refund.id);
      } else {
        const payments = field === 'order_no' ? await paymentsByOrderNos(db, accountId, keys) : await paymentsByIds(db, accountId, keys);
        const rows = await refundsOfPayments(db, accountId, payments.map((payment) => payment.id), REFUNDS_PER_TRANSACTION);
        byKey = group(rows, (row) => (field === 'order_no' ? row.payment.orderNo : row.payment.id));
      }
      return keys.flatMap((key) => byKey.get(key)?.map(refundEntry) ?? [unknownEntry(field, key)]);
    },
  });
}

function group(rows: readonly RefundWithPayment[], keyOf: (row: RefundWithPayment) => string): Map<string, RefundWithPayment[]> {
  const groups = new Map<string, RefundWithPayment[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const list = groups.get(key);
    if (list) list.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}

export function refundEntry({ refund, payment }: RefundWithPayment): Record<string, string> {
  return {
    transaction_id: payment.id,
    order_no: payment.orderNo,
    currency: payment.currency,
    amount: formatAmount(payment.amount, payment.currency),
    refund_amount: formatAmount(refund.amount, refund.currency),
    refund_reason: refund.reason ?? '',
    ...refundFields(refund),
    refund_date: compactTime(refund.createdAt),
    settle_date: refund.settledAt ? compactTime(refund.settledAt) : '',
    query_result: '1',
  };
}

function unknownEntry(field: Key, key: string): Record<string, string> {
  return {
    transaction_id: field === 'transaction_id' ? key : '',
    order_no: field === 'order_no' ? key : '',
    currency: '',
    amount: '',
    refund_amount: '',
    refund_reason: '',
    refund_status: '',
    refund_message: '',
    refund_reference: '',
    refund_reference_id: field === 'refund_reference_id' ? key : '',
    error_message: '',
    refund_date: '',
    settle_date: '',
    query_result: '0',
  };
}
