// Behind PgBouncer 1.18 in transaction mode, which keeps no named prepared statement between
// transactions and no session for LISTEN: a gateway and a worker started with
// DATABASE_PREPARED=off (the hot path's statements sent unnamed) and no DATABASE_DIRECT_URL (account
// changes seen through the version row each heartbeat reads) take payments, captures, refunds and
// their idempotent repeats, and stop a revoked key within a second.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient, type SignedClient } from '../support/client.ts';
import { cardPayment } from '../support/fixtures.ts';
import { openTestDatabase, POSTGRES_URL, TEST_DB, type TestDatabase } from '../support/gateway.ts';
import { batch, orderOf, pay } from '../support/lifecycle.ts';
import { startPgBouncer, type Bouncer } from '../support/pgbouncer.ts';
import { acquiro, acquiroJson, startServer, startWorker, type RunningServer, type RunningWorker } from '../support/processes.ts';
import { until } from '../support/until.ts';

let test: TestDatabase;
let bouncer: Bouncer;
let env: Record<string, string>;
let gateway: RunningServer;
let worker: RunningWorker;

const cli = (args: readonly string[]) => acquiroJson(args, env);

async function merchant(...options: string[]) {
  const credentials = (await cli(['merchants', 'create', '--name', 'bounced', '--rate-limit', '100000', ...options])) as {
    merchant_id: string;
    account_id: string;
    secret_key: string;
  };
  return { credentials, client: httpClient([gateway.url], credentials) };
}

const one = async <T>(text: string, params: unknown[]) => (await test.database.query<T>(text, params))[0]!;

describe.runIf(TEST_DB === 'postgres')('behind PgBouncer in transaction mode', () => {
  beforeAll(async () => {
    test = await openTestDatabase(2);
    bouncer = await startPgBouncer(POSTGRES_URL, test.schema);
    env = { DATABASE_URL: bouncer.url, DATABASE_PREPARED: 'off' };
    // The migrations themselves run through PgBouncer (their lock is a transaction's).
    gateway = await startServer({ ...env, ACQUIRO_WORKERS: 'off' });
    worker = startWorker(env);
  }, 180_000);
  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
    await bouncer?.stop();
    await test?.drop();
  });

  it('takes payments, captures and refunds, and answers their repeats from what it stored', async () => {
    const { client } = await merchant('--capture-mode', 'manual');
    // 20 payments at once: the hot path's statements reach whichever server connection is free.
    const txns = await Promise.all(Array.from({ length: 20 }, () => pay(client)));
    expect(new Set(txns.map((t) => t.transaction_id)).size).toBe(20);

    // The same order again: the stored outcome, no second payment.
    const body = cardPayment(client.ids);
    const [first, again] = [await client.post('/v1/authorise', body), await client.post('/v1/authorise', body)];
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body.transaction_id).toBe(first.body.transaction_id);

    const captured = await batch(client, 'capture_orders', txns.map((t) => orderOf(t)));
    expect(captured.body.capture_orders.map((o: Record<string, string>) => o.capture_status)).toEqual(Array(20).fill('1'));

    const refundOrders = [orderOf(txns[0]!, { refund_amount: '2.50' })];
    const headers = { 'idempotency-key': 'bounced-refund-1' };
    const refunded = await client.post('/v1/refund', { ...client.ids, refund_orders: refundOrders }, { headers });
    const repeated = await client.post('/v1/refund', { ...client.ids, refund_orders: refundOrders }, { headers });
    expect(refunded.body.refund_orders[0].refund_status).toBe('1');
    expect(repeated.raw).toBe(refunded.raw);
    expect(await one('SELECT status, captured_amount::int AS captured, refunded_amount::int AS refunded FROM payments WHERE id = $1', [txns[0]!.transaction_id])).toEqual({
      status: 'partially_refunded',
      captured: 1000,
      refunded: 250,
    });
    const check = await acquiro(['ledger', 'check'], env);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(gateway.output()).not.toMatch(/prepared statement/);
  });

  it('stops a revoked key within a second, without LISTEN', async () => {
    const { credentials, client } = await merchant();
    const query = (c: SignedClient) => c.post('/v1/retrievalTrans', { ...c.ids, order_no: 'NONE' });
    // Signed and active: /v1/retrievalTrans reaches the caller's address check (4403).
    expect((await query(client)).body.return_message).toMatch(/^4403:/);
    const rotated = await cli(['keys', 'rotate', '--merchant-id', credentials.merchant_id, '--account-id', credentials.account_id]);
    await cli(['keys', 'revoke', '--merchant-id', credentials.merchant_id, '--account-id', credentials.account_id]);
    await until('the revoked key refused (401)', async () => (await query(client)).status === 401, { withinMs: 1_500, everyMs: 25 });
    const current = httpClient([gateway.url], { ...credentials, secret_key: rotated.secret_key as string });
    expect((await query(current)).body.return_message).toMatch(/^4403:/);
  });
});
