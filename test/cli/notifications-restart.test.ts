// The real gateway as a process: an event committed with its payment is delivered after the
// gateway is killed (SIGKILL) before sending it, and `acquiro worker` delivers on its own. On the
// embedded database each test starts on a migrated, empty data directory, whose killed owner's
// lock the restart takes over after 3 s (ACQUIRO_DATA_DIR_LEASE of QUICK_TIMERS).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sign, verify } from '../../src/domain/signature.ts';
import { cardPayment } from '../support/fixtures.ts';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../support/gateway.ts';
import { acquiro, migratedDataDir, QUICK_TIMERS, startServer, startWorker, whileRunning, type RunningServer, type RunningWorker } from '../support/processes.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { until } from '../support/until.ts';

const WAIT_MS = 45_000;

let receiver: Receiver;
let database: TestDatabase | undefined;
let env: Record<string, string>;
const running: (RunningServer | RunningWorker)[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver?.close());
// Each test starts on an empty database, so the gateway's first start prints a demo merchant.
beforeEach(async () => {
  if (TEST_DB === 'postgres') {
    database = await openTestDatabase(2);
    env = database.env;
  } else {
    env = { ACQUIRO_DATA_DIR: await migratedDataDir(), ...QUICK_TIMERS };
  }
});
afterEach(async () => {
  for (const child of running.splice(0)) await child.stop('SIGKILL');
  await database?.drop();
  database = undefined;
});

async function server(extra: Record<string, string>): Promise<RunningServer> {
  const started = await startServer({ ...env, HOST: '127.0.0.1', ...extra });
  running.push(started);
  return started;
}

/** The demo merchant the first start prints. */
function demoCredentials(output: string) {
  const field = (name: string) => new RegExp(`${name}\\s+(\\S+)`).exec(output)?.[1];
  const credentials = { merchant_id: field('merchant_id')!, account_id: field('account_id')!, secret_key: field('secret_key')! };
  expect(credentials.secret_key).toMatch(/^sk_test_/);
  return credentials;
}

/** A signed card payment announced to the receiver; answers its transaction_id. */
async function pay(gateway: RunningServer, credentials: ReturnType<typeof demoCredentials>): Promise<string> {
  const body = cardPayment({ merchant_id: credentials.merchant_id, account_id: credentials.account_id }, { notify_url: receiver.url });
  const response = await fetch(`${gateway.url}/v1/authorise`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, encryption_data: sign(body as never, credentials.secret_key) }),
  });
  const answer = await response.text();
  expect(response.status).toBe(200);
  expect(answer).toContain('<result_info>0000:Success</result_info>');
  return /<transaction_id>(T\w+)<\/transaction_id>/.exec(answer)![1]!;
}

const notificationFor = (transactionId: string) => () => receiver.received.find((r) => r.body.transaction_id === transactionId);

describe('a gateway killed between commit and delivery', () => {
  it('delivers the event after it restarts', async () => {
    const first = await server({ ACQUIRO_WORKERS: 'off' });
    const credentials = demoCredentials(first.output());
    const transactionId = await pay(first, credentials);
    await first.stop('SIGKILL');
    expect(notificationFor(transactionId)()).toBeUndefined();

    const restarted = await server({});
    const delivered = await until('notification', notificationFor(transactionId), { withinMs: WAIT_MS, everyMs: 100, ...whileRunning(restarted) });
    expect(verify(delivered.body, credentials.secret_key)).toBe(true);
    expect(delivered.body).toMatchObject({ notify_type: 'payment.captured', transaction_id: transactionId, merchant_id: credentials.merchant_id });
    expect(delivered.body.notify_id).toMatch(/^EV[0-9A-Z]{26}$/);
  });
});

describe('acquiro worker', () => {
  it('delivers what a gateway without workers recorded, and answers notifications list', async () => {
    const gateway = await server({ ACQUIRO_WORKERS: 'off' });
    const credentials = demoCredentials(gateway.output());
    const transactionId = await pay(gateway, credentials);
    // On the embedded database one process owns the data: the gateway stops first.
    expect(await gateway.stop('SIGTERM')).toBe(0);

    const worker = startWorker(env);
    running.push(worker);
    const delivered = await until('notification', notificationFor(transactionId), { withinMs: WAIT_MS, everyMs: 100, ...whileRunning(worker) });
    expect(verify(delivered.body, credentials.secret_key)).toBe(true);

    const listing = await acquiro(['notifications', 'list', '--json', '--status', 'delivered'], env);
    expect([listing.code, listing.stderr]).toEqual([0, '']);
    expect(JSON.parse(listing.stdout).map((n: { transaction_id: string }) => n.transaction_id)).toContain(transactionId);
    expect(await worker.stop('SIGTERM')).toBe(0);
  });
});
