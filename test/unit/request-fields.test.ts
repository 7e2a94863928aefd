// The one check of a signed request's fields (src/http/request-fields.ts), and docs/security.md's
// table of free-text fields against the operations' schemas.
import { readFileSync } from 'node:fs';
import Type, { type TSchema } from 'typebox';
import { describe, expect, it } from 'vitest';
import { admitFields } from '../../src/http/request-fields.ts';
import { Text } from '../../src/http/requests/validation.ts';
import type { AppError } from '../../src/domain/errors.ts';
import type { Operation } from '../../src/http/operation.ts';
import { authoriseOperation } from '../../src/http/routes/authorise.ts';
import { cancelOperation } from '../../src/http/routes/cancel.ts';
import { captureOperation } from '../../src/http/routes/capture.ts';
import { checkoutOperation } from '../../src/http/routes/checkout.ts';
import { optimiseOperation } from '../../src/http/routes/optimise.ts';
import { queryOperation } from '../../src/http/routes/query.ts';
import { refundSearchOperation } from '../../src/http/routes/refund-search.ts';
import { refundOperation } from '../../src/http/routes/refund.ts';
import { reviewOperation } from '../../src/http/routes/review.ts';

const schema = Type.Object({
  note: Type.Optional(Text({ max: 500, freeText: true })),
  order_no: Type.Optional(Text({ max: 64 })),
  owners: Type.Optional(Type.Array(Type.Object({ name: Type.Optional(Text({ max: 64, freeText: true })) }))),
  sub: Type.Optional(Type.Object({ interval: Type.Optional(Text({ max: 5 })) })),
});

function refusal(body: Record<string, unknown>): string | undefined {
  try {
    admitFields(body, schema);
    return undefined;
  } catch (error) {
    return (error as AppError).info;
  }
}

describe('admitFields', () => {
  it('admits the fields the schema defines, at every depth', () => {
    expect(refusal({ note: 'x', order_no: 'A', owners: [{ name: 'Ana' }], sub: { interval: 'month' } })).toBeUndefined();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['top level', { colour: 'red' }, '4019:colour is not a field of this request'],
    ['nested object', { sub: { interval: 'month', colour: 'red' } }, '4019:sub.colour is not a field of this request'],
    ['list entry', { owners: [{ name: 'A' }, { colour: 'red' }] }, '4019:owners[1].colour is not a field of this request'],
    ['inherited name', { constructor: 'x' }, '4019:constructor is not a field of this request'],
    ['dotted key', { 'sub.interval': 'x' }, '4019:sub.interval is not a field name: letters, digits and _ only'],
    ['key with = and &', { 'a=1&b': 'x' }, '4019:a=1&b is not a field name: letters, digits and _ only'],
    ['ill-named key under a text field', { note: { 'a-b': 'x' } }, '4019:note.a-b is not a field name: letters, digits and _ only'],
    ['control characters, shown as ?', { 'a\nb': 'x' }, '4019:a?b is not a field name: letters, digits and _ only'],
  ])('refuses an unknown or ill-named key: %s', (_name, body, info) => {
    expect(refusal(body)).toBe(info);
  });

  it('never quotes a card number or a long name back', () => {
    expect(refusal({ '4111111111111111': 'x' })).toBe('4019:411111******1111 is not a field of this request');
    const long = refusal({ ['x'.repeat(500)]: 'x' })!;
    expect(long.length).toBeLessThan(120);
  });

  it('leaves a shape the schema does not expect to the operation, checking names only', () => {
    expect(refusal({ note: { text: 'x' } })).toBeUndefined();
    expect(refusal({ sub: ['month'] })).toBeUndefined();
  });

  it('masks card numbers in free-text fields only', () => {
    const body = { note: 'pay 4111 1111 1111 1111', order_no: '4111111111111111', owners: [{ name: 'Ana 5555555555554444' }] };
    admitFields(body, schema);
    expect(body).toEqual({ note: 'pay 411111******1111', order_no: '4111111111111111', owners: [{ name: 'Ana 555555******4444' }] });
  });
});

/** The paths of the free-text fields of a schema, lists as `[i]`. */
function freeTextPaths(node: TSchema, path = ''): string[] {
  const n = node as { type?: string; properties?: Record<string, TSchema>; items?: TSchema; freeText?: boolean };
  if (n.freeText) return [path];
  if (n.type === 'object') return Object.entries(n.properties ?? {}).flatMap(([key, child]) => freeTextPaths(child, path ? `${path}.${key}` : key));
  if (n.type === 'array' && n.items) return freeTextPaths(n.items, `${path}[i]`);
  return [];
}

const schemaOf = (operation: Operation, body: Record<string, unknown> = {}) =>
  typeof operation.schema === 'function' ? operation.schema(body) : operation.schema;

describe('docs/security.md', () => {
  const doc = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
  const rows = Object.fromEntries(
    [...doc.matchAll(/^\| (`\/v1\/[^|]+) \| ([^|]+) \|$/gm)].map((m) => [m[1]!.trim(), [...m[2]!.matchAll(/`([^`]+)`/g)].map((f) => f[1]!)]),
  );
  const card = freeTextPaths(schemaOf(authoriseOperation));
  const apm = freeTextPaths(schemaOf(authoriseOperation, { payment_method: 'sandbox_redirect' }));

  it('lists the free-text fields of card payments and checkouts', () => {
    expect(freeTextPaths(schemaOf(checkoutOperation)).sort()).toEqual(card.sort());
    expect(rows['`/v1/authorise` (card payment), `/v1/checkout`']!.sort()).toEqual(card.sort());
  });

  it('lists the free-text fields of APM payments', () => {
    // The row reads "the same less `cart_items` and `account_owner`, plus …".
    const [less1, less2, ...plus] = rows['`/v1/authorise` (APM payment)']!;
    const same = card.filter((path) => !path.startsWith(`${less1}[`) && !path.startsWith(`${less2}[`));
    expect([...same, ...plus].sort()).toEqual(apm.sort());
  });

  it('lists the free-text fields of the other operations', () => {
    expect(rows['`/v1/refund`']).toEqual(freeTextPaths(schemaOf(refundOperation)));
    for (const operation of [captureOperation, cancelOperation, reviewOperation, queryOperation, refundSearchOperation, optimiseOperation]) {
      expect(freeTextPaths(schemaOf(operation)), operation.name).toEqual([]);
    }
  });
});
