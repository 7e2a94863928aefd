// Why a call did not resolve with a verified answer.

export type AnswerProblem =
  /** The gateway refused the request (HTTP 4xx/5xx): `code` and the message name the cause. */
  | 'refused'
  /** The answer's encryption_data does not verify with the secret key: do not trust it. */
  | 'signature'
  /** The answer could not be read (neither the operation's JSON nor its XML). */
  | 'unreadable';

export class AnswerError extends Error {
  override readonly name = 'AnswerError';
  readonly problem: AnswerProblem;
  /** The HTTP status of the answer. */
  readonly status: number;
  /** The code of `result_info` / `return_message` (`4002`), or '' when the answer has none. */
  readonly code: string;
  /** Whatever could be read of the answer. */
  readonly body: Readonly<Record<string, unknown>>;
  /** Whether the answer's own signature verified (a refusal is signed when the account is known). */
  readonly verified: boolean;

  constructor(message: string, details: { problem: AnswerProblem; status: number; body?: Readonly<Record<string, unknown>>; verified?: boolean }) {
    super(message);
    this.problem = details.problem;
    this.status = details.status;
    this.body = details.body ?? {};
    this.verified = details.verified ?? false;
    const info = this.body.result_info ?? this.body.return_message ?? this.body.error_message;
    this.code = typeof info === 'string' ? (/^([0-9]{4}):/.exec(info)?.[1] ?? '') : '';
  }
}
