// An Idempotency-Key whose request died with its process (SIGKILL, crash, deploy) is taken over by
// the merchant's retry, which answers what the dead request did instead of doing it again. Here the
// death is the row a killed request leaves: the key still running, held by a process that no longer
// beats (test/cli/idempotency-restart.test.ts kills a real gateway). The processor is the sandbox
// with its calls counted: a takeover never asks it to move money twice.
import { eq } from 'drizzle-orm';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { refund } from '../../src/app/refund/refund.ts';
import { completeKey, releaseKey } from '../../src/db/repositories/idempotency.ts';
import { beat } from '../../src/db/repositories/processes.ts';
import { accounts } from '../../src/db/schema.ts';
import type { SignedClient } from '../support/client.ts';
import { startTestGateway, TEST_DB, type TestGateway } from '../support/gateway.ts';
import { expectLedgerBalanced, orderOf, pay, scriptedProcessor, type BatchList, type Txn } from '../support/lifecycle.ts';

const REVIEW_CARD = '4000000000004954';
const processor = scriptedProcessor();
let gw: TestGateway;
let shop: SignedClient & { credentials: { account_id: string } };
let manual: SignedClient;

beforeAll(async () => {
  gw = await startTestGateway({ connectors: processor.connectors });
  shop = await gw.merchant({ rateLimitPerSecond: 10_000 });
  manual = await gw.merchant({ captureMode: 'manual', rateLimitPerSecond: 10_000 });
});
afterAll(() => gw?.close());
beforeEach(() => {
  for (const call of Object.keys(processor.calls) as (keyof typeof processor.calls)[]) processor.calls[call] = 0;
  for (const call of Object.keys(processor.script) as (keyof typeof processor.script)[]) delete processor.script[call];
});

const PATHS: Record<BatchList, string> = { refund_orders: '/v1/refund', capture_orders: '/v1/capture', cancel_orders: '/v1/cancel', review_orders: '/v1/review' };
const send = (client: SignedClient, list: BatchList, key: string, orders: Record<string, unknown>[]) =>
  client.post(PATHS[list], { ...client.ids, [list]: orders }, { headers: { 'idempotency-key': key } });

const refundsOf = (txn: Txn) =>
  gw.database.query<{ id: string; amount: number; status: string }>('SELECT id, amount::int AS amount, status FROM refunds WHERE payment_id = $1 ORDER BY id', [txn.transaction_id]);
const operationsOf = (txn: Txn) => gw.database.query<{ kind: string; status: string }>('SELECT kind, status FROM payment_operations WHERE payment_id = $1', [txn.transaction_id]);
/** What a review decided on each payment: its state and version, its events, its operations. */
const decisionsOf = (...txns: Txn[]) =>
  Promise.all(
    txns.map(async (txn) => ({
      payment: await gw.database.query('SELECT status, version FROM payments WHERE id = $1', [txn.transaction_id]),
      events: await gw.database.query('SELECT type FROM events WHERE payment_id = $1 ORDER BY created_at, id', [txn.transaction_id]),
      operations: await operationsOf(txn),
    })),
  );
const keyRow = (key: string) =>
  gw.database.query<{ status: string; holder: string | null; account_id: string }>('SELECT status, holder, account_id FROM idempotency_keys WHERE key = $1', [key]);

/**
 * The key as a request killed after its claims leaves it: running, no answer kept, held by a process
 * that is gone (it never beats here) with its lease still running for a minute.
 */
async function dieHolding(key: string): Promise<void> {
  await gw.database.query(
    `UPDATE idempotency_keys SET status = 'processing', holder = 'gone-4242', held_until = $2, http_status = NULL, content_type = NULL, answer = NULL WHERE key = $1`,
    [key, new Date(Date.now() + 60_000)],
  );
}

describe('an Idempotency-Key whose request died', () => {
  it('is taken over by the retry, which answers the refund the dead request claimed and asks the processor nothing', async () => {
    const txn = await pay(shop);
    // The processor takes the refund but says nothing final: it is pending when the request dies.
    processor.script.refund = async () => ({ ok: true, value: { status: 'pending', reference: 'held-at-processor' } });
    const first = await send(shop, 'refund_orders', 'died-1', [orderOf(txn, { refund_amount: '2.00' })]);
    expect(first.body.refund_orders[0].refund_status).toBe('2');
    await dieHolding('died-1');

    const retry = await send(shop, 'refund_orders', 'died-1', [orderOf(txn, { refund_amount: '2.00' })]);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.body.refund_orders[0]).toMatchObject({ refund_status: '2', refund_reference_id: first.body.refund_orders[0].refund_reference_id });
    expect(await refundsOf(txn)).toEqual([{ id: first.body.refund_orders[0].refund_reference_id, amount: 200, status: 'pending' }]);
    expect(processor.calls.refund).toBe(1);
    // The retry's answer is kept: the next repeat replays it.
    expect(await keyRow('died-1')).toEqual([{ status: 'done', holder: null, account_id: shop.ids.account_id }]);
    const again = await send(shop, 'refund_orders', 'died-1', [orderOf(txn, { refund_amount: '2.00' })]);
    expect([again.raw, again.headers['idempotent-replayed']]).toEqual([retry.raw, 'true']);
  });

  it('runs again the orders the dead request claimed nothing for', async () => {
    const a = await pay(manual);
    await send(manual, 'capture_orders', 'cp-a', [orderOf(a)]);
    const b = await pay(manual);
    const orders = [orderOf(a, { refund_amount: '1.00' }), orderOf(b, { refund_amount: '3.00' })];
    // The request refunded a, and found b not captured yet (refused: nothing claimed).
    const first = await send(manual, 'refund_orders', 'died-2', orders);
    expect(first.body.refund_orders.map((o: Record<string, string>) => o.refund_status)).toEqual(['1', '0']);
    await dieHolding('died-2');
    await send(manual, 'capture_orders', 'cp-b', [orderOf(b)]);

    const retry = await send(manual, 'refund_orders', 'died-2', orders);
    expect(retry.body.refund_orders.map((o: Record<string, string>) => o.refund_status)).toEqual(['1', '1']);
    expect(retry.body.refund_orders[0].refund_reference_id).toBe(first.body.refund_orders[0].refund_reference_id);
    expect(processor.calls.refund).toBe(2);
    expect((await refundsOf(a)).map((r) => r.amount)).toEqual([100]);
    expect((await refundsOf(b)).map((r) => r.amount)).toEqual([300]);
  });

  it('is taken over by one of 10 retries at once: one refund, one answer', async () => {
    const txn = await pay(shop);
    const first = await send(shop, 'refund_orders', 'died-3', [orderOf(txn, { refund_amount: '1.50' })]);
    await dieHolding('died-3');
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(shop, 'refund_orders', 'died-3', [orderOf(txn, { refund_amount: '1.50' })])));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.raw)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(answers[0]!.body.refund_orders[0].refund_reference_id).toBe(first.body.refund_orders[0].refund_reference_id);
    expect(await refundsOf(txn)).toHaveLength(1);
    expect(processor.calls.refund).toBe(1);
    await expectLedgerBalanced(gw);
  });

  it('is let go on a 5xx: the same body takes it over at once, another body is refused', async () => {
    const txn = await pay(shop);
    const orders = [orderOf(txn, { refund_amount: '1.00' })];
    const first = await send(shop, 'refund_orders', 'failed-5xx', orders);
    // What a 5xx leaves: the holder let the key go without an answer.
    const holder = gw.gateway.server.presence.id;
    await gw.database.query(`UPDATE idempotency_keys SET status = 'processing', holder = $2, answer = NULL WHERE key = $1`, ['failed-5xx', holder]);
    await releaseKey(gw.database.db, shop.ids.account_id, 'failed-5xx', holder);

    const other = await send(shop, 'refund_orders', 'failed-5xx', [orderOf(txn, { refund_amount: '5.00' })]);
    expect([other.status, other.body.return_message]).toEqual([400, '4016:Idempotency-Key already used with a different request']);
    const retry = await send(shop, 'refund_orders', 'failed-5xx', orders);
    expect(retry.body.refund_orders[0]).toMatchObject({ refund_status: '1', refund_reference_id: first.body.refund_orders[0].refund_reference_id });
    expect(await refundsOf(txn)).toHaveLength(1);
  });

  it('answers a capture, a void and a review decision with their first outcome, not "already done"', async () => {
    const toCapture = await pay(manual);
    const captured = await send(manual, 'capture_orders', 'died-cp', [orderOf(toCapture)]);
    expect(captured.body.capture_orders[0].capture_status).toBe('1');
    const toCancel = await pay(manual);
    expect((await send(manual, 'cancel_orders', 'died-vd', [orderOf(toCancel)])).body.cancel_orders[0].cancel_status).toBe('1');
    const toReject = await pay(shop, { card: REVIEW_CARD });
    expect((await send(shop, 'review_orders', 'died-rv', [orderOf(toReject, { review_flag: '0' })])).body.review_orders[0].review_status).toBe('1');
    for (const key of ['died-cp', 'died-vd', 'died-rv']) await dieHolding(key);

    const capture = await send(manual, 'capture_orders', 'died-cp', [orderOf(toCapture)]);
    const cancel = await send(manual, 'cancel_orders', 'died-vd', [orderOf(toCancel)]);
    const review = await send(shop, 'review_orders', 'died-rv', [orderOf(toReject, { review_flag: '0' })]);
    expect(capture.body.capture_orders[0]).toMatchObject({ capture_status: '1', error_message: '' });
    expect(cancel.body.cancel_orders[0]).toMatchObject({ cancel_status: '1', error_message: '' });
    expect(review.body.review_orders[0]).toMatchObject({ review_status: '1', error_message: '' });
    expect(capture.body.capture_orders[0]).toEqual(captured.body.capture_orders[0]);
    expect([processor.calls.capture, processor.calls.cancel]).toEqual([1, 2]);
    expect(await operationsOf(toCapture)).toEqual([{ kind: 'capture', status: 'succeeded' }]);
    expect(await operationsOf(toReject)).toEqual([{ kind: 'void', status: 'succeeded' }]);
  });

  it('answers a manual-capture approval and a rejection it had recorded, to retries at once, deciding nothing again', async () => {
    // Approval on a manual-capture account asks the processor nothing: the payment just becomes
    // authorised, under the order's key. A rejection claims its void under it.
    const toApprove = await pay(manual, { card: REVIEW_CARD });
    const toReject = await pay(manual, { card: REVIEW_CARD });
    const orders = [orderOf(toApprove, { review_flag: '1' }), orderOf(toReject, { review_flag: '0' })];
    const first = await send(manual, 'review_orders', 'died-review', orders);
    expect(first.body.review_orders.map((o: Record<string, string>) => [o.review_status, o.error_message])).toEqual([['1', ''], ['1', '']]);
    const before = await decisionsOf(toApprove, toReject);
    await dieHolding('died-review');

    const retries = await Promise.all(Array.from({ length: 5 }, () => send(manual, 'review_orders', 'died-review', orders)));
    expect(new Set(retries.map((a) => a.raw)).size).toBe(1);
    expect(retries.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(retries[0]!.body.review_orders).toEqual(first.body.review_orders);
    // Decided once: no second state change, notification or void.
    expect(await decisionsOf(toApprove, toReject)).toEqual(before);
    expect(processor.calls.cancel).toBe(1);
    // Another key is another request: the approval is not made twice, the refusal says why.
    const other = await send(manual, 'review_orders', 'another-review', [orders[0]!]);
    expect(other.body.review_orders[0].error_message).toBe('5011:the transaction is not held for review (authorised)');
    await expectLedgerBalanced(gw);
  });

  it('is not taken over from another merchant: the same key on another account is a key of its own', async () => {
    const mine = await pay(shop);
    await send(shop, 'refund_orders', 'shared-dead', [orderOf(mine, { refund_amount: '1.00' })]);
    await dieHolding('shared-dead');
    const other = await gw.merchant();
    const theirs = await pay(other);
    const answer = await send(other, 'refund_orders', 'shared-dead', [orderOf(theirs, { refund_amount: '1.00' })]);
    expect(answer.body.refund_orders[0].refund_status).toBe('1');
    expect(await refundsOf(theirs)).toHaveLength(1);
    const rows = await keyRow('shared-dead');
    expect(rows.find((row) => row.account_id === shop.ids.account_id)).toMatchObject({ status: 'processing', holder: 'gone-4242' });
  });
});

describe('an Idempotency-Key whose request is alive', () => {
  const aliveHolders = () => [
    ['in this process', gw.gateway.server.presence.id] as const,
    // Another gateway beating on the same PostgreSQL (the embedded database has one process).
    ...(TEST_DB === 'postgres' ? [['in another process that beats', 'other-gateway'] as const] : []),
  ];

  it('is waited for, never taken over, while its holder lives and its lease runs', async () => {
    for (const [where, holder] of aliveHolders()) {
      if (holder === 'other-gateway') await beat(gw.database, holder, 'gateway');
      const txn = await pay(shop);
      const key = `alive-${holder}`;
      const first = await send(shop, 'refund_orders', key, [orderOf(txn, { refund_amount: '1.00' })]);
      await gw.database.query(`UPDATE idempotency_keys SET status = 'processing', holder = $2, held_until = $3, answer = NULL WHERE key = $1`, [
        key,
        holder,
        new Date(Date.now() + 60_000),
      ]);
      const calls = processor.calls.refund;
      const retry = send(shop, 'refund_orders', key, [orderOf(txn, { refund_amount: '1.00' })]);
      await sleep(1_500);
      if (holder === 'other-gateway') await beat(gw.database, holder, 'gateway');
      // The live holder finishes and keeps its answer; the waiting retry gets it.
      await completeKey(gw.database.db, shop.ids.account_id, key, holder, { httpStatus: 200, contentType: 'application/json; charset=utf-8', answer: first.raw });
      const answer = await retry;
      expect([answer.raw, answer.headers['idempotent-replayed']], where).toEqual([first.raw, 'true']);
      expect(processor.calls.refund - calls, where).toBe(0);
      expect(await refundsOf(txn), where).toHaveLength(1);
    }
  });

  it('is taken over once its lease has run out, though its holder lives', async () => {
    const txn = await pay(shop);
    const first = await send(shop, 'refund_orders', 'lease-over', [orderOf(txn, { refund_amount: '1.00' })]);
    await gw.database.query(`UPDATE idempotency_keys SET status = 'processing', holder = $2, held_until = $3, answer = NULL WHERE key = $1`, [
      'lease-over',
      gw.gateway.server.presence.id,
      new Date(Date.now() - 1_000),
    ]);
    const retry = await send(shop, 'refund_orders', 'lease-over', [orderOf(txn, { refund_amount: '1.00' })]);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.body.refund_orders[0].refund_reference_id).toBe(first.body.refund_orders[0].refund_reference_id);
    expect(await refundsOf(txn)).toHaveLength(1);
  });
});

describe('an order claimed twice under one key at once (the dead holder was only slow)', () => {
  it('refunds once: the unique key undoes the second claim, reservation included', async () => {
    const [account] = await gw.database.db.select().from(accounts).where(eq(accounts.id, shop.ids.account_id));
    // A few rounds: on PostgreSQL the claims overlap in most of them, not in all.
    for (let round = 0; round < 5; round++) {
      const txn = await pay(shop);
      const order = { transactionId: txn.transaction_id, orderNo: txn.order_no, currency: 'USD', amount: Math.round(Number(txn.amount) * 100), refundAmount: 100, requestKey: `scope-race:${round}` };
      const refunds = await Promise.all(Array.from({ length: 10 }, () => refund(gw.gateway.deps, account!, order)));
      expect(new Set(refunds.map((r) => r.id)).size).toBe(1);
      expect(await refundsOf(txn)).toHaveLength(1);
      const [payment] = await gw.database.query<{ reserved: number; refunded: number }>(
        'SELECT refund_reserved::int AS reserved, refunded_amount::int AS refunded FROM payments WHERE id = $1',
        [txn.transaction_id],
      );
      expect(payment).toEqual({ reserved: 100, refunded: 100 });
    }
    await expectLedgerBalanced(gw);
  });
});
