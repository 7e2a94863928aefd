// Every signed operation under /v1 in one list: its path, the Operation the shared pipeline uses,
// the request schema it validates against, and why its answer has the format it has. The OpenAPI
// document (openapi.ts), `acquiro call` and the answer-format table of docs/api/README.md are
// read from here, so none of them can name an operation the server does not serve.
import Type, { type TSchema } from 'typebox';
import { ApmPaymentRequest } from './requests/apm-payment.ts';
import { CardPaymentRequest } from './requests/card-payment.ts';
import type { Operation } from './operation.ts';
import { authoriseOperation } from './routes/authorise.ts';
import { cancelOperation } from './routes/cancel.ts';
import { cancelSubscriptionOperation } from './routes/cancel-subscription.ts';
import { captureOperation } from './routes/capture.ts';
import { checkoutOperation } from './routes/checkout.ts';
import { optimiseOperation } from './routes/optimise.ts';
import { payoutOperation } from './routes/payout.ts';
import { queryOperation } from './routes/query.ts';
import { refundSearchOperation } from './routes/refund-search.ts';
import { refundOperation } from './routes/refund.ts';
import { reviewOperation } from './routes/review.ts';

export interface CatalogueEntry {
  readonly path: string;
  readonly operation: Operation;
  readonly summary: string;
  /** The request's schema where the Operation's depends on the body (authorise: card or APM). */
  readonly request?: TSchema;
  /** The page of docs/api/ that describes it. */
  readonly doc: string;
  /** Why the answer is XML or JSON: merchants integrate against these formats as they are. */
  readonly why: string;
}

const BATCH_WHY = 'JSON, as the interface defines every batch operation: one entry per order, each with its own status and code';
const READ_WHY = 'JSON, as the interface defines it: a list of records a merchant synchronises its own books from';

export const CATALOGUE: readonly CatalogueEntry[] = [
  {
    path: '/v1/authorise',
    operation: authoriseOperation,
    summary: 'Direct card payment, or an APM payment when payment_method names one',
    request: Type.Union([CardPaymentRequest, ApmPaymentRequest]),
    doc: 'authorise.md',
    why: 'XML (`respon`), whatever the request format: merchants integrated the direct payment answer as XML, so a JSON request is answered in XML too',
  },
  {
    path: '/v1/checkout',
    operation: checkoutOperation,
    summary: 'Hosted payment page: answers the HTML page that hands the shopper over',
    doc: 'checkout.md',
    why: 'HTML (the hand-off page, unsigned) when accepted; a refusal is XML (`respon`), like the direct payment it stands in for',
  },
  {
    path: '/v1/capture',
    operation: captureOperation,
    summary: 'Capture authorised payments, in full or in part',
    doc: 'capture.md',
    why: BATCH_WHY,
  },
  {
    path: '/v1/review',
    operation: reviewOperation,
    summary: 'Approve or reject payments held for review',
    doc: 'review.md',
    why: BATCH_WHY,
  },
  {
    path: '/v1/cancel',
    operation: cancelOperation,
    summary: 'Void authorised payments before capture',
    doc: 'cancel.md',
    why: BATCH_WHY,
  },
  {
    path: '/v1/refund',
    operation: refundOperation,
    summary: 'Refund captured payments, in full or in part',
    doc: 'refund.md',
    why: BATCH_WHY,
  },
  {
    path: '/v1/retrievalTrans',
    operation: queryOperation,
    summary: 'The state of transactions, by order_no, transaction_id or time window (registered IPs only)',
    doc: 'query.md',
    why: READ_WHY,
  },
  {
    path: '/v1/refundSearch',
    operation: refundSearchOperation,
    summary: 'Refunds, by refund_reference_id, transaction_id, order_no or time window (registered IPs only)',
    doc: 'refund-search.md',
    why: READ_WHY,
  },
  {
    path: '/v1/cancelsubscription',
    operation: cancelSubscriptionOperation,
    summary: 'End a subscription: no charge is started for it again',
    doc: 'cancelsubscription.md',
    why: 'JSON, as the interface defines it, whatever the request format (merchants often send it as XML)',
  },
  {
    path: '/v1/optimisePaymentMethods',
    operation: optimiseOperation,
    summary: 'The payment methods to offer for an order, ranked by approval rate',
    doc: 'optimise.md',
    why: 'JSON: our own operation, answered like the other non-payment operations',
  },
  {
    path: '/v1/payout',
    operation: payoutOperation,
    summary: "A payout to a beneficiary's bank account, paid from the available balance",
    doc: 'payout.md',
    why: 'JSON, as the interface defines the payout answer: the request echoed with the amounts (integers in minor units), fees, rate and status',
  },
];

/** List fields that answers may carry: an XML answer's one-entry list is still a list. */
export const ANSWER_LISTS: ReadonlySet<string> = new Set([
  'risk_reasons',
  'fraud_check_result',
  ...CATALOGUE.flatMap((entry) => (entry.operation.format === 'json' ? [...entry.operation.lists] : [])),
  'refund_list',
]);

/** List fields any request may carry, for signing a body whose operation is not named. */
export const REQUEST_LISTS: ReadonlySet<string> = new Set(CATALOGUE.flatMap((entry) => [...entry.operation.lists]));

/** The request body's schema, as the pipeline checks a request's fields against it. */
export function requestSchema(entry: CatalogueEntry): TSchema {
  if (entry.request) return entry.request;
  if (typeof entry.operation.schema === 'function') throw new Error(`${entry.path}: the catalogue needs the request schema`);
  return entry.operation.schema;
}

export function operationAt(path: string): CatalogueEntry | undefined {
  return CATALOGUE.find((entry) => entry.path === path);
}
