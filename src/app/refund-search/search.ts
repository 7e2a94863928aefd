// /v1/refundSearch ("Search a refund transaction", an operation the interface names without giving it a shape):
// an account's refunds by refund_reference_id, by the transaction_id or order_no they refund,
// or by a time window of their creation, paged like the query. Registered IPs only, as for the
// query. docs/api/refund-search.md. src/http/encoders/refund-search.ts encodes the answer.
import { IDS, paymentsByKeys } from '../../db/repositories/payment-lookup.ts';
import { refundsByIds, refundsInWindow, refundsOfPayments, type RefundWithPayment } from '../../db/repositories/refunds.ts';
import type { AccountRow } from '../../db/schema.ts';
import { readRows, type ReadResult } from '../batch/read.ts';
import type { Selection } from '../batch/selection.ts';
import type { Deps } from '../context.ts';

/** Refunds listed per transaction asked for; more are read through the time window. */
export const REFUNDS_PER_TRANSACTION = 100;

export type RefundSearchKey = 'refund_reference_id' | 'transaction_id' | 'order_no';
export type RefundSearchResult = ReadResult<RefundSearchKey, RefundWithPayment>;

export async function searchRefunds(
  deps: Pick<Deps, 'database'>,
  account: AccountRow,
  /** The adapter's parse of what the request selects by (among the keys given), run once the caller is admitted. */
  select: (keys: readonly RefundSearchKey[]) => Selection<RefundSearchKey>,
  callerIp: string,
): Promise<RefundSearchResult> {
  return readRows<RefundSearchKey, RefundWithPayment>(deps, account, select, callerIp, {
    keys: ['refund_reference_id', 'transaction_id', 'order_no'],
    page: refundsInWindow,
    async byKeys(database, accountId, field, keys) {
      let byKey: Map<string, RefundWithPayment[]>;
      if (field === 'refund_reference_id') {
        byKey = group(await refundsByIds(database.db, accountId, keys), (row) => row.refund.id);
      } else {
        const payments = await paymentsByKeys(database, accountId, field === 'order_no' ? 'order_no' : 'id', keys, IDS);
        const rows = await refundsOfPayments(database.db, accountId, payments.map((payment) => payment.id), REFUNDS_PER_TRANSACTION);
        byKey = group(rows, (row) => (field === 'order_no' ? row.payment.orderNo : row.payment.id));
      }
      return keys.map((key) => ({ key, rows: byKey.get(key) ?? [] }));
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
