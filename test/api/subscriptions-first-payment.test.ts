// A subscription whose first payment is cancelled on a manual-capture account, through signed
// HTTP requests and the periodic tasks a worker runs, on the sandbox clock: a /v1/cancel of the
// first payment, or its authorisation left to expire uncaptured, ends the subscription (Inactived,
// subscription.cancelled with its cancel_reason), and no later cycle is charged; a void racing a
// cycle that falls due (the void at the processor while the billing task takes the cycle up) lets
// no charge reach the processor; a void the processor refuses leaves the subscription charged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireAuthorisations } from '../../src/app/capture/expire-authorisations.ts';
import type { CancelRequest, Connector } from '../../src/connectors/port.ts';
import { createSimulator } from '../../src/connectors/simulator/index.ts';
import type { SignedClient } from '../support/client.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { cancel, expectLedgerBalanced, paymentRow } from '../support/lifecycle.ts';
import { chargesOf, eventsOf, runBilling, subscribe, subscribing, subscriptionOf } from '../support/subscriptions.ts';

let gw: TestGateway;
let manual: SignedClient;
const clock = new FakeClock('2026-01-31T10:15:00Z');
const START = '2026-01-31T10:15:00Z';

// The simulator, with voids held until the test lets them go (a void at the processor), or
// refused; `charged` is the processor's own record of every merchant-initiated charge it got.
const simulator = createSimulator({ baseUrl: 'http://gateway.test', now: () => clock.now() });
let gate: { opened: Promise<void>; open: () => void; entered: Promise<void>; enter: () => void } | undefined;
let refuseVoids = false;
const charged: string[] = [];
const processor: Connector = {
  ...simulator,
  async authorise(request) {
    if (request.initiator === 'merchant') charged.push(request.orderNo);
    return simulator.authorise(request);
  },
  async cancel(request: CancelRequest) {
    if (refuseVoids) return { ok: true, value: { status: 'failed', reason: 'too late to void' } };
    if (gate) {
      gate.enter();
      await gate.opened;
    }
    return simulator.cancel(request);
  },
};
function armGate() {
  let open!: () => void;
  let enter!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const entered = new Promise<void>((resolve) => (enter = resolve));
  gate = { opened, open, entered, enter };
  return gate;
}
const chargedFor = (orderNo: string) => charged.filter((sent) => sent.startsWith(`${orderNo} R`));

beforeAll(async () => {
  gw = await startTestGateway({ clock, connectors: { get: (name) => (name === 'simulator' ? processor : undefined), names: () => ['simulator'] } });
  manual = await gw.merchant({ captureMode: 'manual' });
});
afterAll(() => gw?.close());

const deps = () => gw.gateway.deps;

/** A subscription begun on the manual-capture account: its first payment authorised, not captured. */
async function begin(subscription: Record<string, unknown> = {}) {
  clock.set(START);
  const body = subscribing(manual, subscription, { notify_url: 'http://127.0.0.1:9/hook' });
  const begun = await subscribe(manual, body);
  expect((await paymentRow(gw, begun.transactionId)).status).toBe('authorised');
  return { ...begun, first: { transaction_id: begun.transactionId, order_no: begun.orderNo, currency: 'USD', amount: '10.00' } };
}

/** Runs the worker's tasks (authorisation expiry, billing) until nothing more is done. */
async function runWorker() {
  for (let round = 0; round < 20; round++) {
    if ((await expireAuthorisations(deps())) + (await runBilling(deps())) === 0) return;
  }
}

describe('the first payment voided', () => {
  it('ends the subscription: Inactived, subscription.cancelled with its reason, and no cycle is charged after', async () => {
    const { recurringId, orderNo, first } = await begin();
    expect((await cancel(manual, first)).cancel_status).toBe('1');
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Inactived', next_charge_at: null });
    expect(await eventsOf(deps(), 'subscription.cancelled', recurringId)).toEqual([
      expect.objectContaining({ recurring_id: recurringId, contract_name: 'Gold plan', subscription_status: 'Inactived', cancel_reason: 'first_payment_cancelled' }),
    ]);
    clock.set('2026-07-01T00:00:00Z');
    await runWorker();
    expect(await chargesOf(deps(), recurringId)).toEqual([]);
    expect(chargedFor(orderNo)).toEqual([]);
    // The merchant's own cancel of it afterwards is answered as any repeat: already cancelled.
    const again = await manual.post('/v1/cancelsubscription', { ...manual.ids, recurring_id: recurringId, contract_name: 'Gold plan' });
    expect(again.body).toMatchObject({ cancel_status: '1', subscription_status: 'Inactived' });
    expect(await eventsOf(deps(), 'subscription.cancelled', recurringId)).toHaveLength(1);
    await expectLedgerBalanced(gw);
  });

  it('leaves charged the cycles paid before it, and charges none after', async () => {
    const { recurringId, orderNo, first } = await begin({ interval: 'day' });
    clock.set('2026-02-03T10:15:00Z');
    await runBilling(deps());
    expect((await chargesOf(deps(), recurringId)).map((charge) => [charge.cycle, charge.status])).toEqual([
      [2, 'succeeded'],
      [3, 'succeeded'],
      [4, 'succeeded'],
    ]);
    expect((await cancel(manual, first)).cancel_status).toBe('1');
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Inactived' });
    clock.set('2026-03-01T00:00:00Z');
    await runWorker();
    expect(chargedFor(orderNo)).toEqual([`${orderNo} R2-1`, `${orderNo} R3-1`, `${orderNo} R4-1`]);
  });

  it('a void the processor refuses changes nothing: the subscription stays Active and is charged', async () => {
    // Daily: cycle 2 falls due while the first payment's authorisation still holds.
    const { recurringId, orderNo, first } = await begin({ interval: 'day' });
    refuseVoids = true;
    try {
      expect((await cancel(manual, first)).cancel_status).not.toBe('1');
    } finally {
      refuseVoids = false;
    }
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Active' });
    expect(await eventsOf(deps(), 'subscription.cancelled', recurringId)).toEqual([]);
    clock.set('2026-02-01T10:15:00Z');
    await runWorker();
    expect(chargedFor(orderNo)).toEqual([`${orderNo} R2-1`]);
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Active', cycles_paid: 2 });
  });
});

describe('a subscription left Active by a void recorded before the gateway ended them', () => {
  it('is ended at its next attempt, which is never sent', async () => {
    const { recurringId, orderNo, first } = await begin();
    expect((await cancel(manual, first)).cancel_status).toBe('1');
    // As a void recorded by an earlier release left it: the first payment cancelled, the subscription Active.
    await gw.database.query(`UPDATE subscriptions SET status = 'Active', next_charge_at = $2, next_due_at = $2, ended_at = NULL WHERE id = $1`, [recurringId, '2026-02-28T10:15:00Z']);
    await gw.database.query(`DELETE FROM events WHERE type = 'subscription.cancelled' AND payload->>'recurring_id' = $1`, [recurringId]);
    clock.set('2026-03-01T00:00:00Z');
    await runWorker();
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Inactived' });
    expect(await eventsOf(deps(), 'subscription.cancelled', recurringId)).toEqual([expect.objectContaining({ cancel_reason: 'first_payment_cancelled' })]);
    expect((await chargesOf(deps(), recurringId)).map((charge) => [charge.cycle, charge.status, charge.payment_id, charge.result_code])).toEqual([[2, 'failed', null, '5017']]);
    clock.set('2026-07-01T00:00:00Z');
    await runWorker();
    expect(chargedFor(orderNo)).toEqual([]);
  });
});

describe('the first payment’s authorisation expired uncaptured', () => {
  it('ends the subscription when the expiry is recorded, and no cycle is charged', async () => {
    const { recurringId, orderNo, transactionId } = await begin();
    clock.set('2026-02-08T10:16:00Z');
    await runWorker();
    expect((await paymentRow(gw, transactionId)).status).toBe('cancelled');
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Inactived' });
    expect(await eventsOf(deps(), 'subscription.cancelled', recurringId)).toEqual([expect.objectContaining({ cancel_reason: 'first_payment_expired' })]);
    clock.set('2026-07-01T00:00:00Z');
    await runWorker();
    expect(chargedFor(orderNo)).toEqual([]);
  });

  it('charges no cycle once the hold has expired, even when the billing task runs before the expiry is recorded', async () => {
    const { recurringId, orderNo } = await begin({ interval: 'day' });
    // Ten days on at once: cycles 2 to 11 are due, and the first payment's hold (7 days) is gone.
    clock.set('2026-02-10T10:16:00Z');
    await runBilling(deps());
    expect(chargedFor(orderNo)).toEqual([]);
    await runWorker();
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Inactived' });
    expect(chargedFor(orderNo)).toEqual([]);
    // The attempt claimed before the expiry was recorded is never sent: failed as a cancel leaves it.
    expect((await chargesOf(deps(), recurringId)).map((charge) => [charge.cycle, charge.status, charge.payment_id, charge.result_code])).toEqual([[2, 'failed', null, '5017']]);
  });
});

describe('a void racing a cycle that falls due', () => {
  it('the cycle taken up while the void is at the processor is not sent, then never is', async () => {
    const { recurringId, orderNo, first } = await begin();
    clock.set('2026-02-28T10:15:00Z');
    const held = armGate();
    const voiding = cancel(manual, first);
    await held.entered;
    // The void is claimed and at the processor; cycle 2 is due and the worker takes it up now.
    try {
      await runBilling(deps());
      expect(chargedFor(orderNo)).toEqual([]);
    } finally {
      gate = undefined;
      held.open();
    }
    expect((await voiding).cancel_status).toBe('1');
    await runWorker();
    clock.set('2026-03-01T00:00:00Z');
    await runWorker();
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Inactived' });
    expect(chargedFor(orderNo)).toEqual([]);
    const charges = await chargesOf(deps(), recurringId);
    expect(charges.map((charge) => [charge.cycle, charge.status, charge.payment_id])).toEqual([[2, 'failed', null]]);
  });

  it('concurrent voids and billing rounds: every subscription ends, and no charge is made once its void has committed', async () => {
    const begun = await Promise.all(Array.from({ length: 6 }, () => begin()));
    clock.set('2026-02-28T10:15:00Z');
    const voided = await Promise.all([...begun.map(({ first }) => cancel(manual, first)), runBilling(deps()), runBilling(deps())]);
    for (const answer of voided.slice(0, begun.length)) expect((answer as Record<string, string>).cancel_status).toBe('1');
    await runWorker();
    clock.set('2026-06-01T00:00:00Z');
    await runWorker();
    for (const { recurringId, orderNo } of begun) {
      expect((await subscriptionOf(deps(), recurringId)).status).toBe('Inactived');
      // At most cycle 2, sent before its void was claimed; nothing after.
      expect(chargedFor(orderNo).filter((sent) => sent !== `${orderNo} R2-1`)).toEqual([]);
      expect(await eventsOf(deps(), 'subscription.cancelled', recurringId)).toHaveLength(1);
    }
    await expectLedgerBalanced(gw);
  });
});
