// The hot statements' parameters as src/db/params.ts writes them read back as the values they
// were, on both engines: any string (quotes, backslashes, braces, commas, `NULL`, empty), nulls,
// integers, and instants.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrayLiteral, timestampParam } from '../../src/db/params.ts';
import { openTestDatabase, type TestDatabase } from '../support/gateway.ts';

let test: TestDatabase;
beforeAll(async () => {
  test = await openTestDatabase();
});
afterAll(() => test?.drop());

const readBack = async <T>(sql: string, param: unknown): Promise<T> => (await test.database.query<{ value: T }>(sql, [param]))[0]!.value;

describe('hot statement parameters', () => {
  it('a text array literal reads back as its strings and nulls', async () => {
    const tricky = fc.constantFrom('', 'NULL', 'null', '"', '\\', '\\"', '{}', '{a,b}', ',', ' ', 'a b', '{"x":"y\\\\z"}', 'é€😀', '\t\n');
    const element = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), tricky, fc.constant(null));
    await fc.assert(
      fc.asyncProperty(fc.array(element, { maxLength: 12 }), async (values) => {
        const back = await readBack<string[] | string>('SELECT $1::text[] AS value', arrayLiteral(values));
        expect(back).toEqual(values);
      }),
      { numRuns: 150 },
    );
  });

  it('a bigint array literal reads back as its integers, beyond 32 bits', async () => {
    const values = [0, -1, 1050, 2 ** 31, -(2 ** 40), Number.MAX_SAFE_INTEGER, null];
    const back = await readBack<(string | null)[]>('SELECT $1::bigint[]::text[] AS value', arrayLiteral(values));
    expect(back).toEqual(values.map((value) => (value === null ? null : String(value))));
  });

  it('timestamps, alone and in arrays, read back as the same instants', async () => {
    const instants = [new Date('2026-11-24T03:04:05.678Z'), new Date('1999-12-31T23:59:59.999Z'), new Date(0)];
    for (const instant of instants) {
      const back = await readBack<string>(`SELECT to_char($1::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS value`, timestampParam(instant));
      expect(back).toBe(instant.toISOString());
    }
    const back = await readBack<string[]>(
      `SELECT array_agg(to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) AS value FROM unnest($1::timestamptz[]) AS t`,
      arrayLiteral(instants),
    );
    expect(back).toEqual(instants.map((instant) => instant.toISOString()));
  });

  it('refuses an element it cannot write', () => {
    expect(() => arrayLiteral([['nested']])).toThrow(TypeError);
    expect(() => arrayLiteral([{ a: 1 }])).toThrow(TypeError);
  });
});
