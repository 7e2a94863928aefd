// Request validation shared by every operation: a TypeBox schema checks shapes and formats, and
// the first failure becomes a 400 whose message names the field (`4001:order_no is required`).
// Bodies reach here normalised: every leaf is a string (docs/signing.md signs them as text).
import Type, { type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import countries from 'i18n-iso-countries';
import { AppError } from '../../domain/errors.ts';
import { normaliseIp } from '../../domain/ip.ts';
import { isCurrency, parseAmount } from '../../domain/money.ts';
import { GATEWAY_RETURN_NAMES } from '../../domain/return-fields.ts';

export interface Validator<S extends TSchema> {
  readonly schema: S;
  parse(body: unknown): Static<S>;
}

/**
 * A string field: `hint` says, in the refusal, what a valid value looks like. `freeText` marks
 * text a person types (notes, names, addresses, item names), where a card number typed by mistake
 * is masked before the request is kept (src/http/request-fields.ts); identifiers never are.
 */
export function Text(options: { max: number; pattern?: string; hint?: string; min?: number; freeText?: boolean }) {
  return Type.String({
    minLength: options.min ?? 1,
    maxLength: options.max,
    ...(options.pattern ? { pattern: options.pattern } : {}),
    hint: options.hint ?? (options.pattern ? 'wrong format' : `at most ${options.max} characters`),
    ...(options.freeText ? { freeText: true } : {}),
  });
}

export const Decimal = Text({ max: 20, pattern: '^(0|[1-9][0-9]*)(\\.[0-9]{1,6})?$', hint: 'a decimal such as 10.00' });
export const Integer = Text({ max: 15, pattern: '^[0-9]+$', hint: 'an integer' });
export const Country = Text({ max: 2, pattern: '^[A-Z]{2}$', hint: 'an ISO 3166 two-letter country code' });
export const CurrencyCode = Text({ max: 3, pattern: '^[A-Z]{3}$', hint: 'an ISO 4217 three-letter currency code' });
// The scheme is case-insensitive (RFC 3986 §3.1): `HTTPS://` is taken, and kept as `https://` (lowerScheme).
export const Url = Text({ max: 2048, pattern: '^[hH][tT][tT][pP][sS]?://[^\\s<>"]+$', hint: 'an http(s) URL' });
export const Email = Text({ max: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', hint: 'an email address' });
export const Flag = Text({ max: 1, pattern: '^[01]$', hint: '0 or 1' });

/** A list field: a JSON array, repeated XML elements, or `name[i]` in a form. */
export function List<S extends TSchema>(item: S, max = 100) {
  return Type.Array(item, { minItems: 1, maxItems: max, hint: `a list of 1 to ${max} entries` });
}

export function compile<S extends TSchema>(schema: S): Validator<S> {
  const compiled = Compile(schema);
  return {
    schema,
    parse(body) {
      if (compiled.Check(body)) return body as Static<S>;
      for (const error of compiled.Errors(body)) throw refusal(schema, error);
      throw new AppError('malformed_body');
    },
  };
}

interface SchemaError {
  readonly keyword: string;
  readonly schemaPath: string;
  readonly instancePath: string;
  readonly params: Record<string, unknown>;
}

function refusal(schema: TSchema, error: SchemaError): AppError {
  const at = fieldPath(error.instancePath);
  if (error.keyword === 'required') {
    const missing = (error.params.requiredProperties as string[] | undefined)?.[0] ?? '?';
    const field = at ? `${at}.${missing}` : missing;
    return new AppError('missing_field', `${field} is required`, { field });
  }
  const node = resolvePointer(schema, error.schemaPath) as { hint?: string; type?: string } | undefined;
  const expected =
    error.keyword === 'type' ? (node?.type === 'array' ? 'a list' : node?.type === 'object' ? 'an object' : 'text') : node?.hint;
  const field = at || 'body';
  return new AppError('invalid_field', `${field} is invalid: expected ${expected ?? 'another value'}`, { field });
}

/** `/cart_items/0/basic_item_data/name` → `cart_items[0].basic_item_data.name` */
export function fieldPath(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

function resolvePointer(root: unknown, pointer: string): unknown {
  let node = root as Record<string, unknown> | undefined;
  for (const part of pointer.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')] as Record<string, unknown> | undefined;
  }
  return node;
}

// Checks a schema cannot express. Each throws the refusal that names the field.

export function invalid(field: string, expected: string): AppError {
  return new AppError('invalid_field', `${field} is invalid: expected ${expected}`, { field });
}

/** `HTTPS://shop.example/N` → `https://shop.example/N`: only the scheme changes (a Url's is http or https). */
export function lowerScheme(url: string): string {
  return url.replace(/^[a-z]+:/i, (scheme) => scheme.toLowerCase());
}

/**
 * A URL the shopper is sent back to with the signed outcome added to its query (return_url,
 * cancel_url): one the URL parser reads, each query name in it at most once, none of the
 * outcome's (the gateway would replace its value). The signature covers
 * one value per name, and the SDK refuses a return that gives a name twice (a value slipped in
 * before the signed one would fool a page that reads the first), so such a URL could never verify.
 */
export function checkReturnTarget(url: string, field: string): void {
  let names: string[];
  try {
    names = [...new URL(url).searchParams.keys()];
  } catch {
    throw invalid(field, 'an http(s) URL');
  }
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw invalid(field, `each query name once (${twice} is given twice)`);
  // The gateway's own names would be overwritten by the outcome: refused rather than lost.
  const taken = names.find((name) => GATEWAY_RETURN_NAMES.has(name));
  if (taken !== undefined) throw invalid(field, `query names of your own (${taken} is one the gateway adds to the return)`);
}

export function checkCurrency(code: string, field = 'currency'): string {
  if (!isCurrency(code)) throw new AppError('invalid_currency', `${field} ${code} is not a supported ISO 4217 currency`, { field });
  return code;
}

/** A positive amount in the currency's minor units. */
export function checkAmount(text: string, currency: string, field = 'amount'): number {
  const parsed = parseAmount(text, currency);
  if ('minor' in parsed) return parsed.minor;
  const why = {
    format: 'a decimal with a dot separator, such as 10.00',
    precision: `at most the decimals ${currency} has`,
    zero: 'an amount greater than zero',
    too_large: 'a smaller amount',
  }[parsed.problem];
  throw new AppError('invalid_amount', `${field} is invalid: expected ${why}`, { field });
}

/** An amount that may be zero (order breakdown fields such as shipping or discount). */
export function checkBreakdownAmount(text: string, currency: string, field: string): number {
  return /^0+(\.0+)?$/.test(text) ? 0 : checkAmount(text, currency, field);
}

export function checkCountry(code: string, field: string): string {
  if (!countries.isValid(code)) throw invalid(field, 'an ISO 3166 two-letter country code');
  return code;
}

/** The address as the blocklist and velocity rules compare it (src/domain/ip.ts). */
export function checkIp(text: string, field: string): string {
  const address = normaliseIp(text);
  if (!address) throw invalid(field, 'an IPv4 or IPv6 address');
  return address;
}
