// A typed client for merchants' Node applications: signs every request, posts it, reads the
// answer (XML `respon` or JSON) and refuses one whose encryption_data does not verify.
import { XMLParser } from 'fast-xml-parser';
import { sign, verify, type SignedBody } from '../domain/signature.ts';

export interface ClientOptions {
  /** e.g. https://pay.example.com (no trailing /v1). */
  readonly baseUrl: string;
  readonly merchantId: string;
  readonly accountId: string;
  readonly secretKey: string;
  /** Defaults to the global fetch. */
  readonly fetch?: typeof fetch;
}

/** Fields a direct card payment may carry; every field of the interface is accepted as text. */
export interface CardPayment {
  readonly order_no: string;
  readonly currency: string;
  /** Decimal string in the currency's units, e.g. "10.00". */
  readonly amount: string;
  readonly card?: string;
  readonly expiration_month?: string;
  readonly expiration_year?: string;
  readonly security_code?: string;
  readonly token_id?: string;
  readonly token_flag?: '0' | '1';
  readonly open3d?: '0' | '1';
  readonly notify_url?: string;
  readonly [field: string]: unknown;
}

export interface PaymentAnswer {
  readonly merchant_id: string;
  readonly account_id: string;
  readonly order_no: string;
  readonly amount: string;
  readonly currency: string;
  readonly transaction_id: string;
  readonly card: string;
  /** 1 approved, 0 declined or refused, 2 pending (3-D Secure, APM, processor), 3 held for review. */
  readonly order_status: '0' | '1' | '2' | '3';
  /** `<code>:<message>`; docs/codes.md lists the codes. */
  readonly result_info: string;
  readonly token_id: string;
  readonly connector: string;
  readonly threeds_result: string;
  readonly risk_action: string;
  readonly risk_score: string;
  readonly risk_reasons: readonly { name: string; status: string }[];
  readonly redirect_url: string;
  readonly encryption_data: string;
  readonly [field: string]: unknown;
}

export class AnswerError extends Error {
  readonly status: number;
  readonly body: Record<string, unknown>;
  constructor(message: string, status: number, body: Record<string, unknown>) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

const ANSWER_LISTS = new Set(['risk_reasons', 'fraud_check_result', 'capture_orders', 'review_orders', 'cancel_orders', 'refund_orders', 'orders_list']);
const xml = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  isArray: (_name, jPath) => ANSWER_LISTS.has(String(jPath).split('.').slice(1).join('.')),
});

export function parseAnswer(text: string): Record<string, unknown> {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) return JSON.parse(trimmed) as Record<string, unknown>;
  const root = (xml.parse(trimmed) as Record<string, unknown>).respon;
  const body = (typeof root === 'object' && root !== null ? root : {}) as Record<string, unknown>;
  for (const list of ANSWER_LISTS) if (body[list] === '') body[list] = [];
  return body;
}

export class AcquiroClient {
  readonly #options: ClientOptions;

  constructor(options: ClientOptions) {
    this.#options = { ...options, baseUrl: options.baseUrl.replace(/\/+$/, '') };
  }

  /**
   * Posts a signed operation. Resolves with the verified answer for HTTP 200 (a declined payment
   * is a 200: read order_status); rejects with AnswerError otherwise, or when the answer's
   * signature does not verify.
   */
  async call<T = Record<string, unknown>>(path: string, fields: Record<string, unknown>): Promise<T> {
    const body: SignedBody = { merchant_id: this.#options.merchantId, account_id: this.#options.accountId, ...(fields as SignedBody) };
    const response = await (this.#options.fetch ?? fetch)(`${this.#options.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, encryption_data: sign(body, this.#options.secretKey) }),
    });
    const answer = parseAnswer(await response.text());
    const signed = typeof answer.encryption_data === 'string' && answer.encryption_data !== '' && verify(answer as SignedBody, this.#options.secretKey);
    if (response.status !== 200) {
      const info = answer.result_info ?? answer.return_message ?? response.statusText;
      throw new AnswerError(`${path} answered ${response.status}: ${String(info)}`, response.status, answer);
    }
    if (!signed) throw new AnswerError(`${path} answered with an encryption_data that does not verify`, response.status, answer);
    return answer as T;
  }

  authorise(payment: CardPayment): Promise<PaymentAnswer> {
    return this.call<PaymentAnswer>('/v1/authorise', payment);
  }
}

/**
 * Checks a notification body (docs/notifications.md): the signature over the whole body, and a
 * notify_time no older than `toleranceSeconds` (and not from the future beyond it).
 */
export function verifyNotification(
  body: Record<string, unknown>,
  secretKey: string,
  options: { now?: Date; toleranceSeconds?: number } = {},
): boolean {
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const sent = Number(body.notify_time);
  if (!Number.isInteger(sent) || Math.abs(now - sent) > tolerance) return false;
  return verify(body as SignedBody, secretKey);
}
