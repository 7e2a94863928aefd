// A payment held for review (the review card 4000000000004954) is an authorisation at the
// processor, which the card network drops after its connector's expiry days (the sandbox's seven,
// moved here by the injected clock). The expire-authorisations round releases it then, as a
// review rejection the gateway makes itself: voided once, cancelled with 3003, its hold released,
// one payment.cancelled; an approval sent after that expiry but before the round is refused as it
// is after the round. A recurring charge held for review ends at the first of that expiry and
// its cycle's window, and its two paths never release it twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deps } from '../../src/app/context.ts';
import { expireAuthorisations } from '../../src/app/capture/expire-authorisations.ts';
import { resolvePendingOperations } from '../../src/app/capture/operation.ts';
import { runCommand } from '../../src/cli/commands.ts';
import type { Database } from '../../src/db/client.ts';
import { QUEUES } from '../../src/db/repositories/leases.ts';
import { leaseDuePayments } from '../../src/db/repositories/payments.ts';
import type { SignedClient } from '../support/client.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { allowQueriesFrom, booksOf, eventTypes, hanging, pay, paymentRow, review, scriptedProcessor, type Txn } from '../support/lifecycle.ts';
import { chargesOf, eventsOf, heldSubscription, REVIEW_CARD, runBilling, subscriptionOf } from '../support/subscriptions.ts';

const DAY = 86_400_000;
const clock = new FakeClock('2026-11-22T12:00:00Z');
const processor = scriptedProcessor();
let gw: TestGateway;
let auto: SignedClient;
let manual: SignedClient;
let second: Database;

beforeAll(async () => {
  gw = await startTestGateway({ clock, connectors: processor.connectors });
  auto = await gw.merchant();
  manual = await gw.merchant({ captureMode: 'manual' });
  await allowQueriesFrom(gw, [auto, manual]);
  second = await gw.anotherConnection();
});
afterAll(async () => {
  await second?.close();
  await gw?.close();
});

const deps = () => gw.gateway.deps;
/** A worker `ms` later on the wall clock (leases, re-checks; the test clock moves both otherwise), on the test's business time. */
const later = (ms: number, database: Database = gw.database): Deps => ({ ...deps(), database, wallClock: { now: () => new Date(clock.now().getTime() + ms) } });
const queried = async (client: SignedClient, txn: Txn) =>
  (await client.post('/v1/retrievalTrans', { ...client.ids, transaction_id: txn.transaction_id }, { format: 'form' })).body.orders_list[0];
const cancellations = async (paymentId: string) =>
  (await gw.database.query<{ payload: Record<string, string> }>(`SELECT payload FROM events WHERE payment_id = $1 AND type = 'payment.cancelled'`, [paymentId])).map(
    (row) => row.payload,
  );
const voidsOf = (paymentId: string) => gw.database.query<{ origin: string; status: string }>('SELECT origin, status FROM payment_operations WHERE payment_id = $1', [paymentId]);
async function expectLedgerCheckClean(): Promise<void> {
  const check = await runCommand(['ledger', 'check'], deps());
  expect(check.exitCode, check.stdout + check.stderr).toBe(0);
}

/** What a payment released once for want of a review shows, everywhere a merchant looks. */
async function expectReleasedOnce(client: SignedClient, txn: Txn): Promise<void> {
  const id = txn.transaction_id;
  expect(await paymentRow(gw, id)).toMatchObject({ status: 'cancelled', captured: 0, result_code: '3003' });
  expect(await queried(client, txn)).toMatchObject({ query_result: '1', payment_status: '4000' });
  expect(await eventTypes(gw, id)).toEqual(['payment.review', 'payment.cancelled']);
  expect(await cancellations(id)).toEqual([expect.objectContaining({ order_status: '0', payment_status: '4000', result_info: '3003:Review not decided in time: the hold was released' })]);
  expect(await voidsOf(id)).toEqual([{ origin: 'review_expired', status: 'succeeded' }]);
  expect(await booksOf(gw, id)).toEqual({});
  expect((await review(client, txn, '1')).error_message).toBe('5007:the transaction is already cancelled');
}

describe('a one-off payment held for review', () => {
  it('stays held until its connector’s authorisation expiry, then is released once: cancelled 3003, one payment.cancelled', async () => {
    const held: [SignedClient, Txn][] = [
      [auto, await pay(auto, { card: REVIEW_CARD })],
      [manual, await pay(manual, { card: REVIEW_CARD })],
    ];
    const uncaptured = await pay(manual);

    clock.advance(7 * DAY - 60_000);
    expect(await expireAuthorisations(deps())).toBe(0);
    for (const [client, txn] of held) {
      expect((await paymentRow(gw, txn.transaction_id)).status).toBe('pending_review');
      expect(await queried(client, txn)).toMatchObject({ payment_status: '1003' });
    }

    clock.advance(2 * 60_000);
    const voids = processor.calls.cancel;
    expect(await expireAuthorisations(deps())).toBe(3);
    expect(processor.calls.cancel - voids).toBe(3);
    for (const [client, txn] of held) await expectReleasedOnce(client, txn);
    // The authorisation beside them expires as before.
    expect(await paymentRow(gw, uncaptured.transaction_id)).toMatchObject({ status: 'cancelled', result_code: '2010' });

    expect(await expireAuthorisations(deps())).toBe(0);
    expect(processor.calls.cancel - voids).toBe(3);
    await expectLedgerCheckClean();
  });

  it('is leased like an authorisation: two rounds at once release each once, and one another worker holds waits for its lease', async () => {
    const first = await pay(auto, { card: REVIEW_CARD });
    clock.advance(1_000);
    const others = [await pay(auto, { card: REVIEW_CARD }), await pay(auto, { card: REVIEW_CARD })];
    clock.advance(7 * DAY + 60_000);
    // A worker that leased the oldest and died: its lease holds it for a minute of wall time.
    const dueBy = new Date(clock.now().getTime() - 7 * DAY);
    const dead = await leaseDuePayments(gw.database.db, QUEUES.expiringAuthorisations, deps(), 1, 60_000, { dueBy, scope: 'simulator' });
    expect(dead.map((payment) => payment.id)).toEqual([first.transaction_id]);

    const voids = processor.calls.cancel;
    const rounds = await Promise.all([expireAuthorisations(deps()), expireAuthorisations({ ...deps(), database: second })]);
    expect(rounds[0] + rounds[1]).toBe(2);
    expect(processor.calls.cancel - voids).toBe(2);
    for (const txn of others) await expectReleasedOnce(auto, txn);
    expect((await paymentRow(gw, first.transaction_id)).status).toBe('pending_review');

    expect(await expireAuthorisations(later(61_000))).toBe(1);
    expect(processor.calls.cancel - voids).toBe(3);
    await expectReleasedOnce(auto, first);
    await expectLedgerCheckClean();
  });

  it('killed after claiming the void: another worker leaves it, the pending-operations sweeper settles it once', async () => {
    const txn = await pay(auto, { card: REVIEW_CARD });
    clock.advance(7 * DAY + 60_000);
    // The processor has the void when the worker dies: its round never comes back.
    const stuck = hanging({ ignoring: true });
    processor.script.cancel = (request) => {
      delete processor.script.cancel;
      return stuck.answer(request);
    };
    const voids = processor.calls.cancel;
    const killed = expireAuthorisations(deps());
    await expect.poll(() => processor.calls.cancel).toBe(voids + 1);
    expect(await voidsOf(txn.transaction_id)).toEqual([{ origin: 'review_expired', status: 'pending' }]);
    expect((await paymentRow(gw, txn.transaction_id)).status).toBe('pending_review');

    // Its lease has run out: the next round takes the payment up and finds the void in progress.
    expect(await expireAuthorisations(later(10 * 60_000))).toBe(0);
    expect(processor.calls.cancel).toBe(voids + 1);
    // The sweeper asks the processor about the same void, and records it once.
    expect(await resolvePendingOperations(later(10 * 60_000))).toBe(1);
    expect(await resolvePendingOperations(later(60 * 60_000))).toBe(0);
    expect(processor.calls.cancel).toBe(voids + 2);
    await expectReleasedOnce(auto, txn);

    // The dead worker's call, ending at last, finds the void recorded: nothing is recorded again.
    stuck.release();
    await killed;
    await expectReleasedOnce(auto, txn);
    await expectLedgerCheckClean();
  });
});

describe('an approval after the expiry, before the round has run', () => {
  it('is refused as the round will leave it (5007) on either capture mode: nothing sent, nothing stored; the round then releases it once', async () => {
    const held: [SignedClient, Txn][] = [
      [auto, await pay(auto, { card: REVIEW_CARD })],
      [manual, await pay(manual, { card: REVIEW_CARD })],
    ];
    clock.advance(7 * DAY + 60_000);
    const calls = { ...processor.calls };
    for (const [client, txn] of held) {
      const before = await gw.database.query('SELECT * FROM payments WHERE id = $1', [txn.transaction_id]);
      const approval = await review(client, txn, '1');
      expect(approval).toMatchObject({ review_status: '0', error_message: '5007:the transaction is already cancelled' });
      expect(await gw.database.query('SELECT * FROM payments WHERE id = $1', [txn.transaction_id])).toEqual(before);
      expect(await voidsOf(txn.transaction_id)).toEqual([]);
      expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.review']);
    }
    expect(processor.calls).toEqual(calls);

    expect(await expireAuthorisations(deps())).toBe(2);
    for (const [client, txn] of held) await expectReleasedOnce(client, txn);
    await expectLedgerCheckClean();
  });
});

describe('a recurring charge held for review', () => {
  // The billing sweeper an hour later on the wall clock each time: a charge still pending is asked about again.
  let wallAhead = 0;
  const billLater = (database?: Database) => runBilling(later((wallAhead += 3_600_000), database));
  /** `count` subscriptions of `client` (monthly unless `terms` say otherwise) begun at `start`, each with its cycle-2 charge held for review since `due`. */
  async function heldCharges(start: string, due: string, count = 1, client = auto, terms = {}): Promise<{ recurringId: string; paymentId: string }[]> {
    clock.set(start);
    const recurringIds = [];
    for (let i = 0; i < count; i++) recurringIds.push(await heldSubscription(client, terms));
    clock.set(due);
    await billLater();
    const held = [];
    for (const recurringId of recurringIds) {
      const [charge] = await chargesOf(deps(), recurringId);
      expect(charge).toMatchObject({ cycle: 2, attempt: 1, status: 'pending' });
      expect((await paymentRow(gw, charge!.payment_id!)).status).toBe('pending_review');
      held.push({ recurringId, paymentId: charge!.payment_id! });
    }
    return held;
  }
  const attemptsOf = async (recurringId: string) => (await chargesOf(deps(), recurringId)).map((c) => [c.cycle, c.attempt, c.status, c.result_code]);

  it('ends at its authorisation’s expiry when that comes before its cycle’s window closes: failed 3003, Unpaid', async () => {
    const { recurringId, paymentId } = (await heldCharges('2027-01-31T10:15:00Z', '2027-02-28T10:15:00Z'))[0]!;
    clock.set('2027-03-07T10:14:00Z');
    await expireAuthorisations(deps());
    await billLater();
    expect((await paymentRow(gw, paymentId)).status).toBe('pending_review');

    // Seven days on, weeks before the next cycle falls due (31 March).
    clock.set('2027-03-07T10:16:00Z');
    await expireAuthorisations(deps());
    expect(await paymentRow(gw, paymentId)).toMatchObject({ status: 'cancelled', result_code: '3003' });
    await billLater();
    expect(await attemptsOf(recurringId)).toEqual([[2, 1, 'failed', '3003']]);
    expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Unpaid', next_charge_at: null });
    const failed = await eventsOf(deps(), 'subscription.charge_failed', recurringId);
    expect(failed.map((e) => [e.result_info, e.subscription_status])).toEqual([['3003:Review not decided in time: the hold was released', 'Unpaid']]);
    expect(await cancellations(paymentId)).toHaveLength(1);
    expect(await booksOf(gw, paymentId)).toEqual({});
  });

  it('is released once when its cycle’s window and its authorisation’s expiry are both past and both paths run at once', async () => {
    const held = await heldCharges('2027-05-15T10:15:00Z', '2027-06-15T10:15:00Z', 3);
    // Cycle 3 falls due on 15 July: the window of cycle 2 has closed, and its charge is weeks old.
    clock.set('2027-08-01T00:00:00Z');
    const voids = processor.calls.cancel;
    await Promise.all([billLater(second), expireAuthorisations(deps())]);
    await billLater();
    expect(processor.calls.cancel - voids).toBe(3);
    for (const { recurringId, paymentId } of held) {
      expect(await attemptsOf(recurringId)).toEqual([[2, 1, 'failed', '3003']]);
      expect((await subscriptionOf(deps(), recurringId)).status).toBe('Unpaid');
      expect(await paymentRow(gw, paymentId)).toMatchObject({ status: 'cancelled', result_code: '3003' });
      expect(await cancellations(paymentId)).toHaveLength(1);
      expect(await voidsOf(paymentId)).toEqual([{ origin: 'review_expired', status: 'succeeded' }]);
      expect(await booksOf(gw, paymentId)).toEqual({});
    }
    await expectLedgerCheckClean();
  });

  it('is released by one path when the other comes while its void is at the processor, either way round', async () => {
    /** The next void waits at the processor until `meanwhile` has run, then succeeds. */
    const whileVoiding = (meanwhile: () => Promise<unknown>) => {
      processor.script.cancel = async () => {
        delete processor.script.cancel;
        await meanwhile();
        return { ok: true, value: { status: 'succeeded', reference: 'scripted' } };
      };
    };
    const expectOneRelease = async ({ recurringId, paymentId }: { recurringId: string; paymentId: string }) => {
      expect(await attemptsOf(recurringId)).toEqual([[2, 1, 'failed', '3003']]);
      expect(await paymentRow(gw, paymentId)).toMatchObject({ status: 'cancelled', result_code: '3003' });
      expect(await cancellations(paymentId)).toHaveLength(1);
      expect(await voidsOf(paymentId)).toEqual([{ origin: 'review_expired', status: 'succeeded' }]);
      expect(await booksOf(gw, paymentId)).toEqual({});
    };

    // Billing's void (the cycle's window closed) at the processor; the expiry round finds it in progress.
    const [byBilling] = await heldCharges('2027-09-15T10:15:00Z', '2027-10-15T10:15:00Z');
    clock.set('2027-12-01T00:00:00Z');
    let voids = processor.calls.cancel;
    let roundMeanwhile: number | undefined;
    whileVoiding(async () => (roundMeanwhile = await expireAuthorisations(deps())));
    await billLater();
    expect(roundMeanwhile).toBe(0);
    expect(processor.calls.cancel - voids).toBe(1);
    await expectOneRelease(byBilling!);

    // The expiry round's void at the processor; billing finds it in progress, and records the charge once it is known.
    const [byExpiry] = await heldCharges('2028-01-15T10:15:00Z', '2028-02-15T10:15:00Z');
    clock.set('2028-04-01T00:00:00Z');
    voids = processor.calls.cancel;
    whileVoiding(() => billLater());
    expect(await expireAuthorisations(deps())).toBe(1);
    expect(await attemptsOf(byExpiry!.recurringId)).toEqual([[2, 1, 'pending', null]]);
    await billLater();
    expect(processor.calls.cancel - voids).toBe(1);
    await expectOneRelease(byExpiry!);
    await expectLedgerCheckClean();
  });

  it('refuses an approval after its cycle’s window closed, before billing has run, as billing will leave it (5007), on either capture mode: nothing sent, nothing stored; billing then releases it once', async () => {
    // Daily plans: cycle 2 falls due on 2 June, and its window closes when cycle 3 does (3 June),
    // days before the hold's authorisation expiry (9 June): the window alone decides.
    const held = [];
    for (const client of [auto, manual]) {
      const [charge] = await heldCharges('2028-06-01T10:15:00Z', '2028-06-02T10:15:00Z', 1, client, { interval: 'day' });
      const [row] = await chargesOf(deps(), charge!.recurringId);
      held.push({ client, ...charge!, txn: { transaction_id: charge!.paymentId, order_no: row!.order_no, currency: 'USD', amount: '10.00' } });
    }
    clock.set('2028-06-03T10:15:00Z');
    const calls = { ...processor.calls };
    for (const { client, txn } of held) {
      const before = await gw.database.query('SELECT * FROM payments WHERE id = $1', [txn.transaction_id]);
      expect(await review(client, txn, '1')).toMatchObject({ review_status: '0', error_message: '5007:the transaction is already cancelled' });
      expect(await gw.database.query('SELECT * FROM payments WHERE id = $1', [txn.transaction_id])).toEqual(before);
      expect(await voidsOf(txn.transaction_id)).toEqual([]);
      expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.review']);
    }
    expect(processor.calls).toEqual(calls);

    await billLater();
    for (const { recurringId, paymentId } of held) {
      expect(await attemptsOf(recurringId)).toEqual([[2, 1, 'failed', '3003']]);
      expect(await subscriptionOf(deps(), recurringId)).toMatchObject({ status: 'Unpaid', next_charge_at: null });
      expect(await paymentRow(gw, paymentId)).toMatchObject({ status: 'cancelled', result_code: '3003', captured: 0 });
      expect(await cancellations(paymentId)).toHaveLength(1);
      expect(await voidsOf(paymentId)).toEqual([{ origin: 'review_expired', status: 'succeeded' }]);
    }
    await expectLedgerCheckClean();
  });

  it('accepts an approval the moment before its cycle’s window closes', async () => {
    const [charge] = await heldCharges('2028-07-01T10:15:00Z', '2028-07-02T10:15:00Z', 1, auto, { interval: 'day' });
    const [row] = await chargesOf(deps(), charge!.recurringId);
    clock.set('2028-07-03T10:14:59Z');
    const txn = { transaction_id: charge!.paymentId, order_no: row!.order_no, currency: 'USD', amount: '10.00' };
    expect((await review(auto, txn, '1')).review_status).toBe('1');
    await billLater();
    expect((await attemptsOf(charge!.recurringId))[0]).toEqual([2, 1, 'succeeded', '0000']);
  });
});
