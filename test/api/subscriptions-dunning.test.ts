// Declined recurring charges and their retries (dunning), with the clock moved by hand: the
// sandbox card 4000000000000341 (first payment approved, every later charge declined as
// insufficient funds) through to Unpaid, retries that never reach the next cycle, the account's
// own schedule (`acquiro accounts dunning`), a charge that risk holds for review (the review card
// 4000000000004954 holds every charge of it), and a stored card that expires during the contract.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';
import { cancel, review } from '../support/lifecycle.ts';
import { chargesOf, eventsOf, heldSubscription, runBilling, subscribe, subscribing, subscriptionOf } from '../support/subscriptions.ts';

let gw: TestGateway;
let shop: SignedClient;
const clock = new FakeClock('2026-01-31T10:15:00Z');
const START = '2026-01-31T10:15:00Z';
const DECLINING = '4000000000000341';

beforeAll(async () => {
  gw = await startTestGateway({ clock });
  shop = await gw.merchant();
});
afterAll(() => gw?.close());

const deps = () => gw.gateway.deps;
// The sweeper an hour later on the wall clock each time: a charge still pending is asked about again.
let wallAhead = 0;
const billLater = () => runBilling({ ...deps(), wallClock: { now: () => new Date(Date.now() + (wallAhead += 3_600_000)) } });
const attempts = async (id: string) => (await chargesOf(deps(), id)).map((c) => [c.cycle, c.attempt, c.status, c.due_at, c.result_code]);

describe('dunning with card 4000000000000341', () => {
  it('retries a monthly cycle 1, 3 and 7 days after its due time, each attempt a payment of its own, then leaves the subscription Unpaid', async () => {
    clock.set(START);
    const body = subscribing(shop, {}, { card: DECLINING, notify_url: 'http://127.0.0.1:9/hook' });
    const { recurringId, orderNo } = await subscribe(shop, body);
    const reported = async () => (await shop.post('/v1/authorise', body)).body.recurring_deduction_time;
    const steps: [string, number][] = [
      ['2026-02-28T10:15:00Z', 1],
      ['2026-03-01T10:14:59Z', 1],
      ['2026-03-01T10:15:00Z', 2],
      ['2026-03-03T10:15:00Z', 3],
      ['2026-03-07T10:14:00Z', 3],
      ['2026-03-07T10:15:00Z', 4],
    ];
    for (const [time, count] of steps) {
      clock.set(time);
      await runBilling(deps());
      expect(await chargesOf(deps(), recurringId), time).toHaveLength(count);
      // The first payment's answer, repeated, tells when the next try is taken.
      if (time === '2026-03-01T10:15:00Z') expect(await reported()).toBe('2026-03-03 10:15:00');
    }
    expect(await reported()).toBe('');
    expect(await attempts(recurringId)).toEqual([1, 2, 3, 4].map((attempt) => [2, attempt, 'failed', '2026-02-28T10:15:00', '2002']));
    const charges = await chargesOf(deps(), recurringId);
    expect(new Set(charges.map((c) => c.payment_id)).size).toBe(4);
    expect(charges.map((c) => c.order_no)).toEqual([1, 2, 3, 4].map((attempt) => `${orderNo} R2-${attempt}`));
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Unpaid', next_charge_at: null, cycles_paid: 1 });

    const failed = await eventsOf(deps(), 'subscription.charge_failed', recurringId);
    expect(failed.map((e) => [e.attempt, e.subscription_status, e.recurring_deduction_time])).toEqual([
      ['1', 'Active', '2026-03-01 10:15:00'],
      ['2', 'Active', '2026-03-03 10:15:00'],
      ['3', 'Active', '2026-03-07 10:15:00'],
      ['4', 'Unpaid', ''],
    ]);
    expect(failed[0]).toMatchObject({ cycle: '2', order_status: '0', result_info: '2002:Declined: insufficient funds', amount: '10.00', currency: 'USD', contract_name: 'Gold plan' });

    // Nothing more, ever.
    clock.set('2026-12-31T00:00:00Z');
    expect(await runBilling(deps())).toBe(0);
    expect(await chargesOf(deps(), recurringId)).toHaveLength(4);
  });

  it('keeps a weekly cycle’s retries before the next cycle falls due (1/7, 3/7 and 5/7 of the week)', async () => {
    clock.set(START);
    const { recurringId } = await subscribe(shop, subscribing(shop, { interval: 'week' }, { card: DECLINING }));
    clock.set('2026-03-31T00:00:00Z');
    await runBilling(deps());
    expect((await chargesOf(deps(), recurringId)).map((c) => [c.cycle, c.attempt, c.due_at])).toEqual([1, 2, 3, 4].map((attempt) => [2, attempt, '2026-02-07T10:15:00']));
    const failed = await eventsOf(deps(), 'subscription.charge_failed', recurringId);
    // The next cycle would fall due on 14 February: every retry comes before it.
    expect(failed.map((e) => e.recurring_deduction_time)).toEqual(['2026-02-08 10:15:00', '2026-02-10 10:15:00', '2026-02-12 10:15:00', '']);
    expect((await subscriptionOf(deps(), recurringId)).status).toBe('Unpaid');
  });

  it('follows the account’s own schedule, set with acquiro accounts dunning set', async () => {
    const merchant = await gw.merchant();
    const ids = ['--merchant-id', merchant.ids.merchant_id, '--account-id', merchant.ids.account_id];
    const set = await runCommand(['accounts', 'dunning', 'set', ...ids, '--retry-days', '2,5,8', '--json'], deps());
    expect(set.exitCode, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ account_id: merchant.ids.account_id, retry_days: [2, 5, 8] });
    expect((await runCommand(['accounts', 'dunning', 'set', ...ids, '--retry-days', '5,2,8'], deps())).exitCode).toBe(2);
    expect((await runCommand(['accounts', 'dunning', 'set', ...ids, '--retry-days', 'x'], deps())).exitCode).toBe(2);
    clock.set(START);
    const { recurringId } = await subscribe(merchant, subscribing(merchant, {}, { card: DECLINING }));
    clock.set('2026-03-03T00:00:00Z');
    await runBilling(deps());
    expect((await chargesOf(deps(), recurringId)).map((c) => c.attempt)).toEqual([1, 2]);
    clock.set('2026-03-06T00:00:00Z');
    await runBilling(deps());
    expect((await chargesOf(deps(), recurringId)).map((c) => c.attempt)).toEqual([1, 2, 3]);
    clock.set('2026-03-09T00:00:00Z');
    await runBilling(deps());
    expect((await chargesOf(deps(), recurringId)).map((c) => c.attempt)).toEqual([1, 2, 3, 4]);
    expect((await subscriptionOf(deps(), recurringId)).status).toBe('Unpaid');
    const shown = await runCommand(['accounts', 'dunning', 'show', ...ids], deps());
    expect(shown.stdout).toContain('2, 5, 8 days after the due time');
  });

  it('refuses an account schedule that would retry a monthly cycle less than 3 times over 7 days, keeping the one it has', async () => {
    const merchant = await gw.merchant();
    const ids = ['--merchant-id', merchant.ids.merchant_id, '--account-id', merchant.ids.account_id];
    expect((await runCommand(['accounts', 'dunning', 'set', ...ids, '--retry-days', '1,3,7'], deps())).exitCode).toBe(0);
    // Two retries; three over 3 days; the third after 27 days, past February's window (28 days).
    for (const days of ['2,5', '1,2,3', '1,3,28']) {
      const refused = await runCommand(['accounts', 'dunning', 'set', ...ids, '--retry-days', days], deps());
      // Told before the database is opened, as the CLI's other value refusals (exit 2).
      expect(refused.exitCode, days).toBe(2);
      expect(refused.stderr, days).toContain('at least 3 retries');
    }
    expect(JSON.parse((await runCommand(['accounts', 'dunning', 'show', ...ids, '--json'], deps())).stdout).retry_days).toEqual([1, 3, 7]);
    expect((await runCommand(['accounts', 'dunning', 'set', ...ids, '--retry-days', '1,2,3,7,30'], deps())).exitCode).toBe(0);
  });

  it('retries a daily plan within its day when the account’s own days all fall after the next cycle: the default fractions of the period', async () => {
    const merchant = await gw.merchant();
    const ids = ['--merchant-id', merchant.ids.merchant_id, '--account-id', merchant.ids.account_id];
    expect((await runCommand(['accounts', 'dunning', 'set', ...ids, '--retry-days', '2,5,10'], deps())).exitCode).toBe(0);
    clock.set(START);
    const { recurringId } = await subscribe(merchant, subscribing(merchant, { interval: 'day', billing_cycle: '2' }, { card: DECLINING }));
    clock.set('2026-02-01T10:15:00Z');
    await runBilling(deps());
    // Cycle 2 is due on 1 February at 10:15; the next cycle would be a day later: 1/7 of the day is 3 h 25 min 42.857 s.
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Active', next_attempt: 2 });
    clock.set('2026-02-03T00:00:00Z');
    await runBilling(deps());
    const failed = await eventsOf(deps(), 'subscription.charge_failed', recurringId);
    expect(failed.map((e) => [e.attempt, e.recurring_deduction_time])).toEqual([
      ['1', '2026-02-01 13:40:42'],
      ['2', '2026-02-01 20:32:08'],
      ['3', '2026-02-02 03:23:34'],
      ['4', ''],
    ]);
    expect((await subscriptionOf(deps(), recurringId)).status).toBe('Unpaid');
  });

  it('never retries the contract’s last cycle after contract_end', async () => {
    clock.set(START);
    // Cycle 3 would fall due on 31 March, after contract_end: cycle 2 (28 February) is the last.
    const { recurringId } = await subscribe(shop, subscribing(shop, { contract_end: '2026-03-02' }, { card: DECLINING }));
    clock.set('2026-12-31T00:00:00Z');
    await runBilling(deps());
    // The retry of 1 March is on a day the contract still covers; those of 3 and 7 March are not.
    expect((await chargesOf(deps(), recurringId)).map((c) => [c.cycle, c.attempt, c.status])).toEqual([
      [2, 1, 'failed'],
      [2, 2, 'failed'],
    ]);
    const failed = await eventsOf(deps(), 'subscription.charge_failed', recurringId);
    expect(failed.map((e) => [e.attempt, e.subscription_status, e.recurring_deduction_time])).toEqual([
      ['1', 'Active', '2026-03-01 10:15:00'],
      ['2', 'Unpaid', ''],
    ]);
  });

  it('keeps the last cycle’s retries within one period of its due time (billing_cycle reached)', async () => {
    const merchant = await gw.merchant();
    const ids = ['--merchant-id', merchant.ids.merchant_id, '--account-id', merchant.ids.account_id];
    expect((await runCommand(['accounts', 'dunning', 'set', ...ids, '--retry-days', '2,5,10'], deps())).exitCode).toBe(0);
    clock.set(START);
    const { recurringId } = await subscribe(merchant, subscribing(merchant, { interval: 'week', billing_cycle: '2' }, { card: DECLINING }));
    clock.set('2026-12-31T00:00:00Z');
    await runBilling(deps());
    // Cycle 2 is due on 7 February; its window closes a week later: the retry of 17 February is dropped.
    const failed = await eventsOf(deps(), 'subscription.charge_failed', recurringId);
    expect(failed.map((e) => [e.attempt, e.recurring_deduction_time])).toEqual([
      ['1', '2026-02-09 10:15:00'],
      ['2', '2026-02-12 10:15:00'],
      ['3', ''],
    ]);
    expect((await subscriptionOf(deps(), recurringId)).status).toBe('Unpaid');
  });
});

describe('a recurring charge held for review', () => {
  const heldFromStart = () => {
    clock.set(START);
    return heldSubscription(shop);
  };
  const decide = async (recurringId: string, attempt: number, flag: '0' | '1') => {
    const charge = (await chargesOf(deps(), recurringId))[attempt - 1]!;
    expect((await review(shop, { transaction_id: charge.payment_id!, order_no: charge.order_no, currency: 'USD', amount: '10.00' }, flag)).review_status).toBe('1');
  };

  it('keeps the cycle pending, no other attempt made, until the review approves it: the cycle is paid and the next one follows on its date', async () => {
    const recurringId = await heldFromStart();
    clock.set('2026-02-28T10:15:00Z');
    await billLater();
    await billLater();
    expect(await attempts(recurringId)).toEqual([[2, 1, 'pending', '2026-02-28T10:15:00', null]]);
    await decide(recurringId, 1, '1');
    await billLater();
    clock.set('2026-03-31T10:15:00Z');
    await billLater();
    expect(await attempts(recurringId)).toEqual([
      [2, 1, 'succeeded', '2026-02-28T10:15:00', '0000'],
      [3, 1, 'pending', '2026-03-31T10:15:00', null],
    ]);
    const [charged] = await eventsOf(deps(), 'subscription.charged', recurringId);
    expect(charged).toMatchObject({ cycle: '2', subscription_status: 'Active', recurring_deduction_time: '2026-03-31 10:15:00' });
  });

  it('fails an attempt the review rejects (dunning retries it), and rejects a hold still undecided when the next cycle falls due (3003): Unpaid', async () => {
    const recurringId = await heldFromStart();
    clock.set('2026-02-28T10:15:00Z');
    await billLater();
    await decide(recurringId, 1, '0');
    await billLater();
    clock.set('2026-03-01T10:15:00Z');
    await billLater();
    clock.set('2026-03-31T10:14:59Z');
    await billLater();
    expect(await attempts(recurringId)).toEqual([
      [2, 1, 'failed', '2026-02-28T10:15:00', '3002'],
      [2, 2, 'pending', '2026-02-28T10:15:00', null],
    ]);
    // The window of cycle 2 closes when cycle 3 falls due: the gateway releases the hold.
    clock.set('2026-03-31T10:15:00Z');
    await billLater();
    const charges = await chargesOf(deps(), recurringId);
    expect(charges.map((c) => [c.attempt, c.status, c.result_code])).toEqual([
      [1, 'failed', '3002'],
      [2, 'failed', '3003'],
    ]);
    const [payment] = await gw.database.query<{ status: string }>('SELECT status FROM payments WHERE id = $1', [charges[1]!.payment_id]);
    expect(payment!.status).toBe('cancelled');
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Unpaid', next_charge_at: null });
    const failed = await eventsOf(deps(), 'subscription.charge_failed', recurringId);
    expect(failed.map((e) => [e.attempt, e.result_info, e.subscription_status, e.recurring_deduction_time])).toEqual([
      ['1', '3002:Rejected on review', 'Active', '2026-03-01 10:15:00'],
      ['2', '3003:Review not decided in time: the hold was released', 'Unpaid', ''],
    ]);
    clock.set('2026-12-31T00:00:00Z');
    await billLater();
    expect(await chargesOf(deps(), recurringId)).toHaveLength(2);
  });

  it('fails an attempt whose held payment /v1/cancel voids, with the result every cancelled payment carries (0000), and retries it', async () => {
    const recurringId = await heldFromStart();
    clock.set('2026-02-28T10:15:00Z');
    await billLater();
    const [charge] = await chargesOf(deps(), recurringId);
    const voided = await cancel(shop, { transaction_id: charge!.payment_id!, order_no: charge!.order_no, currency: 'USD', amount: '10.00' });
    expect(voided.cancel_status).toBe('1');
    await billLater();
    expect((await chargesOf(deps(), recurringId)).map((c) => [c.attempt, c.status, c.result_code])).toEqual([[1, 'failed', '0000']]);
    const failed = await eventsOf(deps(), 'subscription.charge_failed', recurringId);
    expect(failed.map((e) => [e.attempt, e.payment_status, e.result_info, e.subscription_status, e.recurring_deduction_time])).toEqual([
      ['1', '4000', '0000:Success', 'Active', '2026-03-01 10:15:00'],
    ]);
  });
});

describe('a stored card that expires during the subscription', () => {
  it('is charged until its expiry month ends, then declined as expired (2003), and dunning follows', async () => {
    clock.set(START);
    const { recurringId } = await subscribe(shop, subscribing(shop, {}, { expiration_month: '03', expiration_year: '2026' }));
    // Charged on each due date: the card is checked against the clock when it is charged.
    for (const time of ['2026-02-28T10:15:00Z', '2026-03-31T10:15:00Z', '2026-05-15T00:00:00Z']) {
      clock.set(time);
      await runBilling(deps());
    }
    expect(await attempts(recurringId)).toEqual([
      [2, 1, 'succeeded', '2026-02-28T10:15:00', '0000'],
      [3, 1, 'succeeded', '2026-03-31T10:15:00', '0000'],
      [4, 1, 'failed', '2026-04-30T10:15:00', '2003'],
      [4, 2, 'failed', '2026-04-30T10:15:00', '2003'],
      [4, 3, 'failed', '2026-04-30T10:15:00', '2003'],
      [4, 4, 'failed', '2026-04-30T10:15:00', '2003'],
    ]);
    expect((await subscriptionOf(deps(), recurringId)).status).toBe('Unpaid');
  });
});
