// The refund search answer (docs/api/refund-search.md): one entry per refund with the order it
// refunds; query_result 0 and empty fields for a key that matches no refund of this account.
import { compactTime } from '../../app/batch/selection.ts';
import type { RefundSearchKey, RefundSearchResult } from '../../app/refund-search/search.ts';
import { formatAmount } from '../../domain/money.ts';
import type { RefundWithPayment } from '../../db/repositories/refunds.ts';
import type { AccountRow } from '../../db/schema.ts';
import { readAnswer } from './read.ts';
import { refundFields } from './refund.ts';

export const REFUND_SEARCH_LIST = 'refund_list';

export function refundSearchAnswer(account: AccountRow, result: RefundSearchResult): Record<string, unknown> {
  return readAnswer(account, result, { list: REFUND_SEARCH_LIST, entry: refundEntry, unknown: unknownEntry });
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

function unknownEntry(field: RefundSearchKey, key: string): Record<string, string> {
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
