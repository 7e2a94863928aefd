// Payouts through real processes, as operators run them: a listening gateway and its workers (on
// PostgreSQL a server without workers beside an `acquiro worker`; on the embedded database the
// server with its own), funded with `acquiro balance topup`. Today's payout reaches COMPLETED
// within 30 s and its signed `payout.completed` reaches the merchant's receiver; a SCHEDULED one
// is left alone by the workers until `acquiro clock advance` brings its date, and then completes
// within 30 s, with no restart.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign, verify } from '../../src/domain/signature.ts';
import type { TestDatabase } from '../support/gateway.ts';
import { payoutBody } from '../support/payouts.ts';
import { acquiro, startGatewayAndWorker, type RunningServer, type RunningWorker } from '../support/processes.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

interface Credentials {
  readonly merchant_id: string;
  readonly account_id: string;
  readonly secret_key: string;
}

let receiver: Receiver;
let database: TestDatabase | undefined;
let env: Record<string, string>;
let server: RunningServer;
let worker: RunningWorker | undefined;
let shop: Credentials;
/** A payout for two days on, made first; then one of today, made after it (its answer, and when). */
let scheduled: { body: Record<string, unknown>; created: Record<string, any>; paymentDate: string };
let today: { created: Record<string, any>; at: number };

beforeAll(async () => {
  receiver = await startReceiver();
  ({ database, env, server, worker } = await startGatewayAndWorker({ migrated: true }));
  shop = await cli<Credentials>(['merchants', 'create', '--name', `Payouts ${randomBytes(3).toString('hex')}`, '--json']);
  await cli(['balance', 'topup', '--merchant-id', shop.merchant_id, '--account-id', shop.account_id, '--currency', 'USD', '--amount', '1000.00']);
  const paymentDate = addDays(await businessDay(), 2);
  const body = bodyOf({ payment_date: paymentDate });
  scheduled = { body, created: await payout(body), paymentDate };
  today = { created: await payout({}), at: Date.now() };
});
afterAll(async () => {
  await worker?.stop();
  await server?.stop();
  await database?.drop();
  await receiver?.close();
});

/** Runs `acquiro <args>`, expecting success; its stdout parsed when it is JSON. */
async function cli<T = unknown>(args: string[]): Promise<T> {
  const run = await acquiro(args, env);
  expect(run.stderr, run.stdout).toBe('');
  expect(run.code).toBe(0);
  return (run.stdout.trimStart().startsWith('{') || run.stdout.trimStart().startsWith('[') ? JSON.parse(run.stdout) : run.stdout) as T;
}

/** A payout's body for the shop, notified to the receiver. */
const bodyOf = (fields: Record<string, unknown>) => payoutBody({ ids: { merchant_id: shop.merchant_id, account_id: shop.account_id } }, { notify_url: receiver.url, ...fields });

/** Posts a payout (a repeat of a body's request_id answers the payout as it stands). */
async function payout(fieldsOrBody: Record<string, unknown>): Promise<Record<string, any>> {
  const body = 'request_id' in fieldsOrBody ? fieldsOrBody : bodyOf(fieldsOrBody);
  const response = await fetch(`${server.url}/v1/payout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, encryption_data: sign(body as never, shop.secret_key) }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, any>;
}

const notified = (transactionId: string, type: string, withinMs: number) =>
  receiver.notified(transactionId, type, withinMs, () => `${server.output()}${worker?.output() ?? ''}`);

const show = (transactionId: string) =>
  cli<Record<string, any>>(['payouts', 'show', '--merchant-id', shop.merchant_id, '--account-id', shop.account_id, '--transaction-id', transactionId, '--json']);

/** Business time's UTC day, as `acquiro clock show` prints it. */
async function businessDay(): Promise<string> {
  return (await cli<string>(['clock', 'show'])).slice(0, 10);
}

const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

describe('payouts through a running gateway and its workers', () => {
  it("takes today's payout to COMPLETED within 30 s and delivers payout.completed, signed", async () => {
    const { created, at } = today;
    expect(created).toMatchObject({ status: 'PROCESSING', amount_payer_pays: 10_150 });

    const completed = await notified(created.transaction_id, 'payout.completed', 30_000);
    expect(Date.now() - at).toBeLessThan(30_000);
    expect(verify(completed.body, shop.secret_key)).toBe(true);
    expect(completed.body).toMatchObject({ status: 'COMPLETED', amount_payer_pays: 10_150, amount_beneficiary_receives: 10_000, request_id: created.request_id });
    expect(await show(created.transaction_id)).toMatchObject({ status: 'COMPLETED' });
  });

  it('releases a SCHEDULED payout after `acquiro clock advance`, and completes it within 30 s, with no restart', async () => {
    const { body, created, paymentDate } = scheduled;
    expect(created).toMatchObject({ status: 'SCHEDULED', payment_date: paymentDate });
    // The workers leave it alone while its day has not come: once they have completed the payout
    // of today made after it, they have been through the due payouts since, and it is still
    // SCHEDULED (a repeat of its request_id answers it as it stands).
    await notified(today.created.transaction_id, 'payout.completed', 30_000);
    expect(await payout(body)).toMatchObject({ transaction_id: created.transaction_id, status: 'SCHEDULED' });

    await cli(['clock', 'advance', '--days', '2']);
    const advancedAt = Date.now();
    const completed = await notified(created.transaction_id, 'payout.completed', 30_000);
    expect(Date.now() - advancedAt).toBeLessThan(30_000);
    expect(verify(completed.body, shop.secret_key)).toBe(true);
    expect(completed.body).toMatchObject({ status: 'COMPLETED', payment_date: paymentDate });

    const balances = await cli<{ currency: string; available: string; reserved: string }[]>(['balance', 'show', '--merchant-id', shop.merchant_id, '--account-id', shop.account_id, '--json']);
    // 1000.00 less two payouts of 101.50 (100.00 and the fee): today's, and this one.
    expect(balances.find((b) => b.currency === 'USD')).toMatchObject({ available: '797.00', reserved: '0.00' });
  });
});
