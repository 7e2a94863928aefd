// What staff read of their merchant's transactions: a search (filters, sort, pages with a cap),
// its CSV export, and one transaction with everything that happened to it. Every read takes the
// member's merchant; another merchant's transaction is "not found", exactly like a missing one.
// Its chargebacks are read by the merchant too, and shown, never changed.
import {
  merchantAccount,
  merchantPayment,
  merchantPaymentDisputes,
  merchantPaymentMethods,
  paymentHistory,
  paymentsWithOpenDisputes,
  searchPayments,
  type TransactionFilter,
  type TransactionSort,
} from '../../db/repositories/portal-transactions.ts';
import type { AccountRow, DisputeRow, PaymentRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import { PortalRefusal } from './refusal.ts';

export type { TransactionFilter, TransactionSort } from '../../db/repositories/portal-transactions.ts';

export const PAGE_SIZE = 50;
/** Offset paging stops here (10,000 rows): past it, narrow the filters. */
export const MAX_PAGES = 200;
/** The most rows one CSV export carries. */
export const EXPORT_LIMIT = 10_000;

export interface TransactionSearch {
  readonly filter: TransactionFilter;
  readonly sort: TransactionSort;
  readonly descending: boolean;
  /** 1-based. */
  readonly page: number;
}

export interface TransactionPage {
  readonly rows: readonly PaymentRow[];
  readonly page: number;
  readonly hasNext: boolean;
  readonly methods: readonly string[];
  /** The ids of the page's payments with an open chargeback (docs/chargebacks.md). */
  readonly openChargebacks: ReadonlySet<string>;
}

export async function searchTransactions(deps: Pick<Deps, 'database'>, search: TransactionSearch): Promise<TransactionPage> {
  if (search.page < 1 || search.page > MAX_PAGES) throw new PortalRefusal(`page must be between 1 and ${MAX_PAGES}: narrow the filters to see older transactions`, { field: 'page' });
  const [found, methods] = await Promise.all([
    searchPayments(deps.database.db, search.filter, { sort: search.sort, descending: search.descending, offset: (search.page - 1) * PAGE_SIZE, limit: PAGE_SIZE + 1 }),
    merchantPaymentMethods(deps.database.db, search.filter.merchantId),
  ]);
  const rows = found.slice(0, PAGE_SIZE);
  const openChargebacks = await paymentsWithOpenDisputes(
    deps.database.db,
    search.filter.merchantId,
    rows.map((row) => row.id),
  );
  return { rows, page: search.page, hasNext: found.length > PAGE_SIZE && search.page < MAX_PAGES, methods, openChargebacks };
}

/** The rows of a CSV export: the search's filters and order, first EXPORT_LIMIT rows. */
export function exportTransactions(deps: Pick<Deps, 'database'>, search: Omit<TransactionSearch, 'page'>): Promise<PaymentRow[]> {
  return searchPayments(deps.database.db, search.filter, { sort: search.sort, descending: search.descending, offset: 0, limit: EXPORT_LIMIT });
}

export interface TransactionDetail {
  readonly payment: PaymentRow;
  readonly account: AccountRow;
  readonly history: Awaited<ReturnType<typeof paymentHistory>>;
  /** Its chargebacks, oldest first (none: no panel). */
  readonly chargebacks: readonly DisputeRow[];
}

/** The merchant's transaction and its account, or a 404-like refusal. */
export async function merchantTransaction(deps: Pick<Deps, 'database'>, merchantId: string, transactionId: string): Promise<{ payment: PaymentRow; account: AccountRow }> {
  const payment = await merchantPayment(deps.database.db, merchantId, transactionId);
  const account = payment && (await merchantAccount(deps.database.db, merchantId, payment.accountId));
  if (!payment || !account) throw new PortalRefusal('There is no such transaction.', { status: 404 });
  return { payment, account };
}

export async function transactionDetail(deps: Pick<Deps, 'database'>, merchantId: string, transactionId: string): Promise<TransactionDetail> {
  const { payment, account } = await merchantTransaction(deps, merchantId, transactionId);
  const [history, chargebacks] = await Promise.all([paymentHistory(deps.database.db, payment.id), merchantPaymentDisputes(deps.database.db, merchantId, payment.id)]);
  return { payment, account, history, chargebacks };
}
