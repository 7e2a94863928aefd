// A typed client of the gateway's operations: signs each request, posts it as JSON, reads the
// answer (XML `respon` or JSON) and resolves only with an answer whose encryption_data verifies.
// It repeats a request only where a repeat cannot do anything twice (docs/idempotency.md).
import { randomUUID } from 'node:crypto';
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
import { asksForRetry, delayMs, MAX_RETRY_AFTER_SECONDS, ordersNotDone, outcomeUnknown, retryAfterOf, sleep } from './retry.js';
import { sign, verify } from './signature.js';

/** The AbortSignal the client ends an attempt with at `timeoutMs` (kept structural: the types need no DOM library). */
export interface SignalLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void): void;
}

/** What the client needs of `fetch` (the global one by default; any compatible one will do). */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string; signal?: SignalLike },
) => Promise<{ readonly status: number; readonly statusText: string; readonly headers?: { get(name: string): string | null }; text(): Promise<string> }>;

export interface ClientOptions {
  /** The gateway's address, e.g. https://pay.example.com (without /v1). */
  readonly baseUrl: string;
  readonly merchantId: string;
  readonly accountId: string;
  readonly secretKey: string;
  /** Gives up on an answer after this long (60 000 ms by default), each attempt. A payment that
   *  timed out may still have happened: the client repeats it when that is safe (see `retries`). */
  readonly timeoutMs?: number;
  /**
   * How many times a call is sent again (2 by default; 0: never) when the gateway asks for it
   * (429, 409 `4017`, 503 `9503`: nothing was done), and, when a repeat cannot do anything twice,
   * when no answer came or a 5xx did: payments (their order_no), payouts (request_id), capture,
   * review, cancel and refund (the Idempotency-Key, the same on every attempt), and operations
   * that move no money. A batch answered with `9503` on some orders is sent again whole with its
   * key, which does only those. `call` repeats an unanswered request only with an idempotencyKey.
   */
  readonly retries?: number;
  readonly fetch?: FetchLike;
}

export interface CallOptions {
  /**
   * The Idempotency-Key of a capture, review, cancel or refund (docs/idempotency.md): a new one
   * (a UUID) is made for each call without one, and reused on the client's own retries. Give your
   * own to repeat a call later (after an AnswerError: its `idempotencyKey`) without doing it twice.
   */
  readonly idempotencyKey?: string;
}

/** How a call may be repeated: `unanswered` when no answer (or a 5xx) leaves its outcome unknown. */
interface Repeat {
  readonly unanswered: boolean;
}

interface Answered {
  readonly status: number;
  readonly statusText: string;
  readonly text: string;
  readonly retryAfter: number | undefined;
}

function joinKeys(selection: object): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(selection)) fields[name] = Array.isArray(value) ? (value as Keys[]).join(',') : value;
  return fields;
}

/** An operation whose request is safe to repeat after no answer: its own key, or no money moved. */
const SAFE: Repeat = { unanswered: true };

export class AcquiroClient {
  readonly #options: ClientOptions;
  readonly #baseUrl: string;

  constructor(options: ClientOptions) {
    this.#options = options;
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  /** One attempt: the answer as it came, or an AnswerError when none came. */
  async #send(path: string, body: string, key: string | undefined): Promise<Answered> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key !== undefined) headers['idempotency-key'] = key;
    const timeoutMs = this.#options.timeoutMs ?? 60_000;
    try {
      const init = { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) };
      const response = await (this.#options.fetch ?? (globalThis.fetch as FetchLike))(`${this.#baseUrl}${path}`, init);
      return { status: response.status, statusText: response.statusText, text: await response.text(), retryAfter: retryAfterOf(response.headers) };
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      const why = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
      const message = timedOut ? `${path}: no answer within ${timeoutMs} ms` : `${path}: no answer (${why})`;
      throw new AnswerError(`${message}; it may or may not have been carried out`, { problem: timedOut ? 'timeout' : 'network', status: 0, cause: error });
    }
  }

  /** The verified answer of one attempt, or the AnswerError that says why there is none. */
  #read(path: string, { status, statusText, text, retryAfter }: Answered): Record<string, unknown> {
    let answer: Record<string, unknown>;
    try {
      answer = parseAnswer(text);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new AnswerError(`${path} answered ${status} ${statusText} with a body that cannot be read: ${why}`, { problem: 'unreadable', status, retryAfter });
    }
    const verified = verify(answer, this.#options.secretKey);
    if (status !== 200) {
      // Where the operation writes its code: a payment's result_info, a batch's return_message,
      // the subscription cancel's error_message.
      const info = answer.result_info ?? answer.return_message ?? answer.error_message ?? statusText;
      throw new AnswerError(`${path} answered ${status}: ${String(info)}`, { problem: 'refused', status, body: answer, verified, retryAfter });
    }
    if (!verified) throw new AnswerError(`${path} answered with an encryption_data that does not verify`, { problem: 'signature', status, body: answer });
    return answer;
  }

  /**
   * Signs and sends `fields`, and reads each answer with `read`, repeating the request as it was
   * (the same body, signature and key) while `retries` allows and the answer says it is safe.
   */
  async #exchange<T>(path: string, fields: object, key: string | undefined, repeat: Repeat, read: (answered: Answered) => T): Promise<T> {
    // Signed as it will be sent and parsed: JSON turns a Date into its text, NaN into null, and
    // drops functions and undefined, which the signature must see the same way as the gateway.
    const sent = JSON.parse(JSON.stringify({ merchant_id: this.#options.merchantId, account_id: this.#options.accountId, ...fields })) as object;
    const body = JSON.stringify({ ...sent, encryption_data: sign(sent, this.#options.secretKey) });
    const retries = Math.max(0, Math.floor(this.#options.retries ?? 2));
    for (let attempt = 1; ; attempt++) {
      let failure: AnswerError;
      try {
        const answer = read(await this.#send(path, body, key));
        // Some orders not done, the others done: the same request with the same key does only those.
        if (key === undefined || attempt > retries || !ordersNotDone(answer as Record<string, unknown>)) return answer;
        await sleep(delayMs(attempt, undefined));
        continue;
      } catch (error) {
        if (!(error instanceof AnswerError)) throw error;
        failure = error;
      }
      const retryable = asksForRetry(failure) || (outcomeUnknown(failure) && repeat.unanswered);
      const waitTooLong = (failure.retryAfter ?? 0) > MAX_RETRY_AFTER_SECONDS;
      if (!retryable || attempt > retries || waitTooLong) {
        const { problem, status, body, verified, retryAfter, cause } = failure;
        throw new AnswerError(failure.message, { problem, status, body, verified, retryAfter, cause, retryable, idempotencyKey: key, attempts: attempt });
      }
      await sleep(delayMs(attempt, failure.retryAfter));
    }
  }

  /**
   * Posts a signed operation and resolves with its verified answer when the gateway answers
   * 200 (a declined payment is a 200: read order_status). Rejects with AnswerError for any other
   * status, no answer, or an answer that does not verify. For operations without a typed method:
   * a request that got no answer is repeated only when it carries an idempotencyKey.
   */
  call<T = Record<string, unknown>>(path: string, fields: object, options: CallOptions = {}): Promise<T> {
    return this.#call<T>(path, fields, options.idempotencyKey, { unanswered: options.idempotencyKey !== undefined });
  }

  #call<T>(path: string, fields: object, key: string | undefined, repeat: Repeat): Promise<T> {
    return this.#exchange(path, fields, key, repeat, (answered) => this.#read(path, answered) as T);
  }

  /** A batch operation: always under an Idempotency-Key, the caller's or a new one. */
  #batch<T>(path: string, fields: object, options: CallOptions): Promise<T> {
    return this.#call<T>(path, fields, options.idempotencyKey ?? randomUUID(), { unanswered: true });
  }

  /** A direct card payment (POST /v1/authorise). */
  async authorise(payment: CardPayment): Promise<PaymentAnswer> {
    // Its order_no makes a repeat safe: the gateway answers the one payment as it stands.
    const answer = await this.#call<PaymentAnswer>('/v1/authorise', payment, undefined, SAFE);
    return { ...answer, risk_reasons: answer.risk_reasons ?? [] };
  }

  /** An APM payment (POST /v1/authorise with payment_method): send the shopper to issuer_url. */
  authoriseApm(payment: ApmPayment): Promise<ApmAnswer> {
    return this.#call<ApmAnswer>('/v1/authorise', payment, undefined, SAFE);
  }

  /**
   * Opens a hosted-page session (POST /v1/checkout) and resolves with the hand-off page's HTML,
   * to return as your own response to the shopper's browser. The page carries no signature;
   * a refusal rejects with AnswerError as for the other operations.
   */
  checkout(order: CheckoutOrder): Promise<string> {
    return this.#exchange('/v1/checkout', order, undefined, SAFE, (answered) => {
      if (answered.status === 200 && /^\s*<!doctype html/i.test(answered.text)) return answered.text;
      this.#read('/v1/checkout', answered);
      throw new AnswerError('/v1/checkout answered 200 without a hand-off page', { problem: 'unreadable', status: answered.status });
    });
  }

  /** Captures authorised payments, in full or in part, once (POST /v1/capture, up to 100). */
  capture(orders: readonly CaptureOrder[], options: CallOptions = {}): Promise<CaptureAnswer> {
    return this.#batch<CaptureAnswer>('/v1/capture', { capture_orders: orders }, options);
  }

  /** Approves (review_flag 1) or rejects (0) payments held for review (POST /v1/review, up to 100). */
  review(orders: readonly ReviewOrder[], options: CallOptions = {}): Promise<ReviewAnswer> {
    return this.#batch<ReviewAnswer>('/v1/review', { review_orders: orders }, options);
  }

  /** Voids payments before capture (POST /v1/cancel, up to 50). */
  cancel(orders: readonly CancelOrder[], options: CallOptions = {}): Promise<CancelAnswer> {
    return this.#batch<CancelAnswer>('/v1/cancel', { cancel_orders: orders }, options);
  }

  /** Refunds captured money, in part and more than once (POST /v1/refund, up to 50). */
  refund(orders: readonly RefundOrder[], options: CallOptions = {}): Promise<RefundAnswer> {
    return this.#batch<RefundAnswer>('/v1/refund', { refund_orders: orders }, options);
  }

  /**
   * Ends a subscription (POST /v1/cancelsubscription): no charge is started for it again. Resolves
   * with cancel_status 1 (also for a repeat), or 0 with error_message when the subscription is
   * unknown to this account or contract_name does not match.
   */
  cancelSubscription(subscription: SubscriptionCancellation): Promise<CancelSubscriptionAnswer> {
    return this.#call<CancelSubscriptionAnswer>('/v1/cancelsubscription', subscription, undefined, SAFE);
  }

  /** The state of transactions (POST /v1/retrievalTrans); only from a registered IP address. */
  query(selection: QuerySelection): Promise<QueryAnswer> {
    return this.#call<QueryAnswer>('/v1/retrievalTrans', joinKeys(selection), undefined, SAFE);
  }

  /** The account's refunds (POST /v1/refundSearch); only from a registered IP address. */
  refundSearch(selection: RefundSearchSelection): Promise<RefundSearchAnswer> {
    return this.#call<RefundSearchAnswer>('/v1/refundSearch', joinKeys(selection), undefined, SAFE);
  }

  /** The payment methods the account can offer for an order, best approval rate first (POST /v1/optimisePaymentMethods). */
  optimisePaymentMethods(order: OptimiseRequest): Promise<OptimiseAnswer> {
    return this.#call<OptimiseAnswer>('/v1/optimisePaymentMethods', order, undefined, SAFE);
  }

  /**
   * A payout from the account's available balance (POST /v1/payout). An unfunded payout resolves
   * with status FAILED (failure_type INSUFFICIENT_FUNDS); repeat the same request_id to read it again.
   */
  payout(request: PayoutRequest): Promise<PayoutAnswer> {
    return this.#call<PayoutAnswer>('/v1/payout', request, undefined, SAFE);
  }
}
