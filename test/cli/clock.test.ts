// The sandbox's test clock through real processes: `acquiro clock advance|show` moves business
// time for a running server and its workers (on PostgreSQL a server without workers beside an
// `acquiro worker`; on the embedded database the server, which runs the command through its
// socket), with no restart; an uncaptured authorisation is voided within 30 s of an advance past
// its expiry, and its notification's notify_time stays the wall clock's; a dispute card's chargeback
// is reported, notified and credited back as the days pass. Live mode refuses it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign } from '../../src/domain/signature.ts';
import { cardPayment } from '../support/fixtures.ts';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../support/gateway.ts';
import { acquiro, startGatewayAndWorker, type RunningServer, type RunningWorker } from '../support/processes.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

const DAY_MS = 86_400_000;
const INSTANT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\+00:00\n$/;

let receiver: Receiver;
let database: TestDatabase | undefined;
let env: Record<string, string>;
let server: RunningServer;
let worker: RunningWorker | undefined;

beforeAll(async () => {
  receiver = await startReceiver();
  ({ database, env, server, worker } = await startGatewayAndWorker({ migrated: true }));
});
afterAll(async () => {
  await worker?.stop();
  await server?.stop();
  await database?.drop();
  await receiver?.close();
});

/** Business time as `acquiro clock <args>` prints it, in milliseconds. */
async function clock(...args: string[]): Promise<number> {
  const run = await acquiro(['clock', ...args], env);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const printed = INSTANT.exec(run.stdout);
  expect(printed, run.stdout).not.toBeNull();
  return Date.parse(`${printed![1]}Z`);
}

async function merchant(captureMode: 'manual' | 'auto' = 'manual') {
  const run = await acquiro(['merchants', 'create', '--name', `Clock ${randomBytes(3).toString('hex')}`, '--capture-mode', captureMode, '--json'], env);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as { merchant_id: string; account_id: string; secret_key: string };
}

async function authorise(credentials: { merchant_id: string; account_id: string; secret_key: string }, card = '4111111111111111'): Promise<string> {
  const body = cardPayment({ merchant_id: credentials.merchant_id, account_id: credentials.account_id }, { notify_url: receiver.url, card });
  const response = await fetch(`${server.url}/v1/authorise`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, encryption_data: sign(body as never, credentials.secret_key) }),
  });
  const answer = await response.text();
  expect(answer).toContain('<result_info>0000:Success</result_info>');
  return /<transaction_id>(T\w+)<\/transaction_id>/.exec(answer)![1]!;
}

const notified = (transactionId: string, type: string, withinMs: number) =>
  receiver.notified(transactionId, type, withinMs, () => `${server.output()}${worker?.output() ?? ''}`);

describe('acquiro clock', () => {
  it('moves business time forward for the server and its workers: an authorisation expires within 30 s', async () => {
    const credentials = await merchant('manual');
    const transactionId = await authorise(credentials);
    await notified(transactionId, 'payment.authorised', 30_000);

    const before = await clock('show');
    expect(Math.abs(before - Date.now())).toBeLessThan(120_000);
    const advanced = await clock('advance', '--days', '8');
    expect(advanced - before).toBeGreaterThanOrEqual(8 * DAY_MS);
    expect(advanced - before).toBeLessThan(8 * DAY_MS + 120_000);
    const advancedAt = Date.now();

    // The simulator lets an uncaptured hold go after seven days: the worker voids it.
    const cancelled = await notified(transactionId, 'payment.cancelled', 30_000);
    expect(Date.now() - advancedAt).toBeLessThan(30_000);
    expect(cancelled.body.result_info).toMatch(/^2010:/);
    // notify_time is the wall clock's, so a receiver's 300-second check still passes.
    expect(Math.abs(cancelled.body.notify_time - Date.now() / 1000)).toBeLessThan(300);
  });

  it('brings the sandbox acquirer’s dispute reports: the winning dispute card is charged back, then credited back, each notified once', async () => {
    const credentials = await merchant('auto');
    const transactionId = await authorise(credentials, '4000000000002685');
    await notified(transactionId, 'payment.captured', 30_000);
    // Pending and available together: the capture settles two days after it, on the same clock.
    const balance = async () => {
      const run = await acquiro(['balance', 'show', '--merchant-id', credentials.merchant_id, '--account-id', credentials.account_id, '--json'], env);
      const [usd] = JSON.parse(run.stdout) as { pending: string; available: string }[];
      return (Number(usd!.pending) + Number(usd!.available)).toFixed(2);
    };
    expect(await balance()).toBe('10.00');

    await clock('advance', '--days', '1');
    const opened = await notified(transactionId, 'chargeback.opened', 30_000);
    expect(opened.body).toMatchObject({ chargeback_amount: '10.00', chargeback_reason_code: '13.1', chargeback_status: 'open', captured_amount: '10.00' });
    expect(sign(opened.body as never, credentials.secret_key)).toBe(opened.body.encryption_data);
    expect(await balance()).toBe('0.00');

    await clock('advance', '--days', '1');
    const reversed = await notified(transactionId, 'chargeback.reversed', 30_000);
    expect(reversed.body).toMatchObject({ chargeback_id: opened.body.chargeback_id, chargeback_status: 'reversed' });
    expect(await balance()).toBe('10.00');
    const check = await acquiro(['ledger', 'check'], env);
    expect(check.code, check.stdout + check.stderr).toBe(0);
  });

  it('adds hours too, and never goes back', async () => {
    const before = await clock('show');
    const advanced = await clock('advance', '--hours', '5');
    expect(advanced - before).toBeGreaterThanOrEqual(5 * 3_600_000);
    expect(await clock('show')).toBeGreaterThanOrEqual(advanced);
  });

  // On PostgreSQL the command refuses them before it connects; on the embedded database the server
  // that owns it refuses them.
  it('refuses a distance that is not a positive whole number with exit 2, moving nothing', async () => {
    const refusals: [string[], string][] = [
      [['advance', '--days', '-1'], '--days must be a positive integer'],
      [['advance', '--days', '0'], '--days must be a positive integer'],
      [['advance', '--hours', 'two'], '--hours must be a positive integer'],
      [['advance', '--days', '1.5'], '--days must be a positive integer'],
      [['advance', '--weeks', '1'], "unknown option '--weeks'"],
      [['advance'], 'say how far: --days N or --hours N'],
    ];
    const before = await clock('show');
    const runs = await Promise.all(refusals.map(([args]) => acquiro(['clock', ...args], env)));
    for (const [i, run] of runs.entries()) {
      const [args, message] = refusals[i]!;
      expect([run.code, run.stderr], args.join(' ')).toEqual([2, expect.stringContaining(message)]);
    }
    expect((await clock('show')) - before).toBeLessThan(60_000);
  });
});

// Live mode runs only on PostgreSQL.
describe.runIf(TEST_DB === 'postgres')('acquiro clock in live mode', () => {
  it('refuses to advance, and shows the wall clock', async () => {
    const live = await openTestDatabase(2);
    try {
      const liveEnv = { ...live.env, ACQUIRO_MODE: 'live', ACQUIRO_VAULT_KEYS: `k-live:${randomBytes(32).toString('base64')}` };
      const refused = await acquiro(['clock', 'advance', '--days', '1'], liveEnv);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe('error: clock advance is for the sandbox only: in live mode business time is the wall clock\n');
      const shown = await acquiro(['clock', 'show'], liveEnv);
      expect(shown.code).toBe(0);
      expect(Math.abs(Date.parse(`${INSTANT.exec(shown.stdout)![1]}Z`) - Date.now())).toBeLessThan(120_000);
    } finally {
      await live.drop();
    }
  });
});
