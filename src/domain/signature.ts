// The `encryption_data` signature (docs/signing.md): flatten the body tree to `path=value` leaves,
// drop the top-level encryption_data and every null or empty leaf, escape `%`, `&` and `=` in
// values, sort by path in byte order, join with `&`, HMAC-SHA256 with the account's secret key,
// lowercase hex. The escaping keeps a value from posing as further pairs (`note=x&amount=1`);
// field names cannot, because requests are refused unless every name is letters, digits and `_`.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type Leaf = string | number | boolean | null | undefined;
export type SignedNode = Leaf | readonly SignedNode[] | { readonly [key: string]: SignedNode };
export type SignedBody = { readonly [key: string]: SignedNode };

function collect(path: string, node: SignedNode, out: string[][]): void {
  if (node === null || node === undefined || node === '') return;
  if (Array.isArray(node)) {
    node.forEach((child, i) => collect(`${path}[${i}]`, child, out));
  } else if (typeof node === 'object') {
    for (const key of Object.keys(node)) collect(`${path}.${key}`, (node as SignedBody)[key], out);
  } else {
    out.push([path, escapeValue(String(node))]);
  }
}

const SEPARATORS = /[%&=]/;
const ESCAPES: Record<string, string> = { '%': '%25', '&': '%26', '=': '%3D' };

/** `%` → `%25`, `&` → `%26`, `=` → `%3D`, nothing else. Most values hold none: they are returned as they are. */
export function escapeValue(value: string): string {
  return SEPARATORS.test(value) ? value.replace(/[%&=]/g, (c) => ESCAPES[c]!) : value;
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

export function canonicalString(body: SignedBody): string {
  const pairs: string[][] = [];
  for (const key of Object.keys(body)) {
    if (key !== 'encryption_data') collect(key, body[key], pairs);
  }
  pairs.sort((p, q) => byCodePoint(p[0]!, q[0]!));
  return pairs.map((pair) => `${pair[0]}=${pair[1]}`).join('&');
}

export function sign(body: SignedBody, secretKey: string): string {
  return createHmac('sha256', secretKey).update(canonicalString(body), 'utf8').digest('hex');
}

const HEX64 = /^[0-9a-fA-F]{64}$/;

/**
 * Index of the first secret whose signature matches `signature`, or -1.
 * Every secret is compared, in constant time, whatever the earlier results.
 */
export function matchingSecret(body: SignedBody, signature: unknown, secretKeys: readonly string[]): number {
  if (typeof signature !== 'string' || !HEX64.test(signature)) return -1;
  const given = Buffer.from(signature.toLowerCase(), 'hex');
  const message = canonicalString(body);
  let found = -1;
  secretKeys.forEach((secret, i) => {
    const expected = createHmac('sha256', secret).update(message, 'utf8').digest();
    if (timingSafeEqual(expected, given) && found === -1) found = i;
  });
  return found;
}

/** Whether two secrets (tokens, MACs) are equal, in time that does not depend on where they differ. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

export function verify(body: SignedBody, secretKey: string): boolean {
  return matchingSecret(body, body.encryption_data, [secretKey]) === 0;
}
