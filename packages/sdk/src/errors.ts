// Why a call did not resolve with a verified answer.

export type AnswerProblem =
  /** The gateway refused the request (HTTP 4xx/5xx): `code` and the message name the cause. */
  | 'refused'
  /** The answer's encryption_data does not verify with the secret key: do not trust it. */
  | 'signature'
  /** The answer could not be read (neither the operation's JSON nor its XML): a proxy's error page, say. */
  | 'unreadable'
  /** No answer: the connection failed or was cut. The request may or may not have been carried out. */
  | 'network'
  /** No answer within `timeoutMs`. The request may or may not have been carried out. */
  | 'timeout';

export interface AnswerErrorDetails {
  readonly problem: AnswerProblem;
  readonly status: number;
  readonly body?: Readonly<Record<string, unknown>>;
  readonly verified?: boolean;
  readonly retryable?: boolean;
  readonly retryAfter?: number | undefined;
  readonly idempotencyKey?: string | undefined;
  readonly attempts?: number;
  readonly cause?: unknown;
}

export class AnswerError extends Error {
  override readonly name = 'AnswerError';
  readonly problem: AnswerProblem;
  /** The HTTP status of the answer; 0 when there was none (`network`, `timeout`). */
  readonly status: number;
  /** The code of `result_info` / `return_message` / `error_message` (`4002`), or '' when the answer has none. */
  readonly code: string;
  /** Whatever could be read of the answer. */
  readonly body: Readonly<Record<string, unknown>>;
  /** Whether the answer's own signature verified (a refusal is signed when the account is known). */
  readonly verified: boolean;
  /**
   * Whether sending the same call again is safe and may succeed: the gateway did nothing and asks
   * for a retry (429, 409 `4017`, 503 `9503`), or the outcome is unknown (no answer, a 5xx) and the
   * call carries what makes a repeat safe (an order_no, a request_id, an Idempotency-Key, or an
   * operation that moves no money). The client already retried it `retries` times.
   */
  readonly retryable: boolean;
  /** Seconds the gateway asked to wait (`Retry-After`), when it did. */
  readonly retryAfter: number | undefined;
  /** The Idempotency-Key the call was sent with: send a repeat with the same one. */
  readonly idempotencyKey: string | undefined;
  /** How many times the request was sent. */
  readonly attempts: number;

  constructor(message: string, details: AnswerErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.problem = details.problem;
    this.status = details.status;
    this.body = details.body ?? {};
    this.verified = details.verified ?? false;
    this.retryable = details.retryable ?? false;
    this.retryAfter = details.retryAfter;
    this.idempotencyKey = details.idempotencyKey;
    this.attempts = details.attempts ?? 1;
    const info = this.body.result_info ?? this.body.return_message ?? this.body.error_message;
    this.code = typeof info === 'string' ? (/^([0-9]{4}):/.exec(info)?.[1] ?? '') : '';
  }
}
