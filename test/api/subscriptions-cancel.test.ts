// /v1/cancelsubscription through the HTTP interface: every outcome (cancelled, the idempotent
// repeat, unknown id, another account's id, a contract_name that does not match, a contract
// already completed, an Unpaid one), every body format, refusals of bad input (400, nothing
// changed), concurrent cancels, a cancel racing a charge in flight (sent: it finishes; claimed
// but not yet sent, its worker killed: never sent), and the CLI's view and cancel.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import type { AuthoriseOutcome, AuthoriseRequest, Connector } from '../../src/connectors/port.ts';
import { createSimulator } from '../../src/connectors/simulator/index.ts';
import { billSubscriptions, openDueCharges } from '../../src/app/subscriptions/bill.ts';
import { leasePendingCharges } from '../../src/db/repositories/subscriptions.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { Format, SignedClient } from '../support/client.ts';
import { chargesOf, eventsOf, runBilling, subscribe, subscribing, subscriptionOf } from '../support/subscriptions.ts';

let gw: TestGateway;
let shop: SignedClient;
let stranger: SignedClient;
const clock = new FakeClock('2026-01-31T10:15:00Z');
const START = '2026-01-31T10:15:00Z';

// The simulator, with merchant-initiated charges held until the test lets them go (a charge in
// flight), or charged with their answer lost on the way back (the processor keeps it, and says it
// when asked). `received` is the processor's own record: every merchant-initiated charge it got.
const simulator = createSimulator({ baseUrl: 'http://gateway.test', now: () => clock.now() });
let gate: { orderNo: string; opened: Promise<void>; open: () => void; entered: Promise<void>; enter: () => void } | undefined;
let loseAnswers = false;
const received: string[] = [];
const kept = new Map<string, AuthoriseOutcome>();
const holding: Connector = {
  ...simulator,
  async authorise(request: AuthoriseRequest) {
    if (gate && request.initiator === 'merchant' && request.orderNo.startsWith(`${gate.orderNo} R`)) {
      gate.enter();
      await gate.opened;
    }
    if (request.initiator === 'merchant') received.push(request.orderNo);
    const answer = await simulator.authorise(request);
    if (!loseAnswers || request.initiator !== 'merchant' || !answer.ok) return answer;
    kept.set(request.paymentId, answer.value);
    return { ok: false, error: { kind: 'timeout', message: 'the answer was lost on its way back' } };
  },
  async paymentStatus(request) {
    const outcome = kept.get(request.paymentId);
    return outcome ? { ok: true, value: outcome } : simulator.paymentStatus(request);
  },
};
const receivedFor = (orderNo: string) => received.filter((sent) => sent.startsWith(`${orderNo} R`));
/** Holds the charges of the subscription begun by `orderNo` (other subscriptions' charges go through). */
function armGate(orderNo: string) {
  let open!: () => void;
  let enter!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const entered = new Promise<void>((resolve) => (enter = resolve));
  gate = { orderNo, opened, open, entered, enter };
  return gate;
}

beforeAll(async () => {
  gw = await startTestGateway({ clock, connectors: { get: (name) => (name === 'simulator' ? holding : undefined), names: () => ['simulator'] } });
  shop = await gw.merchant();
  stranger = await gw.merchant();
});
afterAll(() => gw?.close());

const deps = () => gw.gateway.deps;
const cancelBody = (client: SignedClient, recurringId: string, contractName = 'Gold plan') => ({ ...client.ids, recurring_id: recurringId, contract_name: contractName });
const cancel = (client: SignedClient, recurringId: string, contractName?: string, format: Format = 'json') =>
  client.post('/v1/cancelsubscription', cancelBody(client, recurringId, contractName), { format });

async function active(client: SignedClient = shop, subscription: Record<string, unknown> = {}, overrides: Record<string, unknown> = {}) {
  return (await begin(client, subscription, overrides)).recurringId;
}

async function begin(client: SignedClient = shop, subscription: Record<string, unknown> = {}, overrides: Record<string, unknown> = {}) {
  clock.set(START);
  return subscribe(client, subscribing(client, subscription, overrides));
}

const paymentsOf = async (orderNo: string) =>
  gw.database.query<{ status: string }>(`SELECT status FROM payments WHERE account_id = $1 AND order_no LIKE $2`, [shop.ids.account_id, `${orderNo} R%`]);

describe('cancelling', () => {
  it('ends an Active subscription: signed JSON, cancel_status 1, Inactived, notified, and no charge ever again', async () => {
    const recurringId = await active(shop, {}, { notify_url: 'http://127.0.0.1:9/hook' });
    const answer = await cancel(shop, recurringId);
    expect(answer.status).toBe(200);
    expect(answer.signed).toBe(true);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.body).toEqual({
      ...shop.ids,
      recurring_id: recurringId,
      contract_name: 'Gold plan',
      cancel_status: '1',
      error_message: '',
      subscription_status: 'Inactived',
      encryption_data: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(await eventsOf(deps(), 'subscription.cancelled', recurringId)).toEqual([
      expect.objectContaining({ recurring_id: recurringId, contract_name: 'Gold plan', subscription_status: 'Inactived' }),
    ]);
    clock.set('2027-06-01T00:00:00Z');
    await runBilling(deps());
    expect(await chargesOf(deps(), recurringId)).toEqual([]);
  });

  it('answers a repeat the same, changing nothing', async () => {
    const recurringId = await active();
    const first = await cancel(shop, recurringId);
    const before = await subscriptionOf(deps(), recurringId);
    const again = await cancel(shop, recurringId);
    expect(again.body).toEqual(first.body);
    expect(await subscriptionOf(deps(), recurringId)).toEqual(before);
    expect(await eventsOf(deps(), 'subscription.cancelled', recurringId)).toHaveLength(1);
  });

  it.each(['form', 'xml', 'json-as-form'] as const)('takes a %s body', async (format) => {
    const recurringId = await active();
    const answer = await cancel(shop, recurringId, 'Gold plan', format);
    expect(answer.status).toBe(200);
    expect(answer.signed).toBe(true);
    expect(answer.body).toMatchObject({ cancel_status: '1', subscription_status: 'Inactived' });
  });

  it('cancels once under 10 concurrent requests', async () => {
    const recurringId = await active();
    const answers = await Promise.all(Array.from({ length: 10 }, () => cancel(shop, recurringId)));
    expect(answers.every((a) => a.body.cancel_status === '1')).toBe(true);
    expect(await eventsOf(deps(), 'subscription.cancelled', recurringId)).toHaveLength(1);
  });

  it('ends an Unpaid subscription for good', async () => {
    const recurringId = await active(shop, {}, { card: '4000000000000341' });
    clock.set('2026-04-01T00:00:00Z');
    await runBilling(deps());
    expect((await subscriptionOf(deps(), recurringId)).status).toBe('Unpaid');
    expect((await cancel(shop, recurringId)).body).toMatchObject({ cancel_status: '1', subscription_status: 'Inactived' });
  });
});

describe('what is not cancelled: HTTP 200, cancel_status 0, the subscription untouched', () => {
  it('an unknown recurring_id', async () => {
    const answer = await cancel(shop, 'RC00000000000000000000000000');
    expect(answer.status).toBe(200);
    expect(answer.signed).toBe(true);
    expect(answer.body).toMatchObject({ cancel_status: '0', error_message: '5014:Subscription not found', subscription_status: '' });
  });

  it("another account's recurring_id, answered like an unknown one", async () => {
    const theirs = await active(stranger);
    const answer = await cancel(shop, theirs);
    expect(answer.body).toMatchObject({ cancel_status: '0', error_message: '5014:Subscription not found', subscription_status: '' });
    // The whole answer, as for an id that does not exist: nothing of their subscription shows through.
    const nobody = await cancel(shop, 'RC00000000000000000000000000');
    // (Its signature differs with the recurring_id it echoes.)
    const blanked = ({ status, body }: typeof answer) => [status, { ...body, recurring_id: '', encryption_data: '' }];
    expect(blanked(answer)).toEqual(blanked(nobody));
    expect((await subscriptionOf(deps(), theirs)).status).toBe('Active');
  });

  it('a contract_name that does not match', async () => {
    const recurringId = await active();
    const answer = await cancel(shop, recurringId, 'Silver plan');
    expect(answer.body).toMatchObject({ cancel_status: '0', error_message: '5015:contract_name does not match the subscription', subscription_status: '' });
    expect((await subscriptionOf(deps(), recurringId)).status).toBe('Active');
  });

  it('a subscription whose contract is completed', async () => {
    const recurringId = await active(shop, { billing_cycle: '1' });
    const answer = await cancel(shop, recurringId);
    // Found, and left as it is: its status after the request is the one it has.
    expect(answer.body).toMatchObject({ cancel_status: '0', error_message: expect.stringMatching(/^5016:/), subscription_status: 'Completed' });
    expect(answer.signed).toBe(true);
    expect((await subscriptionOf(deps(), recurringId)).status).toBe('Completed');
  });
});

describe('refused requests (nothing changed)', () => {
  it.each(['recurring_id', 'contract_name'] as const)('a missing %s: 400 naming it', async (field) => {
    const recurringId = await active();
    const { [field]: _gone, ...body } = cancelBody(shop, recurringId);
    const answer = await shop.post('/v1/cancelsubscription', body);
    expect(answer.status).toBe(400);
    expect(answer.signed).toBe(true);
    expect(answer.body).toMatchObject({ cancel_status: '0', error_message: `4001:${field} is required` });
    expect((await subscriptionOf(deps(), recurringId)).status).toBe('Active');
  });

  it('an unknown field: 400 4019', async () => {
    const recurringId = await active();
    const answer = await shop.post('/v1/cancelsubscription', { ...cancelBody(shop, recurringId), reason: 'x' });
    expect(answer.status).toBe(400);
    expect(answer.body.error_message).toMatch(/^4019:/);
    expect((await subscriptionOf(deps(), recurringId)).status).toBe('Active');
  });

  it('a wrong signature: 401', async () => {
    const recurringId = await active();
    const answer = await shop.post('/v1/cancelsubscription', cancelBody(shop, recurringId), { secret: 'sk_test_wrong' });
    expect(answer.status).toBe(401);
    expect((await subscriptionOf(deps(), recurringId)).status).toBe('Active');
  });
});

describe('a cancel racing a charge', () => {
  it('lets a charge already in flight complete, and starts nothing after it', async () => {
    const { recurringId, orderNo } = await begin();
    clock.set('2026-02-28T10:15:00Z');
    const held = armGate(orderNo);
    const billing = billSubscriptions(deps());
    await held.entered;
    // The charge is claimed and at the processor: the cancel arrives now.
    expect((await cancel(shop, recurringId)).body).toMatchObject({ cancel_status: '1', subscription_status: 'Inactived' });
    held.open();
    gate = undefined;
    await billing;
    await runBilling(deps());
    expect((await chargesOf(deps(), recurringId)).map((c) => [c.cycle, c.status])).toEqual([[2, 'succeeded']]);
    expect(receivedFor(orderNo)).toEqual([`${orderNo} R2-1`]);
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Inactived', cycles_paid: 2, next_charge_at: null });
    clock.set('2027-06-01T00:00:00Z');
    await runBilling(deps());
    expect(await chargesOf(deps(), recurringId)).toHaveLength(1);
  });

  it('never sends an attempt claimed but not yet sent when its worker was killed in between', async () => {
    const { recurringId, orderNo } = await begin(shop, {}, { notify_url: 'http://127.0.0.1:9/hook' });
    clock.set('2026-02-28T10:15:00Z');
    // A worker's round, up to where it is killed: cycle 2's attempt claimed and leased for
    // charging, its payment not yet made, nothing sent to the processor.
    // (Other subscriptions of this file due by now are claimed, and left, with it.)
    expect(await openDueCharges(deps(), 50)).toBeGreaterThanOrEqual(1);
    const leased = await leasePendingCharges(deps().database.db, deps(), 50, deps().config.processor.leaseMs);
    expect(leased.map((charge) => charge.subscriptionId)).toContain(recurringId);
    expect((await chargesOf(deps(), recurringId)).map((c) => [c.cycle, c.status, c.payment_id])).toEqual([[2, 'pending', null]]);

    expect((await cancel(shop, recurringId)).body).toMatchObject({ cancel_status: '1', error_message: '', subscription_status: 'Inactived' });
    // The killed worker's lease runs out; another worker takes the attempt up.
    clock.advance(deps().config.processor.leaseMs + 1_000);
    await runBilling(deps());

    expect(receivedFor(orderNo)).toEqual([]);
    expect(await paymentsOf(orderNo)).toEqual([]);
    expect(await chargesOf(deps(), recurringId)).toEqual([
      expect.objectContaining({ cycle: 2, attempt: 1, status: 'failed', payment_id: null, result_code: '5017' }),
    ]);
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Inactived', cycles_paid: 1, next_charge_at: null });
    expect(await eventsOf(deps(), 'subscription.charge_failed', recurringId)).toEqual([
      expect.objectContaining({
        cycle: '2',
        attempt: '1',
        transaction_id: '',
        order_no: `${orderNo} R2-1`,
        order_status: '0',
        payment_status: '',
        result_info: '5017:Not charged: the subscription was cancelled before this charge was sent',
        subscription_status: 'Inactived',
        recurring_deduction_time: '',
      }),
    ]);
    clock.set('2027-06-01T00:00:00Z');
    await runBilling(deps());
    expect(await chargesOf(deps(), recurringId)).toHaveLength(1);
    expect(receivedFor(orderNo)).toEqual([]);
  });

  it('resolves an attempt already sent, its answer lost, by asking the processor: never sent again', async () => {
    const { recurringId, orderNo } = await begin();
    clock.set('2026-02-28T10:15:00Z');
    loseAnswers = true;
    try {
      await billSubscriptions(deps());
    } finally {
      loseAnswers = false;
    }
    // At the processor, its outcome unknown to the gateway: pending.
    expect((await chargesOf(deps(), recurringId)).map((c) => c.status)).toEqual(['pending']);
    expect(await paymentsOf(orderNo)).toEqual([{ status: 'processing' }]);

    expect((await cancel(shop, recurringId)).body).toMatchObject({ cancel_status: '1', subscription_status: 'Inactived' });
    // The sweepers ask the processor once the call has surely ended, and the attempt is recorded at its next check.
    for (let round = 0; round < 2; round++) {
      clock.advance(deps().config.processor.leaseMs + 1_000);
      await runBilling(deps());
    }

    // Asked, the processor said it charged: recorded as such, and sent once only.
    expect(receivedFor(orderNo)).toEqual([`${orderNo} R2-1`]);
    expect(await paymentsOf(orderNo)).toEqual([{ status: 'captured' }]);
    expect((await chargesOf(deps(), recurringId)).map((c) => [c.cycle, c.attempt, c.status, c.result_code])).toEqual([[2, 1, 'succeeded', '0000']]);
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Inactived', cycles_paid: 2, next_charge_at: null });
    clock.set('2027-06-01T00:00:00Z');
    await runBilling(deps());
    expect(receivedFor(orderNo)).toHaveLength(1);
  });

  it('sends an attempt only if it was marked sent before the cancel committed, whatever runs at once', async () => {
    for (let round = 0; round < 6; round++) {
      const { recurringId, orderNo } = await begin();
      clock.set('2026-02-28T10:15:00Z');
      const [answer] = await Promise.all([cancel(shop, recurringId), runBilling(deps())]);
      expect(answer.body).toMatchObject({ cancel_status: '1', subscription_status: 'Inactived' });
      await runBilling(deps());
      const rows = await gw.database.query<{ status: string; result_code: string | null; sent: boolean; payment_id: string | null }>(
        'SELECT status, result_code, sent_at IS NOT NULL AS sent, payment_id FROM subscription_charges WHERE subscription_id = $1',
        [recurringId],
      );
      // Either the worker marked it sent first (the cancel found a charge in flight: it is charged
      // once), or the cancel committed first (never sent), or no attempt was claimed at all.
      const sent = receivedFor(orderNo);
      if (rows.length === 0) expect(sent).toEqual([]);
      else if (rows[0]!.status === 'succeeded') expect([rows[0]!.sent, sent]).toEqual([true, [`${orderNo} R2-1`]]);
      else expect([rows[0], sent]).toEqual([{ status: 'failed', result_code: '5017', sent: false, payment_id: null }, []]);
      expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Inactived', next_charge_at: null });
    }
  });

  it('starts no charge when the cancel comes first, however late the worker', async () => {
    const recurringId = await active();
    clock.set('2026-03-15T00:00:00Z');
    await cancel(shop, recurringId);
    await runBilling(deps());
    expect(await chargesOf(deps(), recurringId)).toEqual([]);
  });
});

describe('acquiro subscriptions', () => {
  it('lists an account’s subscriptions, shows one with its charges, and cancels one', async () => {
    const merchant = await gw.merchant();
    const recurringId = await active(merchant);
    clock.set('2026-03-01T00:00:00Z');
    await runBilling(deps());
    const ids = ['--merchant-id', merchant.ids.merchant_id, '--account-id', merchant.ids.account_id];
    const list = await runCommand(['subscriptions', 'list', ...ids, '--json'], deps());
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ recurring_id: recurringId, status: 'Active', cycles_paid: 2, contract_amount: '10.00' })]);
    // More than a list prints at once is refused, not cut down to a page the operator takes for all.
    const tooMany = await runCommand(['subscriptions', 'list', ...ids, '--limit', '5000'], deps());
    expect([tooMany.exitCode, tooMany.stdout, tooMany.stderr]).toEqual([2, '', 'error: --limit must be at most 1000\n']);
    const shown = await runCommand(['subscriptions', 'show', ...ids, '--recurring-id', recurringId, '--json'], deps());
    expect(JSON.parse(shown.stdout).charges).toEqual([expect.objectContaining({ cycle: 2, attempt: 1, status: 'succeeded', amount: '10.00' })]);
    const text = await runCommand(['subscriptions', 'show', ...ids, '--recurring-id', recurringId], deps());
    expect(text.stdout).toContain('status: Active');
    // Another account's subscription is not found through this one.
    const theirs = await runCommand(['subscriptions', 'show', '--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id, '--recurring-id', recurringId], deps());
    expect(theirs.exitCode).toBe(1);
    const cancelled = await runCommand(['subscriptions', 'cancel', ...ids, '--recurring-id', recurringId], deps());
    expect([cancelled.exitCode, cancelled.stdout]).toEqual([0, `subscription ${recurringId} Inactived\n`]);
    expect((await subscriptionOf(deps(), recurringId)).status).toBe('Inactived');
  });

  // It printed the merchant API's code text (5014:Subscription not found), naming neither the
  // subscription nor the account, where `subscriptions show` names both.
  it("refuses to cancel an unknown or another account's subscription, naming it: exit 1, nothing changed", async () => {
    const merchant = await gw.merchant();
    const recurringId = await active(merchant);
    for (const [account, id] of [[shop.ids, recurringId], [merchant.ids, 'RC00000000000000000000000000']] as const) {
      const run = await runCommand(['subscriptions', 'cancel', '--merchant-id', account.merchant_id, '--account-id', account.account_id, '--recurring-id', id, '--json'], deps());
      expect([run.exitCode, run.stdout, run.stderr]).toEqual([1, '', `error: no subscription ${id} on account ${account.account_id}\n`]);
    }
    expect((await subscriptionOf(deps(), recurringId)).status).toBe('Active');
  });
});
