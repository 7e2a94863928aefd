// A typed client of the gateway's operations: signs each request, posts it as JSON, reads the
// answer (XML `respon` or JSON) and resolves only with an answer whose encryption_data verifies.
import type {
  ApmAnswer,
  CancelAnswer,
  CancelSubscriptionAnswer,
  CaptureAnswer,
  OptimiseAnswer,
  PaymentAnswer,
  PayoutAnswer,
  QueryAnswer,
  RefundAnswer,
  RefundSearchAnswer,
  ReviewAnswer,
} from './answers.js';
import { parseAnswer } from './answer.js';
import { AnswerError } from './errors.js';
import type {
  ApmPayment,
  CancelOrder,
  CaptureOrder,
  CardPayment,
  CheckoutOrder,
  Keys,
  OptimiseRequest,
  PayoutRequest,
  QuerySelection,
  RefundOrder,
  RefundSearchSelection,
  ReviewOrder,
  SubscriptionCancellation,
} from './requests.js';
import { sign, verify } from './signature.js';

/** What the client needs of `fetch` (the global one by default; any compatible one will do). */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string },
) => Promise<{ readonly status: number; readonly statusText: string; text(): Promise<string> }>;

export interface ClientOptions {
  /** The gateway's address, e.g. https://pay.example.com (without /v1). */
  readonly baseUrl: string;
  readonly merchantId: string;
  readonly accountId: string;
  readonly secretKey: string;
  /** Gives up on an answer after this long (60 000 ms by default). A payment that timed out may
   *  still have happened: repeat it with the same order_no, or query it. */
  readonly timeoutMs?: number;
  readonly fetch?: FetchLike;
}

export interface CallOptions {
  /** Makes a retry of a lost answer safe for capture, review, cancel and refund (docs/idempotency.md). */
  readonly idempotencyKey?: string;
}

function joinKeys(selection: object): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(selection)) fields[name] = Array.isArray(value) ? (value as Keys[]).join(',') : value;
  return fields;
}

export class AcquiroClient {
  readonly #options: ClientOptions;
  readonly #baseUrl: string;

  constructor(options: ClientOptions) {
    this.#options = options;
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  async #post(path: string, fields: object, options: CallOptions): Promise<{ status: number; statusText: string; text: string }> {
    const body = { merchant_id: this.#options.merchantId, account_id: this.#options.accountId, ...fields };
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    // The signal is passed beyond FetchLike's declared shape: a custom fetch may ignore it.
    const init = {
      method: 'POST',
      headers,
      body: JSON.stringify({ ...body, encryption_data: sign(body, this.#options.secretKey) }),
      signal: AbortSignal.timeout(this.#options.timeoutMs ?? 60_000),
    };
    const response = await (this.#options.fetch ?? (globalThis.fetch as FetchLike))(`${this.#baseUrl}${path}`, init);
    return { status: response.status, statusText: response.statusText, text: await response.text() };
  }

  /**
   * Posts a signed operation and resolves with its verified answer when the gateway answers
   * 200 (a declined payment is a 200: read order_status). Rejects with AnswerError for any other
   * status, or when the answer does not verify. For operations without a typed method.
   */
  async call<T = Record<string, unknown>>(path: string, fields: object, options: CallOptions = {}): Promise<T> {
    const { status, statusText, text } = await this.#post(path, fields, options);
    let answer: Record<string, unknown>;
    try {
      answer = parseAnswer(text);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new AnswerError(`${path} answered ${status} ${statusText} with a body that cannot be read: ${why}`, { problem: 'unreadable', status });
    }
    const verified = verify(answer, this.#options.secretKey);
    if (status !== 200) {
      // Where the operation writes its code: a payment's result_info, a batch's return_message,
      // the subscription cancel's error_message.
      const info = answer.result_info ?? answer.return_message ?? answer.error_message ?? statusText;
      throw new AnswerError(`${path} answered ${status}: ${String(info)}`, { problem: 'refused', status, body: answer, verified });
    }
    if (!verified) throw new AnswerError(`${path} answered with an encryption_data that does not verify`, { problem: 'signature', status, body: answer });
    return answer as T;
  }

  /** A direct card payment (POST /v1/authorise). */
  async authorise(payment: CardPayment): Promise<PaymentAnswer> {
    const answer = await this.call<PaymentAnswer>('/v1/authorise', payment);
    return { ...answer, risk_reasons: answer.risk_reasons ?? [] };
  }

  /** An APM payment (POST /v1/authorise with payment_method): send the shopper to issuer_url. */
  authoriseApm(payment: ApmPayment): Promise<ApmAnswer> {
    return this.call<ApmAnswer>('/v1/authorise', payment);
  }

  /**
   * Opens a hosted-page session (POST /v1/checkout) and resolves with the hand-off page's HTML,
   * to return as your own response to the shopper's browser. The page carries no signature;
   * a refusal rejects with AnswerError as for the other operations.
   */
  async checkout(order: CheckoutOrder): Promise<string> {
    const { status, statusText, text } = await this.#post('/v1/checkout', order, {});
    if (status === 200 && /^\s*<!doctype html/i.test(text)) return text;
    let answer: Record<string, unknown>;
    try {
      answer = parseAnswer(text);
    } catch {
      throw new AnswerError(`/v1/checkout answered ${status} ${statusText} without a hand-off page`, { problem: 'unreadable', status });
    }
    const info = answer.result_info ?? answer.return_message ?? answer.error_message ?? statusText;
    throw new AnswerError(`/v1/checkout answered ${status}: ${String(info)}`, { problem: 'refused', status, body: answer, verified: verify(answer, this.#options.secretKey) });
  }

  /** Captures authorised payments, in full or in part, once (POST /v1/capture, up to 100). */
  capture(orders: readonly CaptureOrder[], options: CallOptions = {}): Promise<CaptureAnswer> {
    return this.call<CaptureAnswer>('/v1/capture', { capture_orders: orders }, options);
  }

  /** Approves (review_flag 1) or rejects (0) payments held for review (POST /v1/review, up to 100). */
  review(orders: readonly ReviewOrder[], options: CallOptions = {}): Promise<ReviewAnswer> {
    return this.call<ReviewAnswer>('/v1/review', { review_orders: orders }, options);
  }

  /** Voids payments before capture (POST /v1/cancel, up to 50). */
  cancel(orders: readonly CancelOrder[], options: CallOptions = {}): Promise<CancelAnswer> {
    return this.call<CancelAnswer>('/v1/cancel', { cancel_orders: orders }, options);
  }

  /** Refunds captured money, in part and more than once (POST /v1/refund, up to 50). */
  refund(orders: readonly RefundOrder[], options: CallOptions = {}): Promise<RefundAnswer> {
    return this.call<RefundAnswer>('/v1/refund', { refund_orders: orders }, options);
  }

  /**
   * Ends a subscription (POST /v1/cancelsubscription): no charge is started for it again. Resolves
   * with cancel_status 1 (also for a repeat), or 0 with error_message when the subscription is
   * unknown to this account or contract_name does not match.
   */
  cancelSubscription(subscription: SubscriptionCancellation): Promise<CancelSubscriptionAnswer> {
    return this.call<CancelSubscriptionAnswer>('/v1/cancelsubscription', subscription);
  }

  /** The state of transactions (POST /v1/retrievalTrans); only from a registered IP address. */
  query(selection: QuerySelection): Promise<QueryAnswer> {
    return this.call<QueryAnswer>('/v1/retrievalTrans', joinKeys(selection));
  }

  /** The account's refunds (POST /v1/refundSearch); only from a registered IP address. */
  refundSearch(selection: RefundSearchSelection): Promise<RefundSearchAnswer> {
    return this.call<RefundSearchAnswer>('/v1/refundSearch', joinKeys(selection));
  }

  /** The payment methods the account can offer for an order, best approval rate first (POST /v1/optimisePaymentMethods). */
  optimisePaymentMethods(order: OptimiseRequest): Promise<OptimiseAnswer> {
    return this.call<OptimiseAnswer>('/v1/optimisePaymentMethods', order);
  }

  /**
   * A payout from the account's available balance (POST /v1/payout). An unfunded payout resolves
   * with status FAILED (failure_type INSUFFICIENT_FUNDS); repeat the same request_id to read it again.
   */
  payout(request: PayoutRequest): Promise<PayoutAnswer> {
    return this.call<PayoutAnswer>('/v1/payout', request);
  }
}
