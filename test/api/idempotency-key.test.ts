// Idempotency-Key on the batch operations that move money: a retry after a lost answer gets the
// first answer and refunds nothing again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import { PERIODIC_TASKS } from '../../src/jobs/tasks.ts';
import type { SignedClient } from '../support/client.ts';
import { depsLater, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { orderOf, pay } from '../support/lifecycle.ts';
import { until } from '../support/until.ts';

const DAY = 86_400_000;
const purge = PERIODIC_TASKS.find((task) => task.name === 'purge-idempotency-keys')!;
let gw: TestGateway;
let shop: SignedClient;

beforeAll(async () => {
  gw = await startTestGateway();
  shop = await gw.merchant({ rateLimitPerSecond: 10_000 });
});
afterAll(() => gw?.close());

const refundWithKey = (key: string | undefined, orders: Record<string, unknown>[]) =>
  shop.post('/v1/refund', { ...shop.ids, refund_orders: orders }, key === undefined ? {} : { headers: { 'idempotency-key': key } });
const refundTotal = async (paymentId: string) =>
  Number((await gw.database.query<{ total: string }>('SELECT coalesce(sum(amount), 0)::text AS total FROM refunds WHERE payment_id = $1', [paymentId]))[0]!.total);

describe('Idempotency-Key', () => {
  it('answers a retry with the first answer and refunds once', async () => {
    const txn = await pay(shop);
    const orders = [orderOf(txn, { refund_amount: '2.00' })];
    const first = await refundWithKey('refund-42', orders);
    const again = await refundWithKey('refund-42', orders);
    expect(first.body.refund_orders[0].refund_status).toBe('1');
    expect(again.raw).toBe(first.raw);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await refundTotal(txn.transaction_id)).toBe(200);
  });

  it('refunds once when 10 copies with one key arrive at once', async () => {
    const txn = await pay(shop);
    const orders = [orderOf(txn, { refund_amount: '1.00' })];
    const answers = await Promise.all(Array.from({ length: 10 }, () => refundWithKey('burst-1', orders)));
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200]));
    expect(new Set(answers.map((a) => a.body.refund_orders[0].refund_reference_id)).size).toBe(1);
    expect(await refundTotal(txn.transaction_id)).toBe(100);
  });

  it('refuses the key with another body, and leaves the first refund alone', async () => {
    const txn = await pay(shop);
    await refundWithKey('refund-43', [orderOf(txn, { refund_amount: '1.00' })]);
    const other = await refundWithKey('refund-43', [orderOf(txn, { refund_amount: '3.00' })]);
    expect([other.status, other.body.return_status, other.body.return_message]).toEqual([400, '0', '4016:Idempotency-Key already used with a different request']);
    expect(await refundTotal(txn.transaction_id)).toBe(100);
  });

  it('keeps the old behaviour without a key: each request is a refund', async () => {
    const txn = await pay(shop);
    const orders = [orderOf(txn, { refund_amount: '1.00' })];
    await refundWithKey(undefined, orders);
    await refundWithKey(undefined, orders);
    expect(await refundTotal(txn.transaction_id)).toBe(200);
  });

  it('keys belong to one account', async () => {
    const other = await gw.merchant();
    const mine = await pay(shop);
    const theirs = await pay(other);
    await refundWithKey('shared-key', [orderOf(mine, { refund_amount: '1.00' })]);
    const answer = await other.post('/v1/refund', { ...other.ids, refund_orders: [orderOf(theirs, { refund_amount: '1.00' })] }, { headers: { 'idempotency-key': 'shared-key' } });
    expect(answer.body.refund_orders[0].refund_status).toBe('1');
    expect(await refundTotal(theirs.transaction_id)).toBe(100);
  });

  it('refuses a malformed key before doing anything', async () => {
    const txn = await pay(shop);
    const answer = await refundWithKey('x'.repeat(256), [orderOf(txn, { refund_amount: '1.00' })]);
    expect([answer.status, answer.body.return_message]).toEqual([400, '4002:Idempotency-Key is invalid: expected 1 to 255 visible ASCII characters']);
    expect(await refundTotal(txn.transaction_id)).toBe(0);
  });

  it('refuses an empty key, or one of spaces, as malformed: not as no key, which would refund again', async () => {
    const txn = await pay(shop);
    for (const key of ['', '   ', 'my key']) {
      const answer = await refundWithKey(key, [orderOf(txn, { refund_amount: '1.00' })]);
      expect([answer.status, answer.body.return_message, answer.signed], JSON.stringify(key)).toEqual([400, '4002:Idempotency-Key is invalid: expected 1 to 255 visible ASCII characters', true]);
    }
    expect(await refundTotal(txn.transaction_id)).toBe(0);
  });

  it('works the same for captures: the retry is not answered "already captured"', async () => {
    const manual = await gw.merchant({ captureMode: 'manual' });
    const txn = await pay(manual);
    const send = () => manual.post('/v1/capture', { ...manual.ids, capture_orders: [orderOf(txn)] }, { headers: { 'idempotency-key': 'cap-1' } });
    const first = await send();
    const again = await send();
    expect(first.body.capture_orders[0].capture_status).toBe('1');
    expect(again.body).toEqual(first.body);
  });

  // Last in the file: the test clock moved stays moved for this schema.
  it('keeps a key 7 days of wall time: a test clock moved 8 days on forgets nothing', async () => {
    const orders = [orderOf(await pay(shop), { refund_amount: '1.00' })];
    const first = await refundWithKey('clock-key', orders);
    const deps = gw.gateway.deps;
    expect((await runCommand(['clock', 'advance', '--days', '8'], deps)).exitCode).toBe(0);
    await until('the business clock 8 days ahead of the wall clock', () => deps.clock.now().getTime() - deps.wallClock.now().getTime() >= 8 * DAY, { withinMs: 5_000, everyMs: 20 });

    await purge.run(deps);
    const again = await refundWithKey('clock-key', orders);
    expect([again.raw, again.headers['idempotent-replayed']]).toEqual([first.raw, 'true']);
    expect(await gw.database.query(`SELECT 1 FROM idempotency_keys WHERE key = 'clock-key'`)).toHaveLength(1);

    // A key claimed now is stamped with the wall clock too, not the business clock's 8 days ahead.
    await refundWithKey('clock-key-2', [orderOf(await pay(shop), { refund_amount: '1.00' })]);
    // Eight days of wall time forget both.
    await purge.run(depsLater(gw, 8 * DAY));
    expect(await gw.database.query(`SELECT 1 FROM idempotency_keys WHERE key IN ('clock-key', 'clock-key-2')`)).toHaveLength(0);
  });
});
