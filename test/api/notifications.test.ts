// Notifications to notify_url (docs/notifications.md), through a real receiver on loopback: the signed
// body, acknowledgement, retries on the documented schedule with a fake clock, replay, leases.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deliverDueNotifications, LEASE_MS, replayNotification, type DeliveryOptions } from '../../src/app/notifications/deliver.ts';
import { MAX_ATTEMPTS, retryDelayMs } from '../../src/app/notifications/schedule.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { claimDue, claimForReplay } from '../../src/db/repositories/notifications.ts';
import { verify } from '../../src/domain/signature.ts';
import { verifyNotification } from '../../packages/sdk/src/index.ts';
import type { SignedClient } from '../support/client.ts';
import { cardPayment } from '../support/fixtures.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { deadUrl, startReceiver, type Receiver } from '../support/receiver.ts';
import { until } from '../support/until.ts';

const DAY_MS = 24 * 60 * 60_000;

let gw: TestGateway;
let shop: SignedClient;
let receiver: Receiver;
const clock = new FakeClock();

beforeAll(async () => {
  gw = await startTestGateway({ clock });
  shop = await gw.merchant();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await gw?.close();
});
afterEach(() => receiver.reply(() => 200));

const rows = (sql: string, params: unknown[] = []) => gw.database.query<Record<string, any>>(sql, params);
const deliver = (options: DeliveryOptions = {}) => deliverDueNotifications(gw.gateway.deps, options);
const seconds = () => Math.floor(clock.now().getTime() / 1000);

/** A payment whose outcome is announced to `notifyUrl`; answers its transaction_id and notify_id. */
async function pay(notifyUrl: string | undefined, overrides: Record<string, unknown> = {}, client = shop) {
  const answer = await client.post('/v1/authorise', cardPayment(client.ids, { ...(notifyUrl ? { notify_url: notifyUrl } : {}), ...overrides }));
  expect(answer.status).toBe(200);
  const [event] = await rows('SELECT id FROM events WHERE payment_id = $1', [answer.body.transaction_id]);
  return { transactionId: answer.body.transaction_id as string, notifyId: event!.id as string, orderNo: answer.body.order_no as string };
}

const eventRow = async (id: string) => (await rows('SELECT * FROM events WHERE id = $1', [id]))[0]!;
const attemptsOf = (id: string) => rows('SELECT * FROM notification_attempts WHERE event_id = $1 ORDER BY attempt', [id]);
const receivedFor = (notifyId: string) => receiver.received.filter((r) => r.body.notify_id === notifyId);

/** Runs worker rounds until `notifyId` is no longer pending, moving the clock to each next attempt. */
async function runSchedule(notifyId: string): Promise<void> {
  for (let round = 0; round <= MAX_ATTEMPTS; round++) {
    const event = await eventRow(notifyId);
    if (event.delivery_status !== 'pending') return;
    if (event.next_attempt_at) clock.set(event.next_attempt_at);
    await deliver();
  }
  throw new Error(`${notifyId} still pending after ${MAX_ATTEMPTS} rounds`);
}

describe('delivery', () => {
  it('posts the event as signed JSON the SDK verifies, and takes a 2xx as acknowledgement', async () => {
    const { transactionId, notifyId, orderNo } = await pay(receiver.url);
    expect(await deliver()).toBeGreaterThanOrEqual(1);

    const [got, ...more] = receivedFor(notifyId);
    expect(more).toEqual([]);
    expect(got!.headers['content-type']).toMatch(/^application\/json/);
    expect(verify(got!.body, shop.secret)).toBe(true);
    expect(verifyNotification(got!.body, shop.secret, { now: clock.now() })).toBe(true);
    expect(verifyNotification(got!.body, shop.secret, { now: new Date(clock.now().getTime() + 301_000) })).toBe(false);
    expect(got!.body).toMatchObject({
      notify_type: 'payment.captured',
      notify_id: notifyId,
      notify_time: seconds(),
      merchant_id: shop.ids.merchant_id,
      account_id: shop.ids.account_id,
      transaction_id: transactionId,
      order_no: orderNo,
      amount: '10.00',
      currency: 'USD',
      order_status: '1',
      result_info: '0000:Success',
      card: '411111******1111',
    });
    expect(got!.raw).not.toContain('4111111111111111');
    expect(await eventRow(notifyId)).toMatchObject({ delivery_status: 'delivered', attempts: 1, locked_until: null });
    const [logged] = await attemptsOf(notifyId);
    expect(logged).toMatchObject({ attempt: 1, trigger: 'schedule', outcome: 'delivered', http_status: 200, response_excerpt: 'ok' });
    expect(logged!.latency_ms).toBeGreaterThanOrEqual(0);

    await deliver();
    expect(receivedFor(notifyId)).toHaveLength(1);
  });

  it('sends exactly the fields docs/notifications.md shows for payment.captured and payment.failed, each as text but notify_time', async () => {
    // The examples are what a merchant builds its receiver from: the subscription fields, sent on
    // every payment event (empty unless the payment began a subscription), were missing from them.
    const docs = readFileSync(new URL('../../docs/notifications.md', import.meta.url), 'utf8');
    const example = (type: string) => JSON.parse(new RegExp(`### ${type.replace('.', '\\.')}\\n[\\s\\S]*?\`\`\`json\\n([\\s\\S]*?)\`\`\``).exec(docs)![1]!) as Record<string, unknown>;
    for (const [type, overrides] of [
      ['payment.captured', {}],
      ['payment.failed', { card: '4000000000000002' }],
    ] as const) {
      const { notifyId } = await pay(receiver.url, overrides);
      await deliver();
      const [got] = receivedFor(notifyId);
      expect(got!.body.notify_type).toBe(type);
      expect([type, Object.keys(got!.body).sort()]).toEqual([type, Object.keys(example(type)).sort()]);
      for (const [field, value] of Object.entries(got!.body)) expect([field, typeof value]).toEqual([field, field === 'notify_time' ? 'number' : 'string']);
      expect(verify(example(type) as never, 'sk_test_4f3c2b1a')).toBe(true);
    }
  });

  it('takes any 2xx as an acknowledgement, with or without a body', async () => {
    receiver.reply(() => ({ status: 204, body: '' }));
    const { notifyId } = await pay(receiver.url);
    await deliver();
    expect((await eventRow(notifyId)).delivery_status).toBe('delivered');
  });

  it('signs each merchant’s notifications with that merchant’s key only', async () => {
    const other = await gw.merchant();
    const mine = await pay(receiver.url);
    const theirs = await pay(receiver.url, {}, other);
    await deliver();
    const [a] = receivedFor(mine.notifyId);
    const [b] = receivedFor(theirs.notifyId);
    expect([verify(a!.body, shop.secret), verify(a!.body, other.secret)]).toEqual([true, false]);
    expect([verify(b!.body, other.secret), verify(b!.body, shop.secret)]).toEqual([true, false]);
    expect(b!.body.merchant_id).toBe(other.ids.merchant_id);
  });

  it('signs with the account’s current key: an event recorded before a rotation is sent signed with the new one', async () => {
    const rotating = await gw.merchant();
    const { notifyId } = await pay(receiver.url, {}, rotating);
    const rotated = await runCommand(['keys', 'rotate', '--merchant-id', rotating.ids.merchant_id, '--account-id', rotating.ids.account_id, '--json'], gw.gateway.deps);
    const newSecret = (JSON.parse(rotated.stdout) as { secret_key: string }).secret_key;
    await deliver();
    const [got] = receivedFor(notifyId);
    expect([verify(got!.body, newSecret), verify(got!.body, rotating.secret)]).toEqual([true, false]);
  });

  it('records an event without notify_url and sends nothing for it', async () => {
    const before = receiver.received.length;
    const { notifyId } = await pay(undefined);
    await deliver();
    expect(await eventRow(notifyId)).toMatchObject({ delivery_status: 'no_target', attempts: 0 });
    expect(receiver.received.length).toBe(before);
  });

  it('retries a 500 with the same notify_id, a fresh notify_time, once the retry is due', async () => {
    let first = true;
    receiver.reply(() => (first ? ((first = false), { status: 500, body: 'database down' }) : 200));
    const { notifyId } = await pay(receiver.url);
    await deliver();
    const failed = await eventRow(notifyId);
    expect(failed).toMatchObject({ delivery_status: 'pending', attempts: 1, failures: 1 });
    const firstTime = seconds();
    expect(failed.next_attempt_at.getTime() - clock.now().getTime()).toBe(retryDelayMs(notifyId, 1));
    expect(retryDelayMs(notifyId, 1)).toBeLessThanOrEqual(60_000);

    clock.set(new Date(failed.next_attempt_at.getTime() - 1));
    await deliver();
    expect(receivedFor(notifyId)).toHaveLength(1);

    clock.advance(1);
    await deliver();
    const [one, two] = receivedFor(notifyId);
    expect(two!.body.notify_id).toBe(one!.body.notify_id);
    expect([one!.body.notify_time, two!.body.notify_time]).toEqual([firstTime, seconds()]);
    expect(verify(two!.body, shop.secret)).toBe(true);
    expect(await eventRow(notifyId)).toMatchObject({ delivery_status: 'delivered', attempts: 2 });
    expect((await attemptsOf(notifyId)).map((a) => [a.outcome, a.http_status, a.response_excerpt])).toEqual([
      ['failed', 500, 'database down'],
      ['delivered', 200, 'ok'],
    ]);
  });

  it('keeps trying a receiver that is down for the whole schedule, at the documented times, then fails', async () => {
    const { notifyId } = await pay(await deadUrl());
    const start = clock.now().getTime();
    await runSchedule(notifyId);

    const attempts = await attemptsOf(notifyId);
    expect(attempts).toHaveLength(MAX_ATTEMPTS);
    expect(attempts.every((a) => a.outcome === 'failed' && a.http_status === null && /ECONNREFUSED/.test(a.error))).toBe(true);
    const times = attempts.map((a) => a.started_at.getTime() - start);
    const expected = [0];
    for (let failures = 1; failures < MAX_ATTEMPTS; failures++) expected.push(expected.at(-1)! + retryDelayMs(notifyId, failures));
    expect(times).toEqual(expected);
    expect(times[1]).toBeLessThanOrEqual(60_000);
    expect(times.at(-1)).toBeGreaterThanOrEqual(3 * DAY_MS);
    expect(await eventRow(notifyId)).toMatchObject({ delivery_status: 'failed', next_attempt_at: null, attempts: MAX_ATTEMPTS });

    clock.advance(7 * DAY_MS);
    await deliver();
    expect(await attemptsOf(notifyId)).toHaveLength(MAX_ATTEMPTS);
  });

  it('follows no redirect: a 3xx is not an acknowledgement', async () => {
    receiver.reply((request) => (request.path === '/notify' ? { status: 302, headers: { location: `${receiver.base}/elsewhere` } } : 200));
    const { notifyId } = await pay(receiver.url);
    await deliver();
    expect(receiver.received.filter((r) => r.path === '/elsewhere')).toEqual([]);
    expect(await eventRow(notifyId)).toMatchObject({ delivery_status: 'pending', failures: 1 });
    expect((await attemptsOf(notifyId))[0]).toMatchObject({ outcome: 'failed', http_status: 302 });
    receiver.reply(() => 200);
    await runSchedule(notifyId);
  });

  it('records an acknowledgement whose answer holds a NUL byte (a binary answer), and sends it once', async () => {
    // PostgreSQL text cannot hold U+0000: an excerpt kept as received failed the attempt's record,
    // and the event, acknowledged, was sent again each time its lease ran out.
    receiver.reply(() => ({ status: 200, body: 'ok\u0000\u001f\u008b', headers: { 'content-type': 'application/octet-stream' } }));
    const { notifyId } = await pay(receiver.url);
    await deliver();
    expect(await eventRow(notifyId)).toMatchObject({ delivery_status: 'delivered', attempts: 1 });
    expect((await attemptsOf(notifyId))[0]).toMatchObject({ outcome: 'delivered', http_status: 200, response_excerpt: 'ok\ufffd\u001f\u008b' });
    clock.advance(LEASE_MS);
    await deliver();
    expect(receivedFor(notifyId)).toHaveLength(1);
  });

  it('takes the status line as the answer: a 2xx whose body stalls or whose connection is reset acknowledges', async () => {
    // A raw receiver: what it does after the status line is up to each case. A 200 whose body then
    // stalled (or was cut by a reset) was logged a failure and sent again, while one cut by a plain
    // close, or one too long to read, acknowledged: the body is not read for meaning.
    let after: (socket: net.Socket) => void = () => {};
    const raw = net.createServer((socket) =>
      socket.once('data', () => {
        socket.on('error', () => {});
        if (after === resetAtOnce) return resetAtOnce(socket);
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 100\r\n\r\nok');
        after(socket);
      }),
    );
    const resetAtOnce = (socket: net.Socket) => void socket.resetAndDestroy();
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(raw.address() as net.AddressInfo).port}/notify`;
    try {
      for (const [name, then] of [
        ['stalls', () => {}],
        ['reset', (socket: net.Socket) => void setTimeout(() => socket.resetAndDestroy(), 20)],
      ] as const) {
        after = then;
        const { notifyId } = await pay(url);
        await deliver({ timeoutMs: 300 });
        expect([name, await eventRow(notifyId)]).toMatchObject([name, { delivery_status: 'delivered', attempts: 1 }]);
        expect([name, (await attemptsOf(notifyId))[0]]).toMatchObject([name, { outcome: 'delivered', http_status: 200, response_excerpt: 'ok', error: null }]);
      }
      // A reset before any status is no answer.
      after = resetAtOnce;
      const { notifyId } = await pay(url);
      await deliver({ timeoutMs: 300 });
      expect(await eventRow(notifyId)).toMatchObject({ delivery_status: 'pending', failures: 1 });
      expect((await attemptsOf(notifyId))[0]).toMatchObject({ outcome: 'failed', http_status: null });
    } finally {
      raw.close();
    }
  });

  it('stops reading an answer at the cap, and gives up on a receiver that never answers', async () => {
    // A body that never ends: only the cap lets the attempt finish before its deadline.
    receiver.reply(() => 'endless');
    const big = await pay(receiver.url);
    await deliver({ timeoutMs: 5_000 });
    const [logged] = await attemptsOf(big.notifyId);
    expect(logged).toMatchObject({ outcome: 'delivered', http_status: 200, response_excerpt: 'x'.repeat(256) });

    receiver.reply(() => 'hang');
    const slow = await pay(receiver.url);
    await deliver({ timeoutMs: 200 });
    expect((await attemptsOf(slow.notifyId))[0]).toMatchObject({ outcome: 'failed', http_status: null, error: 'no answer within 200 ms' });
    receiver.reply(() => 200);
    await runSchedule(slow.notifyId);
  });
});

describe('replay', () => {
  it('sends a delivered event again: same notify_id, fresh notify_time and signature', async () => {
    const { notifyId } = await pay(receiver.url);
    await deliver();
    clock.advance(DAY_MS);
    const result = await replayNotification(gw.gateway.deps, notifyId);
    expect(result).toMatchObject({ notifyId, attempt: 2, outcome: 'delivered', status: 'delivered' });
    const [original, replayed] = receivedFor(notifyId);
    expect(replayed!.body.notify_id).toBe(notifyId);
    expect(replayed!.body.notify_time).toBe(seconds());
    expect(replayed!.body.notify_time - original!.body.notify_time).toBe(DAY_MS / 1000);
    expect(replayed!.body.encryption_data).not.toBe(original!.body.encryption_data);
    expect(verify(replayed!.body, shop.secret)).toBe(true);
    expect((await attemptsOf(notifyId)).map((a) => a.trigger)).toEqual(['schedule', 'replay']);
  });

  it('restarts the schedule of a failed event', async () => {
    receiver.reply(() => 503);
    const { notifyId } = await pay(receiver.url);
    await runSchedule(notifyId);
    expect((await eventRow(notifyId)).delivery_status).toBe('failed');
    const replayed = await replayNotification(gw.gateway.deps, notifyId);
    expect(replayed).toMatchObject({ outcome: 'failed', httpStatus: 503, status: 'pending', failures: 1 });
    receiver.reply(() => 200);
    await runSchedule(notifyId);
    expect(await eventRow(notifyId)).toMatchObject({ delivery_status: 'delivered', attempts: MAX_ATTEMPTS + 2 });
  });

  it('says why it cannot: unknown, no notify_url, or an attempt in flight', async () => {
    expect(await replayNotification(gw.gateway.deps, 'EV00000000000000000000000000')).toEqual({ refused: 'not_found' });
    const none = await pay(undefined);
    expect(await replayNotification(gw.gateway.deps, none.notifyId)).toEqual({ refused: 'no_target' });
    receiver.reply(() => 'hang');
    const { notifyId } = await pay(receiver.url);
    const inFlight = deliver({ timeoutMs: 300 });
    await until('the attempt at the receiver', () => receivedFor(notifyId).length > 0, { everyMs: 10 });
    expect(await replayNotification(gw.gateway.deps, notifyId)).toEqual({ refused: 'in_flight' });
    await inFlight;
    receiver.reply(() => 200);
    await runSchedule(notifyId);
  });
});

describe('leases: several workers, and workers that die', () => {
  it('retries an attempt whose worker died after its lease runs out, and logs it abandoned', async () => {
    const { notifyId } = await pay(receiver.url);
    const now = clock.now();
    // A worker claims the event, then dies before sending.
    const claimed = await claimDue(gw.database.db, { now, until: new Date(now.getTime() + LEASE_MS), businessNow: now, token: 'dead-worker' }, Math.floor(now.getTime() / 1000), 100);
    expect(claimed.map((c) => c.id)).toContain(notifyId);
    await deliver();
    expect(receivedFor(notifyId)).toEqual([]);

    clock.advance(LEASE_MS);
    await deliver();
    expect(receivedFor(notifyId)).toHaveLength(1);
    expect((await attemptsOf(notifyId)).map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'abandoned'],
      [2, 'delivered'],
    ]);
  });

  it('sends a failed event again when the process replaying it died mid-attempt, once the replay’s lease runs out', async () => {
    receiver.reply(() => 503);
    const { notifyId } = await pay(receiver.url);
    await runSchedule(notifyId);
    expect((await eventRow(notifyId)).delivery_status).toBe('failed');
    // An operator's replay claims the event, then its process dies before sending.
    const now = clock.now();
    const replay = await claimForReplay(gw.database.db, notifyId, { now, until: new Date(now.getTime() + LEASE_MS), businessNow: now, token: 'dead-replay' }, seconds());
    expect(replay?.id).toBe(notifyId);
    receiver.reply(() => 200);
    await deliver();
    expect(receivedFor(notifyId)).toHaveLength(MAX_ATTEMPTS);

    clock.advance(LEASE_MS);
    await deliver();
    expect(receivedFor(notifyId)).toHaveLength(MAX_ATTEMPTS + 1);
    expect(await eventRow(notifyId)).toMatchObject({ delivery_status: 'delivered' });
    expect((await attemptsOf(notifyId)).slice(-2).map((a) => [a.trigger, a.outcome])).toEqual([
      ['replay', 'abandoned'],
      ['schedule', 'delivered'],
    ]);
  });

  it('two workers on one database never send one attempt twice', async () => {
    const second = await gw.anotherConnection();
    try {
      const inFlight = new Map<string, number>();
      let overlaps = 0;
      receiver.reply(async (request) => {
        const id = request.body.notify_id as string;
        inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
        if (inFlight.get(id)! > 1) overlaps += 1;
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight.set(id, inFlight.get(id)! - 1);
        return 200;
      });
      const ids = [];
      for (let i = 0; i < 24; i++) ids.push((await pay(receiver.url)).notifyId);
      const workerA = gw.gateway.deps;
      const workerB = { ...gw.gateway.deps, database: second };
      const drain = async (deps: typeof workerA) => {
        while ((await deliverDueNotifications(deps, { maxInFlight: 3 })) > 0);
      };
      await Promise.all([drain(workerA), drain(workerB), drain(workerA), drain(workerB)]);
      for (const id of ids) expect(receivedFor(id)).toHaveLength(1);
      expect(overlaps).toBe(0);
      const counts = await rows(`SELECT count(*)::int AS n FROM notification_attempts WHERE event_id = ANY($1)`, [ids]);
      expect(counts[0]!.n).toBe(ids.length);
    } finally {
      await second.close();
    }
  });
});
