// A connector that answers a subscription's recurring charge (merchant-initiated, of the stored
// card) with a 3-D Secure challenge: no shopper is there to answer it, so the charge fails at once
// (2011), a decline the dunning retries, instead of waiting for the challenge's abandonment. The
// shopper's own payments on the same connector are challenged as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector } from '../../src/connectors/port.ts';
import { createSimulator } from '../../src/connectors/simulator/index.ts';
import type { SignedClient } from '../support/client.ts';
import { cardPayment } from '../support/fixtures.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { chargesOf, eventsOf, runBilling, subscribe, subscribing, subscriptionOf } from '../support/subscriptions.ts';

let gw: TestGateway;
let shop: SignedClient;
const clock = new FakeClock('2026-01-31T10:15:00Z');

/** The simulator, except that it challenges every merchant-initiated charge (and, for `CHALLENGED`, the shopper's). */
const CHALLENGED = '4000000000003220';
const simulator = createSimulator({ baseUrl: 'http://gateway.test' });
const challenging: Connector = {
  ...simulator,
  authorise: async (request) =>
    request.initiator === 'merchant' || request.card?.pan === CHALLENGED
      ? { ok: true, value: { status: 'action_required', action: 'authenticate', reference: `acs_${request.paymentId}`, url: 'https://acs.issuer.example/challenge' } }
      : simulator.authorise(request),
};

beforeAll(async () => {
  gw = await startTestGateway({ clock, connectors: { get: (name) => (name === 'simulator' ? challenging : undefined), names: () => ['simulator'] } });
  shop = await gw.merchant();
});
afterAll(() => gw?.close());

const deps = () => gw.gateway.deps;
const paymentRow = async (id: string) =>
  (await gw.database.query<{ status: string; result_code: string; action_url: string | null }>('SELECT status, result_code, action_url FROM payments WHERE id = $1', [id]))[0];

describe('a recurring charge the connector challenges', () => {
  it('fails at once as a decline (2011), notified, and is retried on the dunning schedule', async () => {
    const { recurringId } = await subscribe(shop, subscribing(shop, {}, { notify_url: 'http://127.0.0.1:9/hook' }));
    clock.set('2026-02-28T10:15:00Z');
    await runBilling(deps());

    const [charge, ...more] = await chargesOf(deps(), recurringId);
    expect(more).toEqual([]);
    expect(charge).toMatchObject({ cycle: 2, attempt: 1, status: 'failed', result_code: '2011' });
    expect(await paymentRow(charge!.payment_id!)).toEqual({ status: 'failed', result_code: '2011', action_url: null });
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Active', next_attempt: 2 });
    const [failed] = await eventsOf(deps(), 'subscription.charge_failed', recurringId);
    expect(failed).toMatchObject({
      cycle: '2',
      attempt: '1',
      order_status: '0',
      result_info: '2011:Declined: the processor asked for the shopper on a merchant-initiated charge',
      subscription_status: 'Active',
      recurring_deduction_time: '2026-03-01 10:15:00',
    });

    // The retry, a day later, is asked again (and fails the same way here).
    clock.set('2026-03-01T10:15:00Z');
    await runBilling(deps());
    expect((await chargesOf(deps(), recurringId)).map((c) => [c.attempt, c.status, c.result_code])).toEqual([
      [1, 'failed', '2011'],
      [2, 'failed', '2011'],
    ]);
  });

  it("leaves the shopper's own challenged payment waiting for the shopper", async () => {
    const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { card: CHALLENGED }));
    expect(answer.body).toMatchObject({ order_status: '2', redirect_url: 'https://acs.issuer.example/challenge' });
    expect(await paymentRow(answer.body.transaction_id)).toEqual({ status: 'requires_authentication', result_code: '1001', action_url: 'https://acs.issuer.example/challenge' });
  });
});
