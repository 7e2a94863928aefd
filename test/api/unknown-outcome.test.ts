// Unknown outcome = pending, never success. The timeout test card leaves the payment processing;
// the resolve-unknown-payments task asks the processor again later and records its answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveUnknownPayments, UNKNOWN_AFTER_MS } from '../../src/app/payments/resolve-unknown.ts';
import { createDeps } from '../../src/deps.ts';
import { cardPayment } from '../support/fixtures.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';

let gw: TestGateway;
let shop: SignedClient;
const clock = new FakeClock(new Date());

beforeAll(async () => {
  gw = await startTestGateway({ clock });
  shop = await gw.merchant();
});
afterAll(() => gw?.close());

const stateOf = async (id: string) =>
  (await gw.database.query<Record<string, any>>(
    `SELECT status, result_code, captured_amount::int AS captured,
            (SELECT count(*)::int FROM ledger_entries WHERE payment_id = p.id) AS entries,
            (SELECT count(*)::int FROM events WHERE payment_id = p.id) AS events
       FROM payments p WHERE id = $1`,
    [id],
  ))[0];

describe('a processor that does not answer', () => {
  it('answers pending, books nothing, then records the late answer once', async () => {
    const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { card: '4000000000000259' }));
    expect(answer.body).toMatchObject({ order_status: '2', result_info: '1000:Pending: awaiting the processor' });
    const id = answer.body.transaction_id;
    expect(await stateOf(id)).toEqual({ status: 'processing', result_code: '1000', captured: 0, entries: 0, events: 0 });

    // Too early: a request may still be talking to the processor.
    expect(await resolveUnknownPayments(gw.gateway.deps)).toBe(0);
    clock.advance(UNKNOWN_AFTER_MS + 1_000);
    expect(await resolveUnknownPayments(gw.gateway.deps)).toBeGreaterThanOrEqual(1);
    expect(await stateOf(id)).toEqual({ status: 'captured', result_code: '0000', captured: 1000, entries: 2, events: 1 });

    // Asking again changes nothing.
    await resolveUnknownPayments(gw.gateway.deps);
    expect(await stateOf(id)).toMatchObject({ entries: 2, events: 1 });
  });

  it('answers a retry of the pending order with its stored state, without waiting', async () => {
    const body = cardPayment(shop.ids, { card: '4000000000000259' });
    const first = await shop.post('/v1/authorise', body);
    const started = Date.now();
    const again = await shop.post('/v1/authorise', body);
    expect(again.body.transaction_id).toBe(first.body.transaction_id);
    expect(again.body.order_status).toBe('2');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('finds the lost answer after a restart: the sandbox processor remembers it in its own table', async () => {
    const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { card: '4000000000000259' }));
    const id = answer.body.transaction_id;
    expect(await gw.database.query('SELECT payment_id FROM simulator_lost_answers WHERE payment_id = $1', [id])).toEqual([{ payment_id: id }]);
    // Another process (a new simulator, nothing in its memory) asks about it.
    const restarted = await createDeps({ config: gw.config, database: gw.database, clock, log: gw.gateway.deps.log });
    clock.advance(UNKNOWN_AFTER_MS + 1_000);
    expect(await resolveUnknownPayments(restarted)).toBeGreaterThanOrEqual(1);
    expect(await stateOf(id)).toMatchObject({ status: 'captured', result_code: '0000', captured: 1000 });
  });
});
