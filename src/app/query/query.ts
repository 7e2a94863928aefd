// /v1/retrievalTrans: the state of an account's transactions, for merchants to synchronise their
// own records. Registered IPs only. Selection as docs/api/query.md says;
// one match per requested key, in the order asked (none for a key that matches no transaction
// of this account), or one page of a time window, oldest first. src/http/encoders/query.ts
// encodes the answer.
import { paymentsByKeys, paymentsInWindow, REPORTED, type ReportedPayment } from '../../db/repositories/payment-lookup.ts';
import type { AccountRow, SubscriptionRow } from '../../db/schema.ts';
import { readRows, type ReadResult } from '../batch/read.ts';
import type { Selection } from '../batch/selection.ts';
import type { Deps } from '../context.ts';
import { subscriptionsOfPayments } from '../subscriptions/payment-fields.ts';

export const QUERY_KEYS = ['order_no', 'transaction_id'] as const;
export type QueryKey = (typeof QUERY_KEYS)[number];
/** The payments read, and the subscriptions they began, as they stand (their records report their next charge). */
export type QueryResult = ReadResult<QueryKey, ReportedPayment> & { readonly subscriptions: ReadonlyMap<string, SubscriptionRow> };

export async function queryTransactions(
  deps: Pick<Deps, 'database'>,
  account: AccountRow,
  /** The adapter's parse of what the request selects by (among the keys given), run once the caller is admitted. */
  select: (keys: readonly QueryKey[]) => Selection<QueryKey>,
  callerIp: string,
): Promise<QueryResult> {
  const result = await readRows<QueryKey, ReportedPayment>(deps, account, select, callerIp, {
    keys: QUERY_KEYS,
    page: (db, accountId, page) => paymentsInWindow(db, accountId, page, REPORTED),
    async byKeys(database, accountId, field, keys) {
      const byOrderNo = field === 'order_no';
      const found = await paymentsByKeys(database, accountId, byOrderNo ? 'order_no' : 'id', keys, REPORTED);
      const index = new Map(found.map((payment) => [byOrderNo ? payment.orderNo : payment.id, payment]));
      return keys.map((key) => {
        const payment = index.get(key);
        return { key, rows: payment ? [payment] : [] };
      });
    },
  });
  const read = result.kind === 'keys' ? result.matches.flatMap((match) => match.rows) : result.rows;
  return { ...result, subscriptions: await subscriptionsOfPayments(deps.database.db, read) };
}
