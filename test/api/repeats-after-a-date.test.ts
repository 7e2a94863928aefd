// A repeated order (same order_no, same fields) is answered with its stored outcome whatever the
// day. A request may name a date a new order must not have passed (a subscription's contract_end,
// the card's expiry month); the retry of an order accepted before that date passed, its answer
// lost, must not be told 400, the answer that says nothing was stored: a merchant trusting it would
// charge again under a new order_no. A new order naming the same past date is still refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardPayment, orderNo } from '../support/fixtures.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';
import { MONTHLY, subscribing } from '../support/subscriptions.ts';

let gw: TestGateway;
let shop: SignedClient;
const clock = new FakeClock();

/** The last minute of November 2026 (UTC), and the first of December. */
const BEFORE_MIDNIGHT = '2026-11-30T23:59:00Z';
const AFTER_MIDNIGHT = '2026-12-01T00:01:00Z';

beforeAll(async () => {
  gw = await startTestGateway({ clock });
  shop = await gw.merchant();
});
afterAll(() => gw?.close());

const count = async (sql: string, order: unknown) => (await gw.database.query<{ n: number }>(sql, [order]))[0]!.n;
const payments = (order: unknown) => count('SELECT count(*)::int AS n FROM payments WHERE order_no = $1', order);
const subscriptions = (order: unknown) => count('SELECT count(*)::int AS n FROM subscriptions WHERE order_no_base = $1', order);

describe('/v1/authorise repeated after a date it names has passed', () => {
  it('answers a repeat sent the day after its subscription’s contract_end with the stored outcome; a new order ending then is refused', async () => {
    clock.set(BEFORE_MIDNIGHT);
    const body = subscribing(shop, { contract_end: '2026-11-30' });
    const first = await shop.post('/v1/authorise', body);
    expect([first.status, first.body.result_info]).toEqual([200, '0000:Success']);
    expect(first.body.recurring_id).toMatch(/^RC[0-9A-Z]{26}$/);

    // The answer was lost; the merchant's retry arrives after midnight (UTC).
    clock.set(AFTER_MIDNIGHT);
    const repeat = await shop.post('/v1/authorise', body);
    expect(repeat.status, repeat.raw).toBe(200);
    expect(repeat.body).toEqual(first.body);
    expect([await payments(body.order_no), await subscriptions(body.order_no)]).toEqual([1, 1]);

    const other = await shop.post('/v1/authorise', { ...body, amount: '11.00' });
    expect([other.status, other.body.result_info]).toEqual([400, `4009:order_no ${body.order_no} was already used with different fields`]);

    const late = subscribing(shop, { contract_end: '2026-11-30' });
    const refused = await shop.post('/v1/authorise', late);
    expect([refused.status, refused.body.result_info]).toEqual([400, '4002:subscription.contract_end is invalid: expected a date not before today (UTC)']);
    expect([await payments(late.order_no), await subscriptions(late.order_no)]).toEqual([0, 0]);
  });

  it('answers a repeat sent after the card’s expiry month with the stored outcome; a new order with that card is refused', async () => {
    clock.set(BEFORE_MIDNIGHT);
    const body = cardPayment(shop.ids, { expiration_month: '11', expiration_year: '2026' });
    const first = await shop.post('/v1/authorise', body);
    expect([first.status, first.body.result_info]).toEqual([200, '0000:Success']);

    clock.set(AFTER_MIDNIGHT);
    const repeat = await shop.post('/v1/authorise', body);
    expect(repeat.status, repeat.raw).toBe(200);
    expect(repeat.body).toEqual(first.body);
    expect(await payments(body.order_no)).toBe(1);

    const other = await shop.post('/v1/authorise', { ...body, amount: '11.00' });
    expect([other.status, other.body.result_info]).toEqual([400, `4009:order_no ${body.order_no} was already used with different fields`]);

    const late = cardPayment(shop.ids, { expiration_month: '11', expiration_year: '2026' });
    const refused = await shop.post('/v1/authorise', late);
    expect([refused.status, refused.body.result_info]).toEqual([400, '4006:the card has expired: expiration_month and expiration_year name a past month']);
    expect(await payments(late.order_no)).toBe(0);
  });
});

describe('/v1/checkout repeated after a date it names has passed', () => {
  const checkout = (overrides: Record<string, unknown> = {}) => ({
    ...shop.ids,
    order_no: orderNo('CO'),
    currency: 'USD',
    amount: '25.00',
    return_url: 'https://shop.example/return',
    subscription: { ...MONTHLY, contract_end: '2026-11-30' },
    ...overrides,
  });

  it('answers a repeat sent the day after its subscription’s contract_end with the same hand-off; a new checkout ending then is refused', async () => {
    clock.set(BEFORE_MIDNIGHT);
    const body = checkout();
    const first = await shop.post('/v1/checkout', body);
    expect(first.status, first.raw).toBe(200);

    clock.set(AFTER_MIDNIGHT);
    const repeat = await shop.post('/v1/checkout', body);
    expect(repeat.status, repeat.raw).toBe(200);
    expect(repeat.raw).toBe(first.raw);
    expect(await payments(body.order_no)).toBe(1);

    const other = await shop.post('/v1/checkout', { ...body, amount: '26.00' });
    expect([other.status, other.body.result_info]).toEqual([400, `4009:order_no ${body.order_no} was already used with different fields`]);

    const late = checkout();
    const refused = await shop.post('/v1/checkout', late);
    expect([refused.status, refused.body.result_info]).toEqual([400, '4002:subscription.contract_end is invalid: expected a date not before today (UTC)']);
    expect(await payments(late.order_no)).toBe(0);
  });
});
