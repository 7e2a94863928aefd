// Subscriptions begun by a card payment, through the HTTP interface: the value rules of the
// `subscription` object (400 naming the field, nothing stored), the answer's fields, the card kept
// in the vault without token_flag, and creation only on approval (directly, by token_id, after
// 3-D Secure, on the hosted page, on a review approval), never for a failed payment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardPayment, orderNo } from '../support/fixtures.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';
import { review, type Txn } from '../support/lifecycle.ts';
import { resolveUnknownPayments, UNKNOWN_AFTER_MS } from '../../src/app/payments/resolve-unknown.ts';
import { returnedOutcome, shopper, type Shopper } from '../support/shopper.ts';
import { MONTHLY, subscribe, subscribing, subscriptionOf } from '../support/subscriptions.ts';

let gw: TestGateway;
let shop: SignedClient;
let browser: Shopper;
const clock = new FakeClock('2026-01-31T10:15:00Z');

beforeAll(async () => {
  gw = await startTestGateway({ clock });
  shop = await gw.merchant();
  browser = shopper(gw.gateway.server.app);
  const ips = await gw.database.query('INSERT INTO account_ips (account_id, cidr) VALUES ($1, $2) RETURNING 1', [shop.ids.account_id, '127.0.0.1/32']);
  expect(ips).toHaveLength(1);
});
afterAll(() => gw?.close());

const rows = (sql: string, params: unknown[] = []) => gw.database.query<Record<string, any>>(sql, params);

describe('the subscription object’s value rules', () => {
  const refusals: [string, Record<string, unknown>, string, string][] = [
    ['contract_name missing', { contract_name: undefined }, '4001', 'subscription.contract_name'],
    ['contract_amount missing', { contract_amount: undefined }, '4001', 'subscription.contract_amount'],
    ['interval missing', { interval: undefined }, '4001', 'subscription.interval'],
    ['contract_name blank', { contract_name: '   ' }, '4001', 'subscription.contract_name'],
    ['only interval_count given', { contract_name: undefined, contract_amount: undefined, interval: undefined, interval_count: '2' }, '4001', 'subscription.contract_name'],
    ['interval hour', { interval: 'hour' }, '4002', 'subscription.interval'],
    ['interval_count 0', { interval_count: '0' }, '4002', 'subscription.interval_count'],
    ['interval_count 1.5', { interval_count: '1.5' }, '4002', 'subscription.interval_count'],
    // 8 000 years: the first recurring charge would fall due past the year 9999 (it was charged, then a 500).
    ['interval_count of 8000 years', { interval: 'year', interval_count: '8000' }, '4002', 'subscription.interval_count'],
    ['billing_cycle -1', { billing_cycle: '-1' }, '4002', 'subscription.billing_cycle'],
    ['promotion_cycle x', { promotion_cycle: 'x' }, '4002', 'subscription.promotion_cycle'],
    ['contract_amount 0', { contract_amount: '0.00' }, '4003', 'subscription.contract_amount'],
    ['contract_amount 1.234 USD', { contract_amount: '1.234' }, '4003', 'subscription.contract_amount'],
    ['contract_amount 10,00', { contract_amount: '10,00' }, '4002', 'subscription.contract_amount'],
    ['contract_start 2026-02-30', { contract_start: '2026-02-30' }, '4002', 'subscription.contract_start'],
    ['contract_start with a time', { contract_start: '2026-03-01T00:00:00' }, '4002', 'subscription.contract_start'],
    ['contract_end before contract_start', { contract_start: '2026-06-01', contract_end: '2026-05-31' }, '4002', 'subscription.contract_end'],
    ['contract_end in the past', { contract_end: '2026-01-30' }, '4002', 'subscription.contract_end'],
    ['an unknown subscription field', { plan: 'x' }, '4019', 'subscription.plan'],
  ];
  it.each(refusals)('refuses %s with 400 naming the field, and stores nothing', async (_name, change, code, field) => {
    const body = subscribing(shop, change);
    const answer = await shop.post('/v1/authorise', body);
    expect(answer.status).toBe(400);
    expect(answer.signed).toBe(true);
    expect(answer.body.result_info).toMatch(new RegExp(`^${code}:`));
    expect(answer.body.result_info).toContain(field);
    expect(await rows('SELECT 1 FROM payments WHERE order_no = $1', [body.order_no])).toEqual([]);
    expect(await rows('SELECT 1 FROM subscriptions WHERE order_no_base = $1', [body.order_no])).toEqual([]);
  });

  it('takes integers as JSON numbers or as text, in every body format', async () => {
    for (const format of ['json', 'form', 'xml', 'json-as-form'] as const) {
      const body = subscribing(shop, { interval_count: format === 'json' ? 3 : '3', billing_cycle: format === 'json' ? 12 : '12', interval: 'week' });
      const answer = await shop.post('/v1/authorise', body, { format });
      expect(answer.status, format).toBe(200);
      expect(answer.body).toMatchObject({ recurring_deduction_period: '3 week', recurring_deduction_time: '2026-02-21 10:15:00' });
    }
  });

  // decisions.md §8 ("when any subscription field is present") and §2 (an empty leaf is as absent):
  // a subscription object whose fields are all empty, as a form template sends them, is no subscription.
  it.each(['json', 'form', 'xml'] as const)('takes a subscription whose every field is empty (%s) as none: the card is charged, no subscription begun', async (format) => {
    const body = cardPayment(shop.ids, { subscription: { contract_name: '', contract_amount: '', interval: '', interval_count: '' } });
    const answer = await shop.post('/v1/authorise', body, { format });
    expect([answer.status, answer.body.result_info, answer.body.recurring_id ?? '']).toEqual([200, '0000:Success', '']);
    expect(await rows('SELECT 1 FROM subscriptions WHERE order_no_base = $1', [body.order_no])).toEqual([]);
  });

  it('refuses a subscription on an APM payment (not a field of it): there is no card to charge again', async () => {
    const body = { ...shop.ids, order_no: orderNo('APM'), currency: 'USD', amount: '10.00', payment_method: 'sandbox_redirect', return_url: 'https://shop.example/r', subscription: MONTHLY };
    const answer = await shop.post('/v1/authorise', body);
    expect(answer.status).toBe(400);
    expect(answer.body.result_info).toBe('4019:subscription is not a field of this request');
  });
});

describe('a subscription begun by an approved payment', () => {
  it('answers recurring_id, contract_name, the period and the next due time, and keeps the card without token_flag', async () => {
    const body = subscribing(shop, { contract: 'C-77', price_id: 'price_gold' });
    const answer = await shop.post('/v1/authorise', body);
    expect(answer.signed).toBe(true);
    expect(answer.body).toMatchObject({
      order_status: '1',
      contract_name: 'Gold plan',
      recurring_id: expect.stringMatching(/^RC[0-9A-Z]{26}$/),
      recurring_deduction_period: '1 month',
      // Begun on 31 January: the next charge on the last day of February, at the first payment's time.
      recurring_deduction_time: '2026-02-28 10:15:00',
      token_id: expect.stringMatching(/^TK/),
    });
    const subscription = await subscriptionOf(gw.gateway.deps, answer.body.recurring_id);
    expect(subscription).toMatchObject({
      status: 'Active',
      account_id: shop.ids.account_id,
      contract_name: 'Gold plan',
      contract: 'C-77',
      price_id: 'price_gold',
      interval: 'month',
      interval_count: 1,
      token_id: answer.body.token_id,
      first_payment_id: answer.body.transaction_id,
      order_no_base: body.order_no,
      network_transaction_id: `simnt_${answer.body.transaction_id}`,
    });
    expect(Number(subscription.first_amount)).toBe(1000);
    expect(Number(subscription.contract_amount)).toBe(1000);
    expect(subscription.next_charge_at.toISOString()).toBe('2026-02-28T10:15:00.000Z');
  });

  it('repeats the same answer for a repeated request, and creates one subscription for 10 concurrent ones', async () => {
    const body = subscribing(shop);
    const answers = await Promise.all(Array.from({ length: 10 }, () => shop.post('/v1/authorise', body)));
    expect(new Set(answers.map((a) => a.body.recurring_id)).size).toBe(1);
    expect(await rows('SELECT id FROM subscriptions WHERE order_no_base = $1', [body.order_no])).toHaveLength(1);
  });

  it('carries the fields in the notification and the query record', async () => {
    const { recurringId, transactionId, orderNo: order } = await subscribe(shop, subscribing(shop, {}, { notify_url: 'http://127.0.0.1:9/hook' }));
    const [event] = await rows(`SELECT payload FROM events WHERE payment_id = $1 AND type = 'payment.captured'`, [transactionId]);
    expect(event!.payload).toMatchObject({ recurring_id: recurringId, contract_name: 'Gold plan', recurring_deduction_period: '1 month', recurring_deduction_time: '2026-02-28 10:15:00' });
    const query = await shop.post('/v1/retrievalTrans', { ...shop.ids, order_no: order }, { format: 'form' });
    expect(query.body.orders_list[0]).toMatchObject({ transaction_id: transactionId, recurring_id: recurringId, contract_name: 'Gold plan', recurring_deduction_period: '1 month' });
  });

  it('begins one from a payment by token_id', async () => {
    const stored = await shop.post('/v1/authorise', cardPayment(shop.ids, { token_flag: '1' }));
    const body = subscribing(shop, {}, { card: undefined, expiration_month: undefined, expiration_year: undefined, security_code: undefined, token_id: stored.body.token_id });
    const { recurringId } = await subscribe(shop, body);
    expect((await subscriptionOf(gw.gateway.deps, recurringId)).token_id).toBe(stored.body.token_id);
  });

  it('creates none for a declined payment or one rejected by risk', async () => {
    for (const card of ['4000000000000002', '4100000000000019']) {
      const body = subscribing(shop, {}, { card });
      const answer = await shop.post('/v1/authorise', body);
      expect(answer.body).toMatchObject({ order_status: '0', contract_name: 'Gold plan', recurring_id: '', recurring_deduction_period: '', recurring_deduction_time: '' });
      expect(await rows('SELECT 1 FROM subscriptions WHERE order_no_base = $1', [body.order_no])).toEqual([]);
    }
  });

  it('begins one after 3-D Secure, and the shopper’s signed return carries it', async () => {
    const body = subscribing(shop, {}, { card: '4000000000003220', return_url: 'https://shop.example/3ds' });
    const challenged = await shop.post('/v1/authorise', body);
    expect(challenged.body).toMatchObject({ order_status: '2', recurring_id: '' });
    const done = await browser.answer(challenged.body.redirect_url, { code: '1234', action: 'verify' });
    expect(done.status, done.body).toBe(303);
    const outcome = returnedOutcome(done.location!, shop.secret);
    expect(outcome.signed).toBe(true);
    expect(outcome.fields).toMatchObject({ order_status: '1', contract_name: 'Gold plan', recurring_id: expect.stringMatching(/^RC/), recurring_deduction_period: '1 month' });
    expect((await subscriptionOf(gw.gateway.deps, outcome.fields.recurring_id!)).first_payment_id).toBe(challenged.body.transaction_id);
  });

  it('begins one on the hosted page', async () => {
    const body = { ...shop.ids, order_no: orderNo('CO'), currency: 'USD', amount: '10.00', return_url: 'https://shop.example/return', subscription: MONTHLY };
    const handOff = await shop.post('/v1/checkout', body);
    const pageUrl = (await browser.handOff(handOff.raw)).location!;
    await browser.post(`${pageUrl}/pay`, { holder_name: 'Ana Lima', card_number: '4111111111111111', expiry: '12/30', security_code: '123' });
    const [payment] = await rows('SELECT id, status, subscription_id, token_id FROM payments WHERE order_no = $1', [body.order_no]);
    expect(payment).toMatchObject({ status: 'captured', subscription_id: expect.stringMatching(/^RC/), token_id: expect.stringMatching(/^TK/) });
    const returned = await browser.get(pageUrl);
    const outcome = returnedOutcome(returned.location!, shop.secret);
    expect(outcome.signed).toBe(true);
    expect(outcome.fields).toMatchObject({ recurring_id: payment!.subscription_id, contract_name: 'Gold plan' });
  });

  it('begins one when a payment held for review is approved, on auto- and manual-capture accounts', async () => {
    for (const captureMode of ['auto', 'manual'] as const) {
      const merchant = await gw.merchant({ captureMode });
      const body = subscribing(merchant, {}, { card: '4000000000004954' });
      const held = await merchant.post('/v1/authorise', body);
      expect(held.body).toMatchObject({ order_status: '3', recurring_id: '' });
      const txn: Txn = { transaction_id: held.body.transaction_id, order_no: body.order_no as string, currency: 'USD', amount: '10.00' };
      expect((await review(merchant, txn, '1')).review_status).toBe('1');
      const [payment] = await rows('SELECT status, subscription_id FROM payments WHERE id = $1', [txn.transaction_id]);
      expect(payment, captureMode).toMatchObject({ status: captureMode === 'auto' ? 'captured' : 'authorised', subscription_id: expect.stringMatching(/^RC/) });
    }
  });

  it('begins one when a payment whose outcome was unknown is found approved later (the card kept while pending)', async () => {
    const body = subscribing(shop, {}, { card: '4000000000000259' });
    const pending = await shop.post('/v1/authorise', body);
    expect(pending.body).toMatchObject({ order_status: '2', recurring_id: '' });
    // The unknown-outcome sweeper asks the processor once the payment is due to be asked about.
    const later = { now: () => new Date(Date.now() + UNKNOWN_AFTER_MS + 60_000) };
    expect(await resolveUnknownPayments({ ...gw.gateway.deps, wallClock: later })).toBeGreaterThanOrEqual(1);
    const answer = await shop.post('/v1/authorise', body);
    expect(answer.body).toMatchObject({ order_status: '1', recurring_id: expect.stringMatching(/^RC/), token_id: expect.stringMatching(/^TK/), recurring_deduction_period: '1 month' });
    expect(await subscriptionOf(gw.gateway.deps, answer.body.recurring_id)).toMatchObject({ status: 'Active', first_payment_id: pending.body.transaction_id });
  });

  it('is Completed at once when billing_cycle is 1: the first payment is the whole contract', async () => {
    const answer = await shop.post('/v1/authorise', subscribing(shop, { billing_cycle: '1' }));
    expect(answer.body).toMatchObject({ recurring_id: expect.stringMatching(/^RC/), recurring_deduction_time: '' });
    expect((await subscriptionOf(gw.gateway.deps, answer.body.recurring_id)).status).toBe('Completed');
  });
});
