// The transactions search's query string, both ways: parsed into the use case's typed search
// (the member's merchant always added here), and written back into links (sort, pages, export).
import type { FastifyRequest } from 'fastify';
import type { TransactionSearch, TransactionSort } from '../../../app/portal/transactions.ts';
import { PortalRefusal } from '../../../app/portal/refusal.ts';
import { PAYMENT_STATUSES } from '../../../domain/payment.ts';
import { amountField, choiceField, currencyField, dayField, endOfDay, positiveIntField, queryOf, textField } from '../forms.ts';

/** The query-string names the search reads, in the order links write them. */
export const SEARCH_FIELDS = ['transaction_id', 'order_no', 'status', 'from', 'to', 'currency', 'min_amount', 'max_amount', 'last4', 'email', 'method', 'sort', 'dir'] as const;

const PRINTABLE = /^[\x21-\x7e]+$/;
const SORTS: readonly TransactionSort[] = ['created', 'amount'];

export interface ParsedSearch {
  readonly search: TransactionSearch;
  /** What the member typed, to fill the form and the links again. */
  readonly values: Readonly<Record<string, string>>;
}

export function parseSearch(request: FastifyRequest, merchantId: string): ParsedSearch {
  const values = queryOf(request);
  const currency = currencyField(values);
  const amounts = ['min_amount', 'max_amount'].filter((name) => values[name] !== undefined);
  if (amounts.length > 0 && !currency) throw new PortalRefusal(`${amounts[0]} needs a currency: choose one to filter by amount`, { field: amounts[0]! });
  const from = dayField(values, 'from');
  const to = dayField(values, 'to');
  if (from && to && to < from) throw new PortalRefusal('to is invalid: expected a day on or after from', { field: 'to' });
  const orderNo = textField(values, 'order_no', { max: 64, pattern: PRINTABLE, hint: 'an order_no of up to 64 printable characters' });
  const transactionId = textField(values, 'transaction_id', { max: 64, pattern: PRINTABLE, hint: 'a transaction_id the gateway gave' });
  const status = choiceField(values, 'status', PAYMENT_STATUSES);
  const minAmount = currency ? amountField(values, 'min_amount', currency) : undefined;
  const maxAmount = currency ? amountField(values, 'max_amount', currency) : undefined;
  const cardLast4 = textField(values, 'last4', { max: 4, pattern: /^[0-9]{4}$/, hint: 'the last four digits of the card' });
  const shopperEmail = textField(values, 'email', { max: 254, pattern: /^[^\s@]+@[^\s@]+$/, hint: "the shopper's e-mail address" });
  const paymentMethod = textField(values, 'method', { max: 64, pattern: /^[a-z0-9_-]+$/, hint: 'a payment method such as card' });
  const filter = {
    merchantId,
    ...(orderNo !== undefined ? { orderNo } : {}),
    ...(transactionId !== undefined ? { transactionId } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(from ? { from } : {}),
    // `to` is a whole day: everything before the next midnight.
    ...(to ? { before: endOfDay(to) } : {}),
    ...(currency ? { currency } : {}),
    ...(minAmount !== undefined ? { minAmount } : {}),
    ...(maxAmount !== undefined ? { maxAmount } : {}),
    ...(cardLast4 !== undefined ? { cardLast4 } : {}),
    ...(shopperEmail !== undefined ? { shopperEmail } : {}),
    ...(paymentMethod !== undefined ? { paymentMethod } : {}),
  };
  const sort = choiceField(values, 'sort', SORTS) ?? 'created';
  const descending = (choiceField(values, 'dir', ['asc', 'desc'] as const) ?? 'desc') === 'desc';
  const page = positiveIntField(values, 'page') ?? 1;
  const kept = Object.fromEntries(SEARCH_FIELDS.filter((name) => values[name] !== undefined).map((name) => [name, name === 'currency' ? currency! : values[name]!]));
  return { search: { filter, sort, descending, page }, values: kept };
}

/** A link to `path` with the search's values, changed by `changes` (undefined removes a name). */
export function searchLink(path: string, values: Readonly<Record<string, string>>, changes: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...values, ...changes })) if (value !== undefined) query.set(name, value);
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}
