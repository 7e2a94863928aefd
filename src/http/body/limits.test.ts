// The parser's bounds stay above what any operation can legitimately send: adding a deeper field,
// a longer list or many more fields to an operation fails here until limits.ts follows.
import { describe, expect, it } from 'vitest';
import type { TSchema } from 'typebox';
import { CANCEL_LIMIT, CAPTURE_LIMIT, REFUND_LIMIT, REVIEW_LIMIT } from '../batch/operations.ts';
import { ApmPaymentRequest } from '../requests/apm-payment.ts';
import { CardPaymentRequest } from '../requests/card-payment.ts';
import { MAX_DEPTH, MAX_FIELDS, MAX_LIST_ENTRIES } from './limits.ts';

interface Shape {
  type?: string;
  properties?: Record<string, Shape>;
  items?: Shape;
  maxItems?: number;
}

/** Containers from the body down to the deepest leaf, the body included. */
function depth(schema: Shape): number {
  if (schema.type === 'object') return 1 + Math.max(0, ...Object.values(schema.properties ?? {}).map(depth));
  if (schema.type === 'array') return 1 + depth(schema.items!);
  return 0;
}

/** Leaves of a body with every field present and every list full. */
function leaves(schema: Shape): number {
  if (schema.type === 'object') return Object.values(schema.properties ?? {}).reduce((n, child) => n + leaves(child), 0);
  if (schema.type === 'array') return (schema.maxItems ?? Infinity) * leaves(schema.items!);
  return 1;
}

/** The longest list a schema accepts. */
function longest(schema: Shape): number {
  if (schema.type === 'object') return Math.max(0, ...Object.values(schema.properties ?? {}).map(longest));
  if (schema.type === 'array') return Math.max(schema.maxItems ?? Infinity, longest(schema.items!));
  return 0;
}

const schemas: [string, TSchema][] = [
  ['card payment', CardPaymentRequest],
  ['APM payment', ApmPaymentRequest],
];

describe('the parser bounds cover every operation', () => {
  it.each(schemas)('%s: depth, fields and list lengths within the bounds', (_name, schema) => {
    const shape = schema as Shape;
    expect(depth(shape)).toBeLessThanOrEqual(MAX_DEPTH);
    expect(leaves(shape)).toBeLessThanOrEqual(MAX_FIELDS);
    expect(longest(shape)).toBeLessThanOrEqual(MAX_LIST_ENTRIES);
  });

  it('the deepest field sits at 6 and a full card payment holds about half the field bound', () => {
    expect(depth(ApmPaymentRequest as Shape)).toBe(6);
    expect(leaves(CardPaymentRequest as Shape)).toBeGreaterThan(MAX_FIELDS / 4);
  });

  it('batches: the longest batch fits a list, and 100 orders of 10 fields fit the field bound', () => {
    expect(Math.max(CAPTURE_LIMIT, CANCEL_LIMIT, REFUND_LIMIT, REVIEW_LIMIT)).toBeLessThanOrEqual(MAX_LIST_ENTRIES);
    expect(MAX_LIST_ENTRIES * 10).toBeLessThan(MAX_FIELDS);
  });
});
