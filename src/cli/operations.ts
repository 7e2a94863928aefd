// The gateway's operations as `acquiro sign` and `call` need them: each path, the fields of its
// requests that are lists (a one-entry XML list still reads as a list) and its answer's format.
// src/http/catalogue.ts says the same from the routes themselves, but loading it loads every
// route and use case, and these two commands run on a developer's machine and should start at
// once: operations.test.ts fails when this table and the catalogue disagree.

export interface ClientOperation {
  readonly path: string;
  /** The request's list fields (its Operation's `lists`). */
  readonly lists: ReadonlySet<string>;
  /** How the gateway answers (its Operation's `format`). */
  readonly format: 'xml' | 'json';
}

const PAYMENT_LISTS = new Set(['cart_items', 'account_owner', 'total_discount', 'additional_information']);

const op = (path: string, format: 'xml' | 'json', lists: Iterable<string> = []): ClientOperation => ({ path, format, lists: new Set(lists) });

export const OPERATIONS: readonly ClientOperation[] = [
  op('/v1/authorise', 'xml', PAYMENT_LISTS),
  op('/v1/checkout', 'xml', PAYMENT_LISTS),
  op('/v1/capture', 'json', ['capture_orders']),
  op('/v1/review', 'json', ['review_orders']),
  op('/v1/cancel', 'json', ['cancel_orders']),
  op('/v1/refund', 'json', ['refund_orders']),
  op('/v1/retrievalTrans', 'json', ['orders_list']),
  op('/v1/refundSearch', 'json', ['refund_list']),
  op('/v1/cancelsubscription', 'json'),
  op('/v1/optimisePaymentMethods', 'json'),
  op('/v1/payout', 'json', ['beneficiary.person_documents', 'beneficiary.person_documents.labels']),
];

/** List fields that answers may carry (as the catalogue's ANSWER_LISTS): an XML answer's one-entry list is still a list. */
export const ANSWER_LISTS: ReadonlySet<string> = new Set([
  'risk_reasons',
  'fraud_check_result',
  ...OPERATIONS.flatMap((entry) => (entry.format === 'json' ? [...entry.lists] : [])),
  'refund_list',
]);

/** List fields any request may carry, for signing a body whose operation is not named. */
export const REQUEST_LISTS: ReadonlySet<string> = new Set(OPERATIONS.flatMap((entry) => [...entry.lists]));

export function operationAt(path: string): ClientOperation | undefined {
  return OPERATIONS.find((entry) => entry.path === path);
}
