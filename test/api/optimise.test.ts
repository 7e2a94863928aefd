// /v1/optimisePaymentMethods: the methods an account can offer for an order, ranked by approval
// rate on its own similar payments, with the figures and the basis each rate rests on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardPayment, orderNo } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';
import { shopper } from '../support/shopper.ts';

let gw: TestGateway;
let shop: SignedClient;

const order = { currency: 'EUR', billing_country: 'DE', device_type: 'desktop' };

async function apm(method: string, answer: 'approve' | 'decline' | 'abandon' | undefined, overrides: Record<string, unknown> = {}) {
  const started = await shop.post('/v1/authorise', {
    ...shop.ids,
    ...order,
    payment_method: method,
    order_no: orderNo('APM'),
    amount: '20.00',
    return_url: 'https://shop.example/r',
    ...overrides,
  });
  if (answer) await shopper(gw.gateway.server.app).answer(started.body.issuer_url, { action: answer });
}

beforeAll(async () => {
  gw = await startTestGateway();
  shop = await gw.merchant({ rateLimitPerSecond: 10_000 });
  const card = (overrides: Record<string, unknown>) => shop.post('/v1/authorise', cardPayment(shop.ids, { ...order, amount: '20.00', ...overrides }));
  // Cards, 10–99.99 EUR, Germany, desktop: 6 approved, 6 declined.
  for (let i = 0; i < 6; i++) await card({});
  for (let i = 0; i < 6; i++) await card({ card: i % 2 ? '4000000000000002' : '4000000000009995' });
  // Cards, 100–999.99 EUR: 10 approved.
  for (let i = 0; i < 10; i++) await card({ amount: '500.00' });
  // Not decisions of the method: risk's own refusal, a payment still waiting, an abandoned APM.
  await card({ card: '4100000000000019' });
  await card({ card: '4000000000003220' });
  await apm('sandbox_redirect', 'abandon');
  await apm('sandbox_redirect', undefined);
  // sandbox_redirect, 10–99.99 EUR, Germany, desktop: 10 approved.
  for (let i = 0; i < 10; i++) await apm('sandbox_redirect', 'approve');
  // sandbox_bank through the offline bank: 3 declined at once, on phones.
  for (let i = 0; i < 3; i++) await apm('sandbox_bank', undefined, { bank_code: 'SBX009', device_type: 'Android phone' });
}, 120_000);
afterAll(() => gw?.close());

const ask = (client: SignedClient, body: Record<string, unknown>) => client.post('/v1/optimisePaymentMethods', { ...client.ids, ...body });
const ranking = (answer: { body: Record<string, any> }) =>
  (answer.body.payment_methods as Record<string, string>[]).map((m) => [m.rank, m.payment_method, m.attempts, m.approved, m.approval_rate, m.basis]);

describe('optimise payment methods', () => {
  it('ranks the methods the account can offer by approval rate on similar orders, with the figures', async () => {
    const answer = await ask(shop, { ...order, amount: '25.00' });
    expect(answer.status).toBe(200);
    expect(answer.signed).toBe(true);
    expect(answer.body).toMatchObject({
      currency: 'EUR',
      amount: '25.00',
      billing_country: 'DE',
      device_type: 'desktop',
      device_class: 'desktop',
      amount_band: '10.00-99.99',
      window_days: '90',
      return_status: '1',
      return_message: 'OK',
    });
    expect(ranking(answer)).toEqual([
      ['1', 'sandbox_redirect', '10', '10', '1.0000', 'currency+country+amount_band+device'],
      ['2', 'card', '12', '6', '0.5000', 'currency+country+amount_band+device'],
      ['3', 'sandbox_bank', '3', '0', '0.0000', 'currency'],
      ['4', 'sandbox_wallet', '0', '0', '', 'currency'],
    ]);
    // sandbox_voucher takes no EUR: not offered.
    expect(answer.body.payment_methods.map((m: Record<string, string>) => m.payment_method)).not.toContain('sandbox_voucher');
  });

  it('widens a thin history step by step, device first, and breaks ties by sample then name', async () => {
    const large = await ask(shop, { ...order, amount: '600.00' });
    expect(large.body.amount_band).toBe('100.00-999.99');
    expect(ranking(large).slice(0, 2)).toEqual([
      ['1', 'card', '10', '10', '1.0000', 'currency+country+amount_band+device'],
      ['2', 'sandbox_redirect', '10', '10', '1.0000', 'currency+country'],
    ]);
    const phone = await ask(shop, { ...order, amount: '25.00', device_type: 'iPhone 15' });
    expect(phone.body.device_class).toBe('mobile');
    expect(ranking(phone)[1]).toEqual(['2', 'card', '12', '6', '0.5000', 'currency+country+amount_band']);
    const anywhere = await ask(shop, { currency: 'EUR', amount: '25.00' });
    expect(ranking(anywhere).map((row) => [row[1], row[5]])).toEqual([
      ['sandbox_redirect', 'currency+amount_band'],
      ['card', 'currency+amount_band'],
      ['sandbox_bank', 'currency'],
      ['sandbox_wallet', 'currency'],
    ]);
  });

  it('gives the same answer to the same question', async () => {
    const [a, b] = await Promise.all([ask(shop, { ...order, amount: '25.00' }), ask(shop, { ...order, amount: '25.00' })]);
    expect(a.body.payment_methods).toEqual(b.body.payment_methods);
  });

  it('reads only the asking account’s history', async () => {
    const other = await gw.merchant();
    const answer = await ask(other, { ...order, amount: '25.00' });
    expect(ranking(answer)).toEqual([
      ['1', 'card', '0', '0', '', 'currency'],
      ['2', 'sandbox_bank', '0', '0', '', 'currency'],
      ['3', 'sandbox_redirect', '0', '0', '', 'currency'],
      ['4', 'sandbox_wallet', '0', '0', '', 'currency'],
    ]);
  });

  it('offers the voucher where it serves the currency and the country', async () => {
    const answer = await ask(shop, { currency: 'BRL', amount: '80.00', billing_country: 'BR' });
    expect(answer.body.payment_methods.map((m: Record<string, string>) => m.payment_method)).toEqual([
      'card', 'sandbox_bank', 'sandbox_redirect', 'sandbox_voucher', 'sandbox_wallet',
    ]);
  });

  it.each([
    [{ amount: '25.00' }, 400, '4001:currency is required'],
    [{ currency: 'EUR' }, 400, '4001:amount is required'],
    [{ currency: 'EUR', amount: '1.234' }, 400, '4003:amount is invalid: expected at most the decimals EUR has'],
    [{ currency: 'XYZ', amount: '1.00' }, 400, '4004:currency XYZ is not a supported ISO 4217 currency'],
    [{ currency: 'EUR', amount: '1.00', billing_country: 'XX' }, 400, '4002:billing_country is invalid: expected an ISO 3166 two-letter country code'],
  ])('refuses %o with %s', async (body, status, message) => {
    const answer = await ask(shop, body);
    expect([answer.status, answer.body.return_status, answer.body.return_message, answer.signed]).toEqual([status, '0', message, true]);
  });

  it('refuses a wrong signature (401) and an unknown account (404)', async () => {
    const unsigned = await shop.post('/v1/optimisePaymentMethods', { ...shop.ids, currency: 'EUR', amount: '1.00', encryption_data: 'ab'.repeat(32) });
    const unknown = await shop.post('/v1/optimisePaymentMethods', { ...shop.ids, merchant_id: 'M999999', currency: 'EUR', amount: '1.00' });
    expect([unsigned.status, unsigned.body.return_message.split('; sandbox:')[0]]).toEqual([401, '4401:encryption_data does not match the body']);
    expect([unknown.status, unknown.body.return_message]).toEqual([404, '4404:unknown merchant_id/account_id']);
  });
});
