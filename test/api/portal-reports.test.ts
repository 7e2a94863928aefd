// Balances, the settlement report (page and CSV) and the activity charts over HTTP: sums from
// the ledger of the member's merchant only, formulas never in the CSV, charts as inline SVG.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import type { SignedClient } from '../support/client.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { pay, refund } from '../support/lifecycle.ts';
import { createMember, signIn, type PortalClient } from '../support/portal.ts';

let gw: TestGateway;
let shop: SignedClient;
let other: SignedClient;
let staff: PortalClient;
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  gw = await startTestGateway();
  shop = await gw.merchant({ feeBps: 200 });
  other = await gw.merchant();
  const first = await pay(shop, { amount: '100.00' });
  await pay(shop, { amount: '50.00' });
  await pay(shop, { currency: 'EUR', amount: '20.00' });
  await pay(shop, { card: '4000000000000002' });
  await pay(shop, { card: '4000000000009995' });
  await refund(shop, first, '30.00');
  await pay(other, { amount: '777.00' });
  const topup = await runCommand(['balance', 'topup', '--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id, '--currency', 'USD', '--amount', '5.00'], gw.gateway.deps);
  expect(topup.exitCode).toBe(0);
  staff = await signIn(gw, await createMember(gw, shop.ids.merchant_id, 'viewer'));
}, 120_000);
afterAll(() => gw?.close());

describe('portal balances', () => {
  it('shows pending, available and reserved per currency from the ledger', async () => {
    const page = await staff.get('/portal/balances');
    expect(page.status).toBe(200);
    // 150.00 captured − 3.00 fees − 30.00 refunded = 117.00 pending; 5.00 topped up.
    expect(page.body).toMatch(/<h3>USD<\/h3><dl><dt>Pending<\/dt><dd>117\.00 USD<\/dd><dt>Available<\/dt><dd>5\.00 USD<\/dd><dt>Reserved<\/dt><dd>0\.00 USD<\/dd>/);
    expect(page.body).toContain('19.60 EUR');
    expect(page.body).not.toContain('777');
  });
});

describe('portal settlement report', () => {
  it('sums each day’s captured, refunded, fees and net', async () => {
    const page = await staff.get('/portal/reports');
    expect(page.status).toBe(200);
    expect(page.body).toContain(`<td>${today}</td><td>USD</td><td class="num">150.00</td><td class="num">30.00</td><td class="num">3.00</td><td class="num">117.00</td>`);
    expect(page.body).toContain(`<td>${today}</td><td>EUR</td><td class="num">20.00</td><td class="num">0.00</td><td class="num">0.40</td><td class="num">19.60</td>`);
    expect(page.body).not.toContain('777.00');
  });

  it('exports it as CSV, one currency when asked', async () => {
    const answer = await staff.get(`/portal/reports/settlement.csv?from=${today}&to=${today}&currency=USD`);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/csv/);
    expect(answer.body).toBe(`"day","currency","captured","refunded","fees","net"\r\n"${today}","USD","150.00","30.00","3.00","117.00"\r\n`);
  });

  it('draws the charts as inline SVG: volume, approval rate, decline reasons', async () => {
    const page = await staff.get('/portal/reports?currency=USD');
    expect(page.body).toContain('Approved volume per day (USD)');
    expect(page.body).toContain(`${today}: 150.00 USD`);
    // 3 approved of 5 decided (EUR included), 2 declined.
    expect(page.body).toContain(`${today}: 60% of 5`);
    expect(page.body).toContain('2001:Declined: 1');
    expect(page.body).toContain('2002:Declined: insufficient funds: 1');
    expect(page.body).toContain('<svg class="chart"');
    expect(page.body).not.toMatch(/<script(?![^>]*\ssrc=)|\sstyle="/);
  });

  it.each([
    ['from=2026-13-01', 'from'],
    ['from=2026-02-02&to=2026-02-01', 'to'],
    ['from=2020-01-01&to=2026-01-01', 'from'],
    ['currency=XXQ', 'currency'],
  ])('refuses %s with a 400 naming the field', async (query, field) => {
    const answer = await staff.get(`/portal/reports?${query}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toContain(field);
  });
});
