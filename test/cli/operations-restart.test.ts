// The real gateway as a process, SIGKILLed while a void (/v1/cancel), a capture (/v1/capture) and
// a review's approval (/v1/review, which captures on an auto-capture account) are on their way to
// the processor: claimed, never recorded. The sandbox's
// slow-settle card (4000000000000424) holds its capture and its void ACQUIRO_SANDBOX_CARD_DELAY
// (4 s here) before the processor receives them, the window the kill falls in. After the restart,
// the merchant's retries move no money again, and the worker sends each claimed operation under
// its own id once its wait for an unknown outcome is over: the payment ends cancelled or
// captured, each once (one event, the books balanced). The held payment is held by the account's
// review amount limit (risk set amountLimits.USD.review). A gateway beside an `acquiro worker` on
// PostgreSQL only: the recovery is the same code on the embedded database, whose restart on its
// data directory test/cli/idempotency-restart.test.ts and subscriptions-restart.test.ts kill and
// check, and the half minute this file waits for the worker is the suite's time (npm test stays
// within five minutes).
import { afterEach, describe, expect, it } from 'vitest';
import { httpClient, type SignedClient } from '../support/client.ts';
import { TEST_DB, type TestDatabase } from '../support/gateway.ts';
import { orderOf, pay, type Txn } from '../support/lifecycle.ts';
import { acquiro, acquiroJson, QUICK_TIMERS, startGatewayAndWorker, startServer, type RunningServer, type RunningWorker } from '../support/processes.ts';
import { until } from '../support/until.ts';

const SLOW_SETTLE_CARD = '4000000000000424';
/** Starts may be slow on a machine shared with other builds. */
const START_MS = 150_000;
let database: TestDatabase | undefined;
const running: (RunningServer | RunningWorker)[] = [];

afterEach(async () => {
  for (const child of running.splice(0)) await child.stop('SIGKILL');
  await database?.drop();
  database = undefined;
});

const queried = async (client: SignedClient, txn: Txn): Promise<Record<string, string>> =>
  (await client.post('/v1/retrievalTrans', { ...client.ids, transaction_id: txn.transaction_id }, { format: 'form' })).body.orders_list[0];

/** A refund of an uncaptured payment is refused 5012 while a capture or void of it is claimed, and moves nothing either way. */
const claimed = async (client: SignedClient, txn: Txn) =>
  (await client.post('/v1/refund', { ...client.ids, refund_orders: [orderOf(txn, { refund_amount: '1.00' })] })).body.refund_orders[0].refund_message.startsWith('V5012:');

describe.runIf(TEST_DB === 'postgres')('a gateway killed while a void, a capture and an approval are at the processor', () => {
  it('ends each payment cancelled or captured once after the restart; the retries move nothing', { timeout: 600_000 }, async () => {
    const started = await startGatewayAndWorker({ readyWithinMs: START_MS, env: QUICK_TIMERS, migrated: true });
    database = started.database;
    const { env } = started;
    running.push(started.server, ...(started.worker ? [started.worker] : []));
    const credentials = (await acquiroJson(['merchants', 'create', '--name', 'Killed mid-void', '--capture-mode', 'manual'], env)) as {
      merchant_id: string;
      account_id: string;
      secret_key: string;
    };
    const reviewing = (await acquiroJson(['merchants', 'create', '--name', 'Killed mid-review'], env)) as typeof credentials;
    for (const { merchant_id, account_id } of [credentials, reviewing]) {
      expect((await acquiro(['ips', 'add', '--merchant-id', merchant_id, '--account-id', account_id, '--cidr', '127.0.0.1'], env)).code).toBe(0);
    }
    const limit = ['risk', 'set', '--merchant-id', reviewing.merchant_id, '--account-id', reviewing.account_id, '--set', 'amountLimits.USD.review=1000.00'];
    expect((await acquiro(limit, env)).code).toBe(0);

    const first = httpClient([started.server.url], credentials);
    const toCancel = await pay(first, { card: SLOW_SETTLE_CARD });
    const toCapture = await pay(first, { card: SLOW_SETTLE_CARD });
    const firstReviewer = httpClient([started.server.url], reviewing);
    const held = await pay(firstReviewer, { card: SLOW_SETTLE_CARD, amount: '1500.00' });
    expect(await queried(firstReviewer, held)).toMatchObject({ payment_status: '1003' });
    const cancel = { ...first.ids, cancel_orders: [orderOf(toCancel)] };
    const capture = { ...first.ids, capture_orders: [orderOf(toCapture)] };
    const approve = { ...firstReviewer.ids, review_orders: [orderOf(held, { review_flag: '1' })] };
    const cut = [first.post('/v1/cancel', cancel), first.post('/v1/capture', capture), firstReviewer.post('/v1/review', approve)].map((request) =>
      request.then(
        (answer) => answer,
        (error: unknown) => error,
      ),
    );
    // All claimed: on their way to the processor for QUICK_TIMERS' hold.
    await until('all claimed', async () =>
      (await claimed(first, toCancel)) && (await claimed(first, toCapture)) && (await claimed(firstReviewer, held)) ? true : undefined,
    );
    await started.server.stop('SIGKILL');
    for (const answer of await Promise.all(cut)) expect(answer).toBeInstanceOf(Error);

    const restarted = await startServer({ ...env, ACQUIRO_WORKERS: 'off' }, { readyWithinMs: START_MS });
    running.push(restarted);
    const client = httpClient([restarted.url], credentials);
    const reviewer = httpClient([restarted.url], reviewing);
    // The merchant retries: still in progress (5012), or, once the worker has recorded it, done already.
    const [cancelRetry, captureRetry, approveRetry] = await Promise.all([
      client.post('/v1/cancel', cancel),
      client.post('/v1/capture', capture),
      reviewer.post('/v1/review', approve),
    ]);
    expect(cancelRetry.body.cancel_orders[0].error_message).toMatch(/^50(12|07):/);
    expect(captureRetry.body.capture_orders[0].error_message).toMatch(/^50(12|05):/);
    expect(approveRetry.body.review_orders[0].error_message).toMatch(/^50(12|11):/);

    await until('the void and the capture recorded', async () => {
      const [cancelled, captured, approved] = [await queried(client, toCancel), await queried(client, toCapture), await queried(reviewer, held)];
      return cancelled?.payment_status === '4000' && captured?.payment_status === '3000' && approved?.payment_status === '3000' ? true : undefined;
    });
    expect(await queried(client, toCapture)).toMatchObject({ captured_amount: toCapture.amount });
    expect(await queried(reviewer, held)).toMatchObject({ captured_amount: '1500.00' });
    expect(await queried(client, toCancel)).toMatchObject({ captured_amount: '0.00' });
    for (const [txn, type] of [
      [toCancel, 'payment.cancelled'],
      [toCapture, 'payment.captured'],
      [held, 'payment.captured'],
    ] as const) {
      const shown = await acquiroJson(['payments', 'show', txn.transaction_id], env);
      expect((shown.events as { type: string }[]).filter((event) => event.type === type), type).toHaveLength(1);
    }
    expect((await acquiro(['ledger', 'check'], env)).code).toBe(0);
    // Asked again now, each is done, and nothing moves.
    expect((await client.post('/v1/cancel', cancel)).body.cancel_orders[0].error_message).toMatch(/^5007:/);
    expect((await client.post('/v1/capture', capture)).body.capture_orders[0].error_message).toMatch(/^5005:/);
    expect((await reviewer.post('/v1/review', approve)).body.review_orders[0].error_message).toMatch(/^5011:/);
  });
});
