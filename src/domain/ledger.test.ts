import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { feeFor, feeOf } from './ledger.ts';
import { MAX_MINOR } from './money.ts';

describe('the fee on a captured amount', () => {
  it('rounds half up to the minor unit', () => {
    expect(feeFor(700, 250)).toBe(18); // 17.5
    expect(feeFor(600, 250)).toBe(15);
    expect(feeFor(19, 250)).toBe(0); // 0.475
    expect(feeOf(10_000, 'USD', { feeBps: 0, fees: { USD: { fixed: 30, bps: 290 } } })).toBe(320);
  });

  it('is exact for every amount the gateway accepts, past 2^53 in the product', () => {
    expect(feeFor(46_448_429_358_391, 289)).toBe(1_342_359_608_457); // a float said …458
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_MINOR }), fc.integer({ min: 0, max: 10_000 }), (amount, bps) => {
        const exact = (BigInt(amount) * BigInt(bps) * 2n + 10_000n) / 20_000n;
        expect(feeFor(amount, bps)).toBe(Number(exact));
      }),
    );
  });
});
