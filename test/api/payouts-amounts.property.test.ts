// Property, through /v1/payout: for both fee_paid_by values and both amount fields, any rate set
// with `acquiro fx set` and any fee set with `acquiro accounts payout-fees set`, the answer's
// amounts follow the formula of docs/payouts.md to the minor unit, computed here on exact
// integers independently of the gateway's arithmetic.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import { exponentOf, formatAmount } from '../../src/domain/money.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectLedgerBalanced } from '../support/lifecycle.ts';
import { accountArgs, payoutBody, topUp } from '../support/payouts.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ clock: new FakeClock('2026-11-22T10:15:00Z') });
});
afterAll(() => gw?.close());

const BENEFICIARIES: Record<string, Record<string, unknown>> = {
  EUR: { bank_country_code: 'DE', account_currency: 'EUR', iban: 'DE89370400440532013000', swift_code: 'DEUTDEFF' },
  GBP: { bank_country_code: 'GB', account_currency: 'GBP', iban: 'GB29NWBK60161331926819', swift_code: 'NWBKGB2L' },
  JPY: { bank_country_code: 'JP', account_currency: 'JPY', account_number: '1234567', swift_code: 'BOTKJPJT' },
  USD: { bank_country_code: 'US', account_currency: 'USD', account_number: '123456789', swift_code: 'CHASUS33' },
};

const caseArb = fc.record({
  currency: fc.constantFrom('EUR', 'GBP', 'JPY', 'USD'),
  rate: fc.tuple(fc.integer({ min: 1, max: 2_000_000 }), fc.integer({ min: 0, max: 4 })).map(([digits, places]) => (places === 0 ? String(digits) : (digits / 10 ** places).toFixed(places))),
  namesPayment: fc.boolean(),
  amount: fc.integer({ min: 1, max: 500_000 }),
  feePaidBy: fc.constantFrom('PAYER', 'BENEFICIARY'),
  swiftPayer: fc.boolean(),
  fixed: fc.integer({ min: 0, max: 500 }),
  bps: fc.integer({ min: 0, max: 300 }),
  swift: fc.integer({ min: 0, max: 3_000 }),
});

/** The formula, on exact integers: minor payment units per minor source unit is n·10^eP / (d·10^eS). */
function expected(c: typeof caseArb extends fc.Arbitrary<infer T> ? T : never) {
  const rate = c.currency === 'USD' ? '1' : c.rate;
  const [whole, fraction = ''] = rate.split('.');
  const n = BigInt(whole + fraction) * 10n ** BigInt(exponentOf(c.currency));
  const d = 10n ** BigInt(fraction.length) * 10n ** 2n;
  const amount = BigInt(c.amount);
  const S = c.namesPayment ? (amount * d + n - 1n) / n : amount;
  const P = c.namesPayment ? amount : (S * n) / d;
  const F = BigInt(c.fixed) + (S * BigInt(c.bps) * 2n + 10_000n) / 20_000n + (c.swiftPayer ? BigInt(c.swift) : 0n);
  if (c.feePaidBy === 'PAYER') return { S, P, F, pays: S + F, receives: P };
  return { S, P, F, pays: S, receives: S - F > 0n ? ((S - F) * n) / d : 0n };
}

describe('payout amounts, property through HTTP', () => {
  it('follow the formula to the minor unit for both fee payers and both amount fields', async () => {
    const shop = await gw.merchant();
    await topUp(gw, shop, 'USD', '100000000.00');
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const acquiro = (...argv: string[]) => runCommand(argv, gw.gateway.deps);
        if (c.currency !== 'USD') expect((await acquiro('fx', 'set', '--from', 'USD', '--to', c.currency, '--rate', c.rate)).exitCode).toBe(0);
        const fee = ['--fixed', formatAmount(c.fixed, 'USD'), '--percent', (c.bps / 100).toFixed(2), '--swift', formatAmount(c.swift, 'USD')];
        expect((await acquiro('accounts', 'payout-fees', 'set', ...accountArgs(shop), '--currency', 'USD', ...fee)).exitCode).toBe(0);
        const want = expected(c);
        const answer = await shop.post(
          '/v1/payout',
          payoutBody(shop, {
            payment_method: 'SWIFT',
            payment_currency: c.currency,
            source_currency: 'USD',
            payment_amount: c.namesPayment ? formatAmount(c.amount, c.currency) : undefined,
            source_amount: c.namesPayment ? undefined : formatAmount(c.amount, 'USD'),
            fee_paid_by: c.feePaidBy,
            swift_charge_option: c.swiftPayer ? 'PAYER' : 'SHARED',
            beneficiary: { entity_type: 'COMPANY', company_name: 'Acme', bank_details: { account_name: 'Acme', ...BENEFICIARIES[c.currency] } },
          }),
        );
        if (want.P <= 0n || want.receives <= 0n) {
          expect(answer.status).toBe(400);
          expect(answer.body.return_message).toMatch(/^4003:/);
          return;
        }
        expect(answer.status, answer.raw).toBe(200);
        accepted += 1;
        expect(answer.body).toMatchObject({
          fx_rate: c.currency === 'USD' ? '1' : c.rate,
          source_amount: formatAmount(Number(want.S), 'USD'),
          payment_amount: formatAmount(Number(want.P), c.currency),
          fee_amount: Number(want.F),
          fee_currency: 'USD',
          amount_payer_pays: Number(want.pays),
          amount_beneficiary_receives: Number(want.receives),
        });
      }),
      { numRuns: 40 },
    );
    expect(accepted).toBeGreaterThan(20);
    await expectLedgerBalanced(gw);
  });
});
