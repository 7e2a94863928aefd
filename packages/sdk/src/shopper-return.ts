// The shopper's return to return_url (or cancel_url) after the hosted page, a 3-D Secure
// challenge or an APM page: the outcome is in the query, signed over every query parameter of
// the URL (the merchant's own ones included). It tells the shop's page what to show; the
// notification stays the authoritative word.
import type { ShopperReturn } from './answers.js';
import { verify } from './signature.js';

/** What URLSearchParams offers (kept structural so the types need no DOM or Node library). */
export interface SearchParamsLike {
  forEach(callback: (value: string, name: string) => void): void;
}

/**
 * The return's query: the full URL or its query string, a URL, a URLSearchParams, or the
 * parameters as an object (e.g. a web framework's parsed query).
 */
export type ReturnQuery = string | { readonly searchParams: SearchParamsLike } | SearchParamsLike | Readonly<Record<string, string>>;

export interface ReturnCheck {
  readonly now?: Date;
  /** When given, a return_time older than this (or this far in the future) is refused. */
  readonly maxAgeSeconds?: number;
}

// A name given twice is refused, not read as its last value: the signature covers one value per
// name, and a page that read the first (as many web frameworks do) would act on a value the
// shopper slipped in before the signed one (`?order_status=1&…&order_status=0&…`). The gateway
// never sends a name twice (return_url and cancel_url may not repeat one).
function parameters(query: ReturnQuery): Record<string, string> {
  const fields: Record<string, string> = {};
  const add = (value: string, name: string) => {
    if (Object.hasOwn(fields, name)) throw new Error(`${name} given twice`);
    fields[name] = value;
  };
  if (typeof query === 'string') {
    const at = query.indexOf('?');
    const search = (at >= 0 ? query.slice(at + 1) : query).split('#')[0] ?? '';
    for (const pair of search.split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
      add(decode(eq >= 0 ? pair.slice(eq + 1) : ''), decode(eq >= 0 ? pair.slice(0, eq) : pair));
    }
  } else if ('searchParams' in query && typeof query.searchParams === 'object' && query.searchParams !== null && typeof query.searchParams.forEach === 'function') {
    query.searchParams.forEach(add);
  } else if ('forEach' in query && typeof query.forEach === 'function') {
    (query as SearchParamsLike).forEach(add);
  } else {
    // A framework's parsed query holds a name given twice as a list: refused like the string's.
    for (const [name, value] of Object.entries(query)) {
      if (typeof value !== 'string') throw new Error(`${name} is not one value`);
      add(value, name);
    }
  }
  return fields;
}

/**
 * The signed outcome of the shopper's return, or null when it does not verify with the secret
 * key (or one of the keys), gives a name twice, or is older than `maxAgeSeconds` when that is
 * given. Read the outcome from what this answers, not from the framework's own parse.
 */
export function verifyReturn(query: ReturnQuery, secretKey: string | readonly string[], options: ReturnCheck = {}): ShopperReturn | null {
  let fields: Record<string, string>;
  try {
    fields = parameters(query);
  } catch {
    return null; // a malformed percent-escape, or a name given twice
  }
  if (!verify(fields, secretKey)) return null;
  if (options.maxAgeSeconds !== undefined) {
    const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
    const sent = /^[0-9]+$/.test(fields.return_time ?? '') ? Number(fields.return_time) : NaN;
    if (!Number.isSafeInteger(sent) || Math.abs(now - sent) > options.maxAgeSeconds) return null;
  }
  return fields as unknown as ShopperReturn;
}
