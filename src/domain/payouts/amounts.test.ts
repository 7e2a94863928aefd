import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exponentOf } from '../money.ts';
import { inverseRate, parseRate, payoutAmounts, percentageOf, type FeePaidBy, type Rate } from './amounts.ts';

const fees = { fixedMinor: 150, basisPoints: 50, swiftChargeMinor: 2500 };

describe('payoutAmounts, worked examples', () => {
  it('names the beneficiary amount exactly and rounds the payer amount up', () => {
    const result = payoutAmounts({
      payment: { minor: 10_000, currency: 'EUR' },
      paymentCurrency: 'EUR',
      sourceCurrency: 'USD',
      rate: parseRate('0.92')!,
      fees,
      feePaidBy: 'PAYER',
      payerPaysSwiftCharge: false,
    });
    // 100.00 EUR at 0.92 EUR per USD is 108.6956… USD: 108.70, rounded up.
    expect(result).toMatchObject({
      transferSource: { minor: 10_870, currency: 'USD' },
      transferPayment: { minor: 10_000, currency: 'EUR' },
      fee: { minor: 150 + 54, currency: 'USD' },
      amountPayerPays: { minor: 10_870 + 204, currency: 'USD' },
      amountBeneficiaryReceives: { minor: 10_000, currency: 'EUR' },
    });
  });

  it('converts between currencies of different exponents, rounding the beneficiary down', () => {
    const result = payoutAmounts({
      source: { minor: 1_001, currency: 'USD' },
      paymentCurrency: 'JPY',
      sourceCurrency: 'USD',
      rate: parseRate('153.27')!,
      fees: { fixedMinor: 0, basisPoints: 0, swiftChargeMinor: 0 },
      feePaidBy: 'PAYER',
      payerPaysSwiftCharge: false,
    });
    // 10.01 USD × 153.27 = 1534.2327 JPY → 1534.
    expect(result).toMatchObject({ transferPayment: { minor: 1_534, currency: 'JPY' }, amountPayerPays: { minor: 1_001 } });
  });

  it('takes the fee from the beneficiary when told, and the SWIFT charge when the payer bears it', () => {
    const result = payoutAmounts({
      source: { minor: 100_000, currency: 'GBP' },
      paymentCurrency: 'GBP',
      sourceCurrency: 'GBP',
      fees,
      feePaidBy: 'BENEFICIARY',
      payerPaysSwiftCharge: true,
    });
    expect(result).toMatchObject({
      fee: { minor: 150 + 500 + 2_500 },
      amountPayerPays: { minor: 100_000 },
      amountBeneficiaryReceives: { minor: 100_000 - 3_150 },
    });
  });

  it('refuses what cannot be paid: no rate between two currencies, a fee larger than the transfer', () => {
    const base = { paymentCurrency: 'EUR', sourceCurrency: 'USD', fees, feePaidBy: 'PAYER' as const, payerPaysSwiftCharge: false };
    expect(payoutAmounts({ ...base, source: { minor: 100, currency: 'USD' } })).toEqual({ problem: 'missing_rate' });
    expect(
      payoutAmounts({ ...base, sourceCurrency: 'EUR', source: { minor: 100, currency: 'EUR' }, feePaidBy: 'BENEFICIARY' }),
    ).toEqual({ problem: 'fee_exceeds_transfer' });
  });

  it('reads rates exactly and refuses what is not a positive decimal', () => {
    expect(parseRate('0.9213')).toEqual({ numerator: 9213n, denominator: 10_000n, text: '0.9213' });
    for (const bad of ['0', '0.000', '-1', '1e3', '1.', '.5', 'abc', '']) expect(parseRate(bad), bad).toBeNull();
  });

  it('inverts a rate to 12 decimal places, half up, exact where it can be', () => {
    expect(inverseRate(parseRate('153')!)?.text).toBe('0.006535947712');
    expect(inverseRate(parseRate('0.8')!)?.text).toBe('1.25');
    expect(inverseRate(parseRate('3')!)?.text).toBe('0.333333333333');
    expect(inverseRate(parseRate('1.5')!)?.text).toBe('0.666666666667');
    expect(inverseRate(parseRate('0.0000001')!)?.text).toBe('10000000');
    expect(inverseRate(parseRate('400000000000')!)?.text).toBe('0.000000000003');
    expect(inverseRate(parseRate('999999999999')!)?.text).toBe('0.000000000001');
  });

  it('rounds the percentage half up', () => {
    expect(percentageOf(10_870, 50)).toBe(54); // 54.35
    expect(percentageOf(10_900, 50)).toBe(55); // 54.5
    expect(percentageOf(10_899, 50)).toBe(54); // 54.495
  });
});

// The formula, checked with exact fractions independently of the implementation's steps.
const CURRENCIES = ['USD', 'EUR', 'JPY', 'KWD', 'GBP', 'BHD', 'CLP'];
const rateArb = fc
  .tuple(fc.integer({ min: 1, max: 99_999_999 }), fc.integer({ min: 0, max: 6 }))
  .map(([digits, places]) => {
    const text = places === 0 ? String(digits) : `${Math.floor(digits / 10 ** places)}.${String(digits % 10 ** places).padStart(places, '0')}`;
    return parseRate(text);
  })
  .filter((rate): rate is Rate => rate !== null);

const payoutArb = fc.tuple(
  fc.constantFrom(...CURRENCIES),
  fc.constantFrom(...CURRENCIES),
  rateArb,
  fc.integer({ min: 1, max: 1e10 }),
  fc.boolean(),
  fc.constantFrom<FeePaidBy>('PAYER', 'BENEFICIARY'),
  fc.record({ fixedMinor: fc.integer({ min: 0, max: 10_000 }), basisPoints: fc.integer({ min: 0, max: 1_000 }), swiftChargeMinor: fc.integer({ min: 0, max: 5_000 }) }),
  fc.boolean(),
);

type PayoutCase = typeof payoutArb extends fc.Arbitrary<infer T> ? T : never;

function run([sourceCurrency, paymentCurrency, rate, amount, namesPayment, feePaidBy, schedule, swift]: PayoutCase) {
  return payoutAmounts({
    ...(namesPayment ? { payment: { minor: amount, currency: paymentCurrency } } : { source: { minor: amount, currency: sourceCurrency } }),
    paymentCurrency,
    sourceCurrency,
    rate,
    fees: schedule,
    feePaidBy,
    payerPaysSwiftCharge: swift,
  });
}

describe('payoutAmounts, property: both fee payers and both amount fields follow the formula to the minor unit', () => {
  it('holds for any currencies, rate, fee and amount', () => {
    fc.assert(
      fc.property(payoutArb, (input) => {
        const [sourceCurrency, paymentCurrency, givenRate, amount, namesPayment, feePaidBy, schedule, swift] = input;
        const result = run(input);
        if ('problem' in result) {
          // Only what the rules allow to fail may fail; a too-large result is one past 10^14 minor units.
          expect(['fee_exceeds_transfer', 'rounds_to_zero', 'too_large']).toContain(result.problem);
          return;
        }
        const rate = sourceCurrency === paymentCurrency ? { numerator: 1n, denominator: 1n } : givenRate;
        // payment minor = source minor × num/den, in minor units.
        const shift = exponentOf(paymentCurrency) - exponentOf(sourceCurrency);
        const num = shift >= 0 ? rate.numerator * 10n ** BigInt(shift) : rate.numerator;
        const den = shift >= 0 ? rate.denominator : rate.denominator * 10n ** BigInt(-shift);
        const S = BigInt(result.transferSource.minor);
        const P = BigInt(result.transferPayment.minor);
        if (namesPayment) {
          // The least source amount that buys at least the payment: rounded up.
          expect(P).toBe(BigInt(amount));
          expect(S * num >= P * den).toBe(true);
          expect((S - 1n) * num < P * den).toBe(true);
        } else {
          // The payment the source buys, rounded down.
          expect(S).toBe(BigInt(amount));
          expect(P * den <= S * num && S * num < (P + 1n) * den).toBe(true);
        }
        const F = BigInt(schedule.fixedMinor) + (S * BigInt(schedule.basisPoints) * 2n + 10_000n) / 20_000n + (swift ? BigInt(schedule.swiftChargeMinor) : 0n);
        expect(BigInt(result.fee.minor)).toBe(F);
        const pays = BigInt(result.amountPayerPays.minor);
        const receives = BigInt(result.amountBeneficiaryReceives.minor);
        if (feePaidBy === 'PAYER') {
          expect(pays).toBe(S + F);
          expect(receives).toBe(P);
        } else {
          expect(pays).toBe(S);
          expect(receives * den <= (S - F) * num && (S - F) * num < (receives + 1n) * den).toBe(true);
        }
        expect(result.fee.currency).toBe(sourceCurrency);
        expect(result.amountPayerPays.currency).toBe(sourceCurrency);
        expect(result.amountBeneficiaryReceives.currency).toBe(paymentCurrency);
        expect(receives > 0n && pays > 0n).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it('is not vacuous: most generated payouts are payable', () => {
    const samples = fc.sample(payoutArb, 1_000);
    const payable = samples.filter((input) => !('problem' in run(input)));
    expect(payable.length).toBeGreaterThan(samples.length / 2);
  });
});
