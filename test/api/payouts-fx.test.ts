// Exchange rates configured one way only: a payout the other way converts at the inverse, rounded
// half up to 12 decimal places, and that rounded rate is the one used, stored and echoed as
// fx_rate (docs/payouts.md). A rate configured the payout's own way wins over the inverse; a pair
// configured neither way is refused (4061, nothing stored or reserved).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import { formatAmount } from '../../src/domain/money.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectLedgerBalanced } from '../support/lifecycle.ts';
import { balanceOf, payoutBody, payoutCount, topUp } from '../support/payouts.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ clock: new FakeClock('2026-11-22T10:15:00Z') });
});
afterAll(() => gw?.close());

const fx = (...argv: string[]) => runCommand(['fx', ...argv], gw.gateway.deps);

/** A USD payout by ACH paid from a JPY balance (JPY has no minor unit; USD two). */
const fromYen = (shop: Parameters<typeof payoutBody>[0], fields: Record<string, unknown> = {}) =>
  payoutBody(shop, { source_currency: 'JPY', payment_amount: '100.00', ...fields });

describe('a rate configured the other way only', () => {
  it('converts at the inverse rounded half up to 12 places, echoed as fx_rate, and the amounts follow it', async () => {
    expect((await fx('set', '--from', 'USD', '--to', 'JPY', '--rate', '153')).exitCode).toBe(0);
    const shop = await gw.merchant();
    await topUp(gw, shop, 'JPY', '1000000');

    const answer = await shop.post('/v1/payout', fromYen(shop));
    expect(answer.status, answer.raw).toBe(200);
    // 1 / 153 = 0.006535947712418…, half up at 12 places.
    expect(answer.body.fx_rate).toBe('0.006535947712');
    // S = ⌈P / r⌉ at the rounded rate: 10000 cents / (0.006535947712 · 100) yen = 15300.0000027… → 15301.
    const S = (10_000n * 10n ** 12n + 653_594_771_200n - 1n) / 653_594_771_200n;
    expect(S).toBe(15_301n);
    const F = 1n + (S * 50n * 2n + 10_000n) / 20_000n; // sandbox default: 1 JPY + 0.50 %
    expect(answer.body).toMatchObject({ source_amount: formatAmount(Number(S), 'JPY'), payment_amount: '100.00', fee_amount: Number(F), amount_payer_pays: Number(S + F), amount_beneficiary_receives: 10_000 });
    expect(await balanceOf(gw, shop, 'JPY')).toEqual({ available: String(1_000_000n - S - F), reserved: String(S + F) });

    // The inverse is used, not stored: the table still holds only the pair as set.
    const shown = JSON.parse((await fx('show', '--json')).stdout) as { source_currency: string; payment_currency: string }[];
    expect(shown.filter((r) => [r.source_currency, r.payment_currency].join() === 'JPY,USD')).toEqual([]);
    expect(shown.filter((r) => [r.source_currency, r.payment_currency].join() === 'USD,JPY')).toHaveLength(1);
    // The rate stays on the payout: a repeat answers it as made.
    expect((await shop.post('/v1/payout', fromYen(shop, { request_id: answer.body.request_id }))).body.fx_rate).toBe('0.006535947712');
    await expectLedgerBalanced(gw);
  });

  it('prefers the rate configured the payout’s own way', async () => {
    expect((await fx('set', '--from', 'USD', '--to', 'JPY', '--rate', '153')).exitCode).toBe(0);
    expect((await fx('set', '--from', 'JPY', '--to', 'USD', '--rate', '0.0065')).exitCode).toBe(0);
    const shop = await gw.merchant();
    await topUp(gw, shop, 'JPY', '1000000');
    const answer = await shop.post('/v1/payout', fromYen(shop));
    expect(answer.body).toMatchObject({ fx_rate: '0.0065', source_amount: '15385' });
  });

  it('refuses a pair configured neither way (4061), storing and reserving nothing', async () => {
    const shop = await gw.merchant();
    await topUp(gw, shop, 'CHF', '1000.00');
    const answer = await shop.post('/v1/payout', payoutBody(shop, { source_currency: 'CHF' }));
    expect(answer.status).toBe(400);
    expect(answer.body.return_message).toMatch(/^4061:.*source_currency/);
    expect(await payoutCount(gw, shop)).toBe(0);
    expect(await balanceOf(gw, shop, 'CHF')).toEqual({ available: '1000.00', reserved: '0.00' });
  });
});
