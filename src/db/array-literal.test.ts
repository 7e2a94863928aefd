import fc from 'fast-check';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { arrayLiteral, withArrayLiterals } from './array-literal.ts';

const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue: (value: unknown) => unknown };

// Text built to hold the characters an element's quoting is about, and others beside.
const text = fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', ',', '{', '}', '\\', '"', "'", 'é', '漢', '\u{1F600}', 'N', 'U', 'L') });
const element = fc.oneof(
  text,
  fc.constant(null),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.date({ noInvalidDate: true }),
  fc.dictionary(text, fc.oneof(text, fc.integer())),
);
const nested = fc.letrec((tie) => ({ array: fc.array(fc.oneof({ depthSize: 'small' }, element, tie('array')), { maxLength: 6 }) })).array;

describe('arrayLiteral', () => {
  it("is node-postgres' own literal for any array of text, numbers, booleans, dates, objects, nulls and arrays", () => {
    fc.assert(
      fc.property(nested, (values) => {
        expect(arrayLiteral(values)).toBe(prepareValue(values));
      }),
      { numRuns: 2_000 },
    );
  });

  it('quotes backslashes and double quotes, and leaves an array of binary data to node-postgres', () => {
    expect(arrayLiteral(['a"b', 'c\\d', null, undefined, 'NULL'])).toBe('{"a\\"b","c\\\\d",NULL,NULL,"NULL"}');
    expect(arrayLiteral(['x', [Buffer.from('ab')]])).toBeUndefined();
    const bytes = [Buffer.from('ab')];
    expect(withArrayLiterals([1, 'text', ['a'], bytes])).toEqual([1, 'text', '{"a"}', bytes]);
  });
});
