// One merchant's hanging receiver does not hold up another merchant's notifications
// (docs/notifications.md, Operators: Workers): a worker keeps its attempts in slots, a slow one
// holds one slot rather than the round, and one account has at most a few attempts in flight across
// every worker. Workers are run by the real runner, as `npm start` runs the task; the slow
// merchant's events of the first test stay due in the second, as a backlog would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverDueNotifications, notificationsInFlight } from '../../src/app/notifications/deliver.ts';
import type { Deps } from '../../src/app/context.ts';
import type { Database } from '../../src/db/client.ts';
import { startWorkers } from '../../src/jobs/runner.ts';
import type { SignedClient } from '../support/client.ts';
import { cardPayment } from '../support/fixtures.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

/** The hanging receiver's attempts end here (the attempt deadline knob; 10 s in production). */
const HANG_MS = 4_000;
/** Past one round (1 s) and a poll (1 s), well before a hanging attempt ends. */
const BOUND_MS = 2_500;
const PER_ACCOUNT = 4;

let gw: TestGateway;
let second: Database;
let receiver: Receiver;
const clock = new FakeClock();

beforeAll(async () => {
  gw = await startTestGateway({ clock });
  second = await gw.anotherConnection();
  receiver = await startReceiver();
  receiver.reply((request) => (request.path.startsWith('/slow') ? 'hang' : 200));
});
afterAll(async () => {
  await receiver?.close();
  await second?.close();
  await gw?.close();
});

const rows = (sql: string, params: unknown[] = []) => gw.database.query<Record<string, any>>(sql, params);

async function pay(client: SignedClient, path: string): Promise<string> {
  const answer = await client.post('/v1/authorise', cardPayment(client.ids, { notify_url: `${receiver.base}${path}` }));
  expect(answer.status).toBe(200);
  return answer.body.transaction_id as string;
}

/** The deliver-notifications task of src/jobs/tasks.ts, with the attempt deadline of the test. */
function worker(deps: Deps) {
  return startWorkers(deps, [
    {
      name: 'deliver-notifications',
      intervalMs: 1_000,
      run: (d) => deliverDueNotifications(d, { timeoutMs: HANG_MS }),
      drain: (d) => notificationsInFlight(d),
    },
  ]);
}

/** What the receiver has had from the slow merchant on `path`: all of it still hangs, so all of it is in flight. */
function inFlightTo(path: string) {
  const seen = receiver.received.filter((r) => r.path === path);
  expect(new Set(seen.map((r) => r.body.notify_id)).size).toBe(seen.length);
  return seen.length;
}

/** The slow merchant's attempts once the workers stopped: each ended at its deadline, recorded, and on the retry schedule. */
async function expectRecordedOnSchedule(accountId: string) {
  const attempts = await rows(
    `SELECT a.outcome, a.error, e.delivery_status, e.failures, e.next_attempt_at, e.locked_until
       FROM notification_attempts a JOIN events e ON e.id = a.event_id WHERE e.account_id = $1`,
    [accountId],
  );
  expect(attempts.length).toBeGreaterThan(0);
  for (const attempt of attempts) {
    expect(attempt).toMatchObject({ outcome: 'failed', error: `no answer within ${HANG_MS} ms`, delivery_status: 'pending', failures: 1, locked_until: null });
    // The first retry, 30 s (and its jitter) after the attempt.
    expect(attempt.next_attempt_at.getTime() - clock.now().getTime()).toBeGreaterThanOrEqual(30_000);
  }
}

describe('a receiver that hangs, with more events due than a worker has slots', () => {
  it('delays no other merchant: one worker sends theirs within a round while its attempts hang', async () => {
    const slow = await gw.merchant();
    const quick = await gw.merchant();
    for (let i = 0; i < 20; i++) await pay(slow, '/slow-1');
    // Recorded after the slow merchant's events: before, it waited behind a round of 16 of them.
    const first = await pay(quick, '/notify');
    const workers = worker(gw.gateway.deps);
    try {
      const started = Date.now();
      await receiver.notified(first, 'payment.captured', BOUND_MS);
      expect(Date.now() - started).toBeLessThan(BOUND_MS);
      // Recorded while the slow attempts hang: taken by a later round, not after they end.
      const later = await pay(quick, '/notify');
      const paid = Date.now();
      await receiver.notified(later, 'payment.captured', BOUND_MS);
      expect(Date.now() - paid).toBeLessThan(BOUND_MS);
      expect(inFlightTo('/slow-1')).toBe(PER_ACCOUNT);
    } finally {
      // Stopping waits for the attempts left in flight, which end at their deadline and are recorded.
      await workers.stop();
    }
    await expectRecordedOnSchedule(slow.ids.account_id);
    expect(await rows(`SELECT delivery_status, attempts FROM events WHERE account_id = $1`, [quick.ids.account_id])).toEqual([
      { delivery_status: 'delivered', attempts: 1 },
      { delivery_status: 'delivered', attempts: 1 },
    ]);
  });

  it('holds at most 4 of one merchant’s attempts in flight across every worker', async () => {
    const slow = await gw.merchant();
    const quick = await gw.merchant();
    // More than both workers' 16 slots together: before, the slow merchant filled every round of both.
    for (let i = 0; i < 34; i++) await pay(slow, '/slow-2');
    const first = await pay(quick, '/notify');
    const workers = [worker(gw.gateway.deps), worker({ ...gw.gateway.deps, database: second })];
    try {
      const started = Date.now();
      await receiver.notified(first, 'payment.captured', BOUND_MS);
      expect(Date.now() - started).toBeLessThan(BOUND_MS);
      expect(inFlightTo('/slow-2')).toBeLessThanOrEqual(PER_ACCOUNT);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
    await expectRecordedOnSchedule(slow.ids.account_id);
  });
});
