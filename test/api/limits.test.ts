// Refusals cost an attacker something, and one account cannot starve the others: failed
// authentications are limited per client address (429 with Retry-After, before any account is
// looked up), and while the gateway is busy an account holds only its share of the requests in
// flight (docs/operations.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignedClient } from '../support/client.ts';
import { cardPayment } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let shop: SignedClient;

beforeAll(async () => {
  gw = await startTestGateway();
  shop = await gw.merchant();
});
afterAll(() => gw?.close());

const BAD = '0'.repeat(64);
const countBy = (statuses: number[]) => statuses.reduce<Record<number, number>>((all, s) => ({ ...all, [s]: (all[s] ?? 0) + 1 }), {});

describe('failed authentications per client address', () => {
  it('answers most of 600 concurrent bad signatures from one address with 429 and Retry-After, storing nothing', async () => {
    const address = '203.0.113.10';
    const answers = await Promise.all(
      Array.from({ length: 600 }, (_, i) => shop.post('/v1/authorise', { ...cardPayment(shop.ids, { order_no: `BAD-${i}` }), encryption_data: BAD }, { remoteAddress: address })),
    );
    const statuses = countBy(answers.map((a) => a.status));
    expect(Object.keys(statuses).sort()).toEqual(['401', '429']);
    expect(statuses[429]).toBeGreaterThan(500);
    const limited = answers.find((a) => a.status === 429)!;
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.body.result_info).toBe('4429:too many failed authentications from this address');
    expect(await gw.database.query('SELECT 1 FROM payments WHERE account_id = $1', [shop.ids.account_id])).toEqual([]);

    // The address stays limited for a while, also for a correct request; another address is not.
    const again = await shop.post('/v1/authorise', cardPayment(shop.ids, { order_no: 'GOOD-1' }), { remoteAddress: address });
    expect(again.status).toBe(429);
    const elsewhere = await shop.post('/v1/authorise', cardPayment(shop.ids, { order_no: 'GOOD-2' }), { remoteAddress: '198.51.100.20' });
    expect([elsewhere.status, elsewhere.body.result_info]).toEqual([200, '0000:Success']);
  });

  it('limits unknown accounts alike, without telling them from wrong signatures', async () => {
    const address = '203.0.113.11';
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        shop.post('/v1/authorise', { ...cardPayment({ merchant_id: `M9${String(i).padStart(5, '0')}`, account_id: 'A999999' }), encryption_data: BAD }, { remoteAddress: address }),
      ),
    );
    const statuses = countBy(answers.map((a) => a.status));
    expect(Object.keys(statuses).sort()).toEqual(['404', '429']);
    // The budget (30 at once, ACQUIRO_AUTH_FAILURE_LIMIT) holds for attempts in flight at once:
    // each is counted as it arrives, not once its account was looked up (a few may refill meanwhile).
    expect(statuses[404]).toBeLessThanOrEqual(33);
  });

  it('counts an IPv6 client by its /64: a new address of the same network for each request gets no new budget', async () => {
    // 2^64 addresses are one subscriber's: each its own budget, and the limit would hold nothing.
    const answers = await Promise.all(
      Array.from({ length: 120 }, (_, i) => shop.post('/v1/authorise', { ...cardPayment(shop.ids, { order_no: `V6-${i}` }), encryption_data: BAD }, { remoteAddress: `2001:db8:7:7::${(i + 1).toString(16)}` })),
    );
    const statuses = countBy(answers.map((a) => a.status));
    expect(statuses[401]).toBeLessThanOrEqual(33);
    expect(statuses[429]).toBeGreaterThanOrEqual(87);
    // Another /64 has a budget of its own.
    const elsewhere = await shop.post('/v1/authorise', cardPayment(shop.ids, { order_no: 'V6-GOOD' }), { remoteAddress: '2001:db8:7:8::1' });
    expect([elsewhere.status, elsewhere.body.result_info]).toEqual([200, '0000:Success']);
  });

  it('does not count correct requests: one address may send many', async () => {
    const address = '203.0.113.12';
    const answers = await Promise.all(
      Array.from({ length: 120 }, (_, i) => shop.post('/v1/query', { ...shop.ids, order_no: `NONE-${i}` }, { remoteAddress: address })),
    );
    expect(answers.filter((a) => a.status === 429)).toEqual([]);
  });
});

describe('a fair share per account while the gateway is busy', () => {
  it('keeps serving a second account while one account floods, and refuses the flood’s excess with 429', async () => {
    const flooder = await gw.merchant({ rateLimitPerSecond: 1_000_000 }); // the per-second budget is not what this test is about
    const other = await gw.merchant();
    const pay = async (client: SignedClient, orderNo: string) => {
      const sentAt = performance.now();
      const answer = await client.post('/v1/authorise', cardPayment(client.ids, { order_no: orderNo }), { remoteAddress: '198.51.100.30' });
      return { status: answer.status, retryAfter: answer.headers['retry-after'], sentAt, answeredAt: performance.now() };
    };

    // The other account has paid (its account is known to the gateway) when the flood starts.
    for (let i = 0; i < 2; i++) expect((await pay(other, `BEFORE-${i}`)).status).toBe(200);

    // One account keeps 60 requests in flight (each lane sends its next as soon as it is answered, a 429 too)
    // for as long as the other account pays, one payment at a time. Bounded in time in case the
    // payments never end (the worker runs the next test files in the same process).
    let flooding = true;
    const stopAt = performance.now() + 60_000;
    let sent = 0;
    const flood: Awaited<ReturnType<typeof pay>>[] = [];
    const lane = async () => {
      while (flooding && performance.now() < stopAt) flood.push(await pay(flooder, `FLOOD-${sent++}`));
    };
    const lanes = Array.from({ length: 60 }, lane);
    const during: Awaited<ReturnType<typeof pay>>[] = [];
    try {
      for (let i = 0; i < 6; i++) during.push(await pay(other, `DURING-${i}`));
    } finally {
      flooding = false;
      await Promise.all(lanes);
    }

    expect(during.map((a) => a.status)).toEqual(Array(6).fill(200));
    const refused = flood.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((a) => Number(a.retryAfter) >= 1)).toBe(true);
    expect(flood.filter((a) => a.status !== 200 && a.status !== 429)).toEqual([]);
    // The other account's payments do not queue behind the flood: while one is in flight, the
    // flood gets a few payments done (its share), not one per lane as when every lane's request
    // is ahead of it. Counted, not timed, so a slow machine does not change the verdict.
    const floodServed = during.map((d) => flood.filter((f) => f.status === 200 && f.answeredAt > d.sentAt && f.answeredAt < d.answeredAt).length);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    expect(median(floodServed)).toBeLessThan(20);
  }, 120_000);
});
