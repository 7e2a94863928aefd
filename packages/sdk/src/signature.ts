// The `encryption_data` signature of every request, answer, notification and shopper's return:
// flatten the body to `path=value` leaves (object keys joined with `.`, list entries as `[i]`),
// leave out the top-level encryption_data and every null or empty leaf, sort by path in byte
// order, escape `%`, `&` and `=` in each value (so no value can pose as further pairs), join with
// `&`, then lowercase hex of HMAC-SHA256 with the account's secret key.
import { createHmac, timingSafeEqual } from 'node:crypto';

const ESCAPES: Readonly<Record<string, string>> = { '%': '%25', '&': '%26', '=': '%3D' };

function escapeValue(value: string): string {
  return value.replace(/[%&=]/g, (c) => ESCAPES[c]!);
}

function collect(path: string, node: unknown, out: [string, string][]): void {
  if (node === null || node === undefined || node === '') return;
  if (Array.isArray(node)) {
    node.forEach((child: unknown, i) => collect(`${path}[${i}]`, child, out));
  } else if (typeof node === 'object') {
    for (const [key, child] of Object.entries(node)) collect(`${path}.${key}`, child, out);
  } else {
    out.push([path, escapeValue(String(node))]);
  }
}

/** Orders strings by Unicode code point, which is the byte order of their UTF-8 encodings. */
function byCodePoint(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (astral code points) sort above every BMP character in UTF-8, not below U+E000.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** The string that is signed: `path=value` pairs of the body, sorted and joined with `&`. */
export function canonicalString(body: object): string {
  const pairs: [string, string][] = [];
  for (const [key, value] of Object.entries(body)) {
    if (key !== 'encryption_data') collect(key, value, pairs);
  }
  pairs.sort((p, q) => byCodePoint(p[0], q[0]));
  return pairs.map(([path, value]) => `${path}=${value}`).join('&');
}

/** The body's `encryption_data`: 64 lowercase hex characters. */
export function sign(body: object, secretKey: string): string {
  return createHmac('sha256', secretKey).update(canonicalString(body), 'utf8').digest('hex');
}

const HEX64 = /^[0-9a-fA-F]{64}$/;

/**
 * Whether the body's own `encryption_data` is its signature with the secret key, or with one of
 * the keys (while a rotated key is being deployed). Compared in constant time; hex case ignored.
 */
export function verify(body: object, secretKey: string | readonly string[]): boolean {
  const signature: unknown = (body as { encryption_data?: unknown }).encryption_data;
  if (typeof signature !== 'string' || !HEX64.test(signature)) return false;
  const given = Buffer.from(signature.toLowerCase(), 'hex');
  const message = canonicalString(body);
  let matched = false;
  for (const key of typeof secretKey === 'string' ? [secretKey] : secretKey) {
    const expected = createHmac('sha256', key).update(message, 'utf8').digest();
    // Every key is compared, whatever the earlier ones gave.
    matched = timingSafeEqual(expected, given) || matched;
  }
  return matched;
}
