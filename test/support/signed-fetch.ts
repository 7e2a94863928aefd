// Signed requests to a listening gateway over real sockets (processes tests, the chaos runner):
// what a merchant's server sends, with a deadline, and every way it can end told apart.
import { sign } from '../../src/domain/signature.ts';
import { parseAnswer } from './client.ts';

export interface MerchantKeys {
  readonly merchant_id: string;
  readonly account_id: string;
  readonly secret_key: string;
}

export type Sent =
  | { readonly kind: 'answer'; readonly status: number; readonly body: Record<string, any>; readonly raw: string }
  /** The connection failed or was cut (a gateway killed mid-request). */
  | { readonly kind: 'dropped'; readonly message: string }
  /** No answer before the deadline: a hang. */
  | { readonly kind: 'timeout' };

export async function postSigned(
  url: string,
  path: string,
  keys: MerchantKeys,
  fields: Record<string, unknown>,
  options: { headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Sent> {
  const body = { merchant_id: keys.merchant_id, account_id: keys.account_id, ...fields };
  try {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...options.headers },
      body: JSON.stringify({ ...body, encryption_data: sign(body as never, keys.secret_key) }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 20_000),
    });
    const raw = await response.text();
    let parsed: Record<string, any> = {};
    try {
      parsed = parseAnswer(raw);
    } catch {
      // Not an answer of ours (an empty body): the status says enough.
    }
    return { kind: 'answer', status: response.status, body: parsed, raw };
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') return { kind: 'timeout' };
    return { kind: 'dropped', message: String((error as Error).cause ?? error) };
  }
}
