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

const SURROGATE = /[\ud800-\udfff]/;

/** JavaScript's own string order (UTF-16 code units): code point order for strings without surrogates. */
const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function canonicalString(body: SignedBody): string {
  return (inOrder(body) ?? sortedPairs(body)).join('&');
}

/** Every leaf's `path=value`, sorted by path: the definition. */
function sortedPairs(body: SignedBody): string[] {
  const pairs: string[][] = [];
  for (const key of Object.keys(body)) {
    if (key !== 'encryption_data') collect(key, body[key], pairs);
  }
  const compare = pairs.some((pair) => SURROGATE.test(pair[0]!)) ? byCodePoint : byCodeUnit;
  pairs.sort((p, q) => compare(p[0]!, q[0]!));
  return pairs.map((pair) => `${pair[0]}=${pair[1]}`);
}

// The same pairs in the same order without sorting them all (a query answer of 100 orders has
// 2 400): when every key is a plain field name (letters, digits, _), the paths below one key or
// list entry sort together, so sorting each object's keys and each list's indexes is enough. A
// key sorts by its name and what follows it in its paths (nothing for a leaf, `.` for an object,
// `[` for a list: `a[0]` sorts after `aB` but `a.x` before it), an index by its digits and `]`
// (`[10]` before `[2]`). Any other key: undefined, and sortedPairs decides.
const FIELD_NAME = /^[A-Za-z0-9_]+$/;

function inOrder(body: SignedBody): string[] | undefined {
  const out: string[] = [];
  const keys = Object.keys(body).filter((key) => key !== 'encryption_data');
  return walkObject('', body, keys, out) ? out : undefined;
}

function walk(path: string, node: SignedNode, out: string[]): boolean {
  if (node === null || node === undefined || node === '') return true;
  if (Array.isArray(node)) {
    for (const i of indexOrder(node.length)) if (!walk(`${path}[${i}]`, node[i] as SignedNode, out)) return false;
    return true;
  }
  if (typeof node === 'object') return walkObject(`${path}.`, node as SignedBody, Object.keys(node), out);
  out.push(`${path}=${escapeValue(String(node))}`);
  return true;
}

function walkObject(prefix: string, node: SignedBody, keys: string[], out: string[]): boolean {
  const sorted = keyOrder(node, keys);
  if (!sorted) return false;
  for (const key of sorted) if (!walk(`${prefix}${key}`, node[key], out)) return false;
  return true;
}

/** What a child adds after its key in its paths: nothing for a leaf, `.` for an object, `[` for a list. */
function sortSuffix(child: SignedNode): string {
  return Array.isArray(child) ? '[' : typeof child === 'object' && child !== null ? '.' : '';
}

// An answer's list repeats one shape (a query of 100 orders: 100 objects with the same keys and
// the same kinds of children), so each shape's order is worked out once and kept, under its first
// key. A kept order is used only for exactly its keys with the same suffixes, compared one by one.
// Requests are checked before their signature is, so what is kept is bounded: small shapes only,
// and all of them forgotten when there are too many.
const KEPT_SHAPES = 256;
const KEPT_KEY_CHARACTERS = 2_048;
interface KeptOrder {
  readonly keys: readonly string[];
  readonly suffixes: readonly string[];
  readonly order: readonly string[];
}
const keptOrders = new Map<string, KeptOrder>();

function sameShape(kept: KeptOrder, node: SignedBody, keys: readonly string[]): boolean {
  if (kept.keys.length !== keys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    if (kept.keys[i] !== keys[i] || kept.suffixes[i] !== sortSuffix(node[keys[i]!])) return false;
  }
  return true;
}

/** `keys` in the order of their paths, or undefined when one is not a plain field name. */
function keyOrder(node: SignedBody, keys: string[]): readonly string[] | undefined {
  if (keys.length < 2) return keys.every((key) => FIELD_NAME.test(key)) ? keys : undefined;
  const kept = keptOrders.get(keys[0]!);
  if (kept && sameShape(kept, node, keys)) return kept.order;
  if (!keys.every((key) => FIELD_NAME.test(key))) return undefined;
  const suffixes = keys.map((key) => sortSuffix(node[key]));
  const order = keys
    .map((key, i) => [`${key}${suffixes[i]}`, key] as const)
    .sort((a, b) => byCodeUnit(a[0], b[0]))
    .map(([, key]) => key);
  if (keys.reduce((characters, key) => characters + key.length, 0) <= KEPT_KEY_CHARACTERS) {
    if (keptOrders.size >= KEPT_SHAPES) keptOrders.clear();
    keptOrders.set(keys[0]!, { keys: [...keys], suffixes, order });
  }
  return order;
}

/** 0 … length-1 in the order of their paths: `[10]` before `[2]`. */
const indexOrders = new Map<number, readonly number[]>();
function indexOrder(length: number): readonly number[] {
  const known = indexOrders.get(length);
  if (known) return known;
  const order = Array.from({ length }, (_, i) => i).sort((i, j) => byCodeUnit(`${i}]`, `${j}]`));
  if (length <= 1_000) indexOrders.set(length, order);
  return order;
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
