// A subscription's recurring charges with the clock moved by hand (FakeClock), through the
// billing sweeper as a worker runs it: 13 monthly cycles begun on 31 January (the month-end rule),
// missed cycles taken in order, each charge a payment of its own (query, refund, notification),
// promotion and billing cycles, contract_start and contract_end, the account's capture mode, and
// a merchant or account disabled by an operator: its cycles skipped, never charged (4410).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import { openDueCharges } from '../../src/app/subscriptions/bill.ts';
import { leasePendingCharges } from '../../src/db/repositories/subscriptions.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';
import { single } from '../support/lifecycle.ts';
import { returnedOutcome, shopper } from '../support/shopper.ts';
import { chargesOf, eventsOf, runBilling, subscribe, subscribing, subscriptionOf } from '../support/subscriptions.ts';

let gw: TestGateway;
let shop: SignedClient;
const clock = new FakeClock('2026-01-31T10:15:00Z');
const START = '2026-01-31T10:15:00Z';

beforeAll(async () => {
  gw = await startTestGateway({ clock });
  shop = await gw.merchant();
  await gw.database.query('INSERT INTO account_ips (account_id, cidr) VALUES ($1, $2)', [shop.ids.account_id, '127.0.0.1/32']);
});
afterAll(() => gw?.close());

const deps = () => gw.gateway.deps;
const at = (time: string) => clock.set(time);
const succeeded = async (id: string) => (await chargesOf(deps(), id)).filter((charge) => charge.status === 'succeeded');

describe('monthly charges', () => {
  it('takes 13 cycles (the first payment and 12 charges) on the anchor’s day, clamped to short months, each once', async () => {
    at(START);
    const body = subscribing(shop, {}, { notify_url: 'http://127.0.0.1:9/hook' });
    const { recurringId, orderNo, transactionId } = await subscribe(shop, body);
    const dues = ['2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31', '2026-06-30', '2026-07-31', '2026-08-31', '2026-09-30', '2026-10-31', '2026-11-30', '2026-12-31', '2027-01-31'];
    for (const [i, day] of dues.entries()) {
      at(`${day}T10:14:59Z`);
      await runBilling(deps());
      expect(await succeeded(recurringId), `not before ${day}`).toHaveLength(i);
      at(`${day}T10:15:00Z`);
      await runBilling(deps());
      await runBilling(deps());
      expect(await succeeded(recurringId), `on ${day}`).toHaveLength(i + 1);
    }
    const charges = await chargesOf(deps(), recurringId);
    expect(charges.map((c) => [c.cycle, c.attempt, c.status, c.due_at, c.order_no, c.amount])).toEqual(
      dues.map((day, i) => [i + 2, 1, 'succeeded', `${day}T10:15:00`, `${orderNo} R${i + 2}-1`, 1000]),
    );
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Active', cycles_paid: 13, next_cycle: 14 });

    // Each charge is a payment of its own: found by its order_no, captured, refundable, notified.
    const third = charges[1]!;
    const query = await shop.post('/v1/retrievalTrans', { ...shop.ids, order_no: third.order_no }, { format: 'form' });
    expect(query.body.orders_list).toEqual([
      expect.objectContaining({ transaction_id: third.payment_id, order_no: third.order_no, amount: '10.00', payment_status: '3000', recurring_id: recurringId, contract_name: 'Gold plan' }),
    ]);
    const refund = await single(shop, 'refund_orders', { transaction_id: third.payment_id, order_no: third.order_no, currency: 'USD', amount: '10.00', refund_amount: '10.00' });
    expect(refund.refund_status, refund.refund_message).toBe('1');
    const notified = await eventsOf(deps(), 'subscription.charged', recurringId);
    expect(notified).toHaveLength(12);
    expect(notified[1]).toEqual({
      notify_type: 'subscription.charged',
      merchant_id: shop.ids.merchant_id,
      account_id: shop.ids.account_id,
      recurring_id: recurringId,
      contract_name: 'Gold plan',
      contract: '',
      price_id: '',
      cycle: '3',
      attempt: '1',
      transaction_id: third.payment_id,
      order_no: third.order_no,
      amount: '10.00',
      currency: 'USD',
      order_status: '1',
      payment_status: '3000',
      result_info: '0000:Success',
      subscription_status: 'Active',
      recurring_deduction_period: '1 month',
      recurring_deduction_time: '2026-04-30 10:15:00',
    });

    // The first payment reports the subscription's next charge as it now stands (cycle 14), not cycle 2's:
    // in its query record, its repeated answer and its later notifications.
    const NEXT = '2027-02-28 10:15:00';
    const first = await shop.post('/v1/retrievalTrans', { ...shop.ids, order_no: orderNo }, { format: 'form' });
    expect(first.body.orders_list).toEqual([expect.objectContaining({ transaction_id: transactionId, recurring_id: recurringId, recurring_deduction_time: NEXT })]);
    expect((await shop.post('/v1/authorise', body)).body).toMatchObject({ transaction_id: transactionId, recurring_deduction_period: '1 month', recurring_deduction_time: NEXT });
    const partial = await single(shop, 'refund_orders', { transaction_id: transactionId, order_no: orderNo, currency: 'USD', amount: '10.00', refund_amount: '1.00' });
    expect(partial.refund_status, partial.refund_message).toBe('1');
    const refunded = (await eventsOf(deps(), 'refund.succeeded', recurringId)).filter((event) => event.transaction_id === transactionId);
    expect(refunded.map((event) => event.recurring_deduction_time)).toEqual([NEXT]);
  });

  it('takes every missed cycle, in order, when the clock jumps past several due dates', async () => {
    at(START);
    const { recurringId } = await subscribe(shop, subscribing(shop));
    at('2026-05-02T00:00:00Z');
    await runBilling(deps());
    const charges = await chargesOf(deps(), recurringId);
    expect(charges.map((c) => [c.cycle, c.due_at, c.status])).toEqual([
      [2, '2026-02-28T10:15:00', 'succeeded'],
      [3, '2026-03-31T10:15:00', 'succeeded'],
      [4, '2026-04-30T10:15:00', 'succeeded'],
    ]);
    // Taken one after the other: each cycle's charge is recorded (and notified) before the next is claimed.
    expect((await eventsOf(deps(), 'subscription.charged', recurringId)).map((event) => event.cycle)).toEqual(['2', '3', '4']);
    expect((await subscriptionOf(deps(), recurringId)).next_charge_at.toISOString()).toBe('2026-05-31T10:15:00.000Z');
  });

  it('authorises the charges of a manual-capture account, for it to capture', async () => {
    at(START);
    const manual = await gw.merchant({ captureMode: 'manual' });
    const { recurringId, transactionId, orderNo } = await subscribe(manual, subscribing(manual));
    // The merchant captures the first payment (left uncaptured, its authorisation would expire and end the subscription).
    expect((await single(manual, 'capture_orders', { transaction_id: transactionId, order_no: orderNo, currency: 'USD', amount: '10.00' })).capture_status).toBe('1');
    at('2026-03-01T00:00:00Z');
    await runBilling(deps());
    const [charge] = await chargesOf(deps(), recurringId);
    const [payment] = await gw.database.query<{ status: string }>('SELECT status FROM payments WHERE id = $1', [charge!.payment_id]);
    expect([charge!.status, payment!.status]).toEqual(['succeeded', 'authorised']);
  });
  it('charges a subscription begun after a 3-D Secure challenge: a merchant-initiated charge has no shopper to challenge', async () => {
    at(START);
    const body = subscribing(shop, {}, { card: '4000000000003220', return_url: 'https://shop.example/3ds' });
    const challenged = await shop.post('/v1/authorise', body);
    expect(challenged.body.order_status).toBe('2');
    const done = await shopper(gw.gateway.server.app).answer(challenged.body.redirect_url, { code: '1234', action: 'verify' });
    const recurringId = returnedOutcome(done.location!, shop.secret).fields.recurring_id!;
    expect(recurringId).toMatch(/^RC/);
    at('2026-03-01T00:00:00Z');
    await runBilling(deps());
    const [charge] = await chargesOf(deps(), recurringId);
    const [payment] = await gw.database.query<{ status: string; action_url: string | null }>('SELECT status, action_url FROM payments WHERE id = $1', [charge!.payment_id]);
    expect([charge!.status, payment]).toEqual(['succeeded', { status: 'captured', action_url: null }]);
    expect((await eventsOf(deps(), 'subscription.charged', recurringId)).map((event) => event.cycle)).toEqual(['2']);
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Active', cycles_paid: 2 });
  });
});

describe("the merchant's references", () => {
  it('echoes contract and price_id in every subscription notification and in the operator’s view', async () => {
    at(START);
    const { recurringId } = await subscribe(shop, subscribing(shop, { contract: 'CT-2026-77', price_id: 'price_gold_monthly' }, { notify_url: 'http://127.0.0.1:9/hook' }));
    at('2026-03-01T00:00:00Z');
    await runBilling(deps());
    const references = { contract_name: 'Gold plan', contract: 'CT-2026-77', price_id: 'price_gold_monthly' };
    expect(await eventsOf(deps(), 'subscription.charged', recurringId)).toEqual([expect.objectContaining(references)]);
    const ids = ['--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id];
    const shown = await runCommand(['subscriptions', 'show', ...ids, '--recurring-id', recurringId, '--json'], deps());
    expect(JSON.parse(shown.stdout)).toMatchObject({ contract: 'CT-2026-77', price_id: 'price_gold_monthly' });
    expect((await shop.post('/v1/cancelsubscription', { ...shop.ids, recurring_id: recurringId, contract_name: 'Gold plan' })).body.cancel_status).toBe('1');
    expect(await eventsOf(deps(), 'subscription.cancelled', recurringId)).toEqual([expect.objectContaining(references)]);
  });
});

describe('promotion and billing cycles', () => {
  it('takes the payment’s amount for the promotion cycles, then contract_amount, and stops after billing_cycle', async () => {
    at(START);
    const { recurringId } = await subscribe(shop, subscribing(shop, { contract_amount: '12.50', promotion_cycle: '3', billing_cycle: '5' }, { amount: '5.00' }));
    at('2027-01-01T00:00:00Z');
    await runBilling(deps());
    const charges = await chargesOf(deps(), recurringId);
    expect(charges.map((c) => [c.cycle, c.amount])).toEqual([
      [2, 500],
      [3, 500],
      [4, 1250],
      [5, 1250],
    ]);
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Completed', cycles_paid: 5, next_charge_at: null });
  });

  it('charges contract_amount from the second cycle when promotion_cycle is absent, 0 or 1', async () => {
    for (const promotion of [undefined, '0', '1']) {
      at(START);
      const { recurringId } = await subscribe(shop, subscribing(shop, { contract_amount: '12.50', promotion_cycle: promotion, billing_cycle: '2' }, { amount: '5.00' }));
      at('2026-03-01T00:00:00Z');
      await runBilling(deps());
      expect((await chargesOf(deps(), recurringId)).map((c) => c.amount), String(promotion)).toEqual([1250]);
    }
  });
});

describe('contract_start and contract_end', () => {
  it('charges nothing after contract_end, and completes the subscription', async () => {
    at(START);
    const { recurringId } = await subscribe(shop, subscribing(shop, { contract_end: '2026-04-15' }));
    at('2026-12-01T00:00:00Z');
    await runBilling(deps());
    expect((await chargesOf(deps(), recurringId)).map((c) => c.due_at)).toEqual(['2026-02-28T10:15:00', '2026-03-31T10:15:00']);
    expect((await subscriptionOf(deps(), recurringId)).status).toBe('Completed');
  });

  it('anchors the recurring charges on contract_start when it is later than the first due date', async () => {
    at(START);
    const answer = await shop.post('/v1/authorise', subscribing(shop, { contract_start: '2026-06-01' }));
    expect(answer.body.recurring_deduction_time).toBe('2026-06-01 10:15:00');
    at('2026-07-15T00:00:00Z');
    await runBilling(deps());
    expect((await chargesOf(deps(), answer.body.recurring_id)).map((c) => c.due_at)).toEqual(['2026-06-01T10:15:00', '2026-07-01T10:15:00']);
  });
});

describe('a disabled merchant or account', () => {
  const operator = async (verb: 'disable' | 'enable', ids: readonly string[]) => expect((await runCommand(['merchants', verb, ...ids], deps())).exitCode).toBe(0);
  const idsOf = (client: SignedClient, level: 'merchant' | 'account') =>
    level === 'merchant' ? ['--merchant-id', client.ids.merchant_id] : ['--merchant-id', client.ids.merchant_id, '--account-id', client.ids.account_id];
  const recurringPayments = async (client: SignedClient, orderNo: string) =>
    gw.database.query<{ id: string }>('SELECT id FROM payments WHERE account_id = $1 AND order_no LIKE $2', [client.ids.account_id, `${orderNo} R%`]);

  it.each(['merchant', 'account'] as const)('skips every cycle that falls due while the %s is disabled: not sent, not retried, and not charged once enabled again', async (level) => {
    at(START);
    const frozen = await gw.merchant();
    const { recurringId, orderNo } = await subscribe(frozen, subscribing(frozen, {}, { notify_url: 'http://127.0.0.1:9/hook' }));
    await operator('disable', idsOf(frozen, level));
    // Cycles 2 (28 February) and 3 (31 March) fall due while disabled, and a retry's days with them.
    at('2026-04-15T00:00:00Z');
    await runBilling(deps());
    expect(await recurringPayments(frozen, orderNo)).toEqual([]);
    expect((await chargesOf(deps(), recurringId)).map((c) => [c.cycle, c.attempt, c.status, c.result_code, c.payment_id])).toEqual([
      [2, 1, 'failed', '4410', null],
      [3, 1, 'failed', '4410', null],
    ]);
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Active', cycles_paid: 1, next_cycle: 4, next_attempt: 1 });
    expect((await subscriptionOf(deps(), recurringId)).next_charge_at.toISOString()).toBe('2026-04-30T10:15:00.000Z');
    const failed = await eventsOf(deps(), 'subscription.charge_failed', recurringId);
    expect(failed.map((e) => [e.cycle, e.attempt, e.transaction_id, e.payment_status, e.result_info, e.subscription_status, e.recurring_deduction_time])).toEqual([
      ['2', '1', '', '', '4410:Merchant or account disabled', 'Active', '2026-03-31 10:15:00'],
      ['3', '1', '', '', '4410:Merchant or account disabled', 'Active', '2026-04-30 10:15:00'],
    ]);

    // Enabled again: the missed cycles stay missed; the next one is charged on its date.
    await operator('enable', idsOf(frozen, level));
    await runBilling(deps());
    expect(await recurringPayments(frozen, orderNo)).toEqual([]);
    at('2026-04-30T10:15:00Z');
    await runBilling(deps());
    expect((await chargesOf(deps(), recurringId)).map((c) => [c.cycle, c.status])).toEqual([
      [2, 'failed'],
      [3, 'failed'],
      [4, 'succeeded'],
    ]);
    expect(await recurringPayments(frozen, orderNo)).toHaveLength(1);
    // Two cycles paid (the first payment and cycle 4): the skipped ones are not counted, wherever
    // the merchant reads the count (the operator's view, the portal, subscription.cancelled).
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Active', cycles_paid: 2, next_cycle: 5 });
    const shown = await runCommand(['subscriptions', 'show', '--merchant-id', frozen.ids.merchant_id, '--account-id', frozen.ids.account_id, '--recurring-id', recurringId, '--json'], deps());
    expect(JSON.parse(shown.stdout)).toMatchObject({ cycles_paid: 2 });
    const cancelled = await frozen.post('/v1/cancelsubscription', { ...frozen.ids, recurring_id: recurringId, contract_name: 'Gold plan' });
    expect(cancelled.body.cancel_status).toBe('1');
    expect((await eventsOf(deps(), 'subscription.cancelled', recurringId)).map((event) => event.cycles_paid)).toEqual(['2']);
  });

  it('completes a contract whose last cycle fell due while disabled, charging nothing', async () => {
    at(START);
    const frozen = await gw.merchant();
    const { recurringId, orderNo } = await subscribe(frozen, subscribing(frozen, { billing_cycle: '2' }));
    await operator('disable', idsOf(frozen, 'account'));
    at('2026-03-01T00:00:00Z');
    await runBilling(deps());
    expect(await recurringPayments(frozen, orderNo)).toEqual([]);
    expect((await chargesOf(deps(), recurringId)).map((c) => [c.cycle, c.status, c.result_code])).toEqual([[2, 'failed', '4410']]);
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Completed', cycles_paid: 1, next_charge_at: null });
  });

  it('never sends an attempt claimed before the disable and taken up after it', async () => {
    at(START);
    const frozen = await gw.merchant();
    const { recurringId, orderNo } = await subscribe(frozen, subscribing(frozen));
    at('2026-02-28T10:15:00Z');
    // A worker's round, up to where it is killed: cycle 2's attempt claimed and leased, nothing sent.
    // (Other subscriptions of this file due by now are claimed, and left, with it.)
    await openDueCharges(deps(), 50);
    const leased = await leasePendingCharges(deps().database.db, deps(), 50, deps().config.processor.leaseMs);
    expect(leased.map((charge) => charge.subscriptionId)).toContain(recurringId);
    await operator('disable', idsOf(frozen, 'merchant'));
    // The killed worker's lease runs out; another worker takes the attempt up.
    clock.advance(deps().config.processor.leaseMs + 1_000);
    await runBilling(deps());
    expect(await recurringPayments(frozen, orderNo)).toEqual([]);
    expect((await chargesOf(deps(), recurringId)).map((c) => [c.cycle, c.attempt, c.status, c.result_code, c.payment_id])).toEqual([[2, 1, 'failed', '4410', null]]);
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Active', cycles_paid: 1, next_cycle: 3 });
    const [sent] = await gw.database.query<{ sent: boolean }>('SELECT sent_at IS NOT NULL AS sent FROM subscription_charges WHERE subscription_id = $1', [recurringId]);
    expect(sent!.sent).toBe(false);
  });
});
