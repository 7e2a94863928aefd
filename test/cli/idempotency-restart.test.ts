// The real gateway as a process, SIGKILLed while a refund sent with an Idempotency-Key is on its way
// to the processor (refund_reason `sandbox_slow`: the sandbox receives it only after ACQUIRO_SANDBOX_CARD_DELAY, 4 s here). The
// key stays held by the dead process. After the restart, five retries at once with the same key:
// one takes the key over, finds the refund the dead request claimed and answers it as pending (it
// never reached the processor; the worker's settle-pending-refunds sends it under the same id), the
// others get that answer. Never 409 `4017`, and one refund: in the refund search, the query record,
// the payment's events and the books. On PostgreSQL a gateway beside an `acquiro worker` (the dead
// gateway stops beating); on the embedded database a gateway restarted on its data directory.
import { afterEach, describe, expect, it } from 'vitest';
import { httpClient, type SignedClient } from '../support/client.ts';
import { TEST_DB, type TestDatabase } from '../support/gateway.ts';
import { orderOf, pay } from '../support/lifecycle.ts';
import { acquiro, acquiroJson, QUICK_TIMERS, startGatewayAndWorker, startServer, type RunningServer, type RunningWorker } from '../support/processes.ts';
import { until } from '../support/until.ts';

/** Starts may be slow on a machine shared with other builds. */
const START_MS = 150_000;
let database: TestDatabase | undefined;
const running: (RunningServer | RunningWorker)[] = [];

afterEach(async () => {
  for (const child of running.splice(0)) await child.stop('SIGKILL');
  await database?.drop();
  database = undefined;
});

const refundsOf = async (client: SignedClient, transactionId: string) =>
  ((await client.post('/v1/refundSearch', { ...client.ids, transaction_id: transactionId }, { format: 'form' })).body.refund_list as Record<string, string>[]).filter(
    (entry) => entry.query_result === '1',
  );

describe('a gateway killed while a keyed refund is at the processor', () => {
  it('answers the retries with the refund it had claimed, once, never 4017', { timeout: 600_000 }, async () => {
    // Quick timers: the slow refund's hold and the sweeper's first look are seconds, not tens of them.
    const started = await startGatewayAndWorker({ readyWithinMs: START_MS, env: QUICK_TIMERS, migrated: true });
    database = started.database;
    const { env } = started;
    running.push(started.server, ...(started.worker ? [started.worker] : []));
    const credentials = (await acquiroJson(['merchants', 'create', '--name', 'Killed mid-refund'], env)) as { merchant_id: string; account_id: string; secret_key: string };
    const account = ['--merchant-id', credentials.merchant_id, '--account-id', credentials.account_id];
    expect((await acquiro(['ips', 'add', ...account, '--cidr', '127.0.0.1'], env)).code).toBe(0);

    const first = httpClient([started.server.url], credentials);
    const txn = await pay(first);
    const refund = { ...first.ids, refund_orders: [orderOf(txn, { refund_amount: '2.00', refund_reason: 'sandbox_slow' })] };
    const headers = { 'idempotency-key': 'killed-refund-1' };
    const cut = first.post('/v1/refund', refund, { headers }).then(
      (answer) => answer,
      (error: unknown) => error,
    );
    // Claimed: the refund is pending, on its way to the processor for QUICK_TIMERS' hold.
    const [claimed] = await until('the refund claimed', async () => {
      const refunds = await refundsOf(first, txn.transaction_id);
      return refunds.length > 0 ? refunds : undefined;
    });
    expect(claimed!.refund_status).toBe('2');
    await started.server.stop('SIGKILL');
    expect(await cut).toBeInstanceOf(Error);

    const restarted = await startServer(TEST_DB === 'postgres' ? { ...env, ACQUIRO_WORKERS: 'off' } : env, { readyWithinMs: START_MS });
    running.push(restarted);
    const client = httpClient([restarted.url], credentials);
    const retries = await Promise.all(Array.from({ length: 5 }, () => client.post('/v1/refund', refund, { headers })));
    expect(retries.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(retries.map((answer) => answer.raw)).size).toBe(1);
    expect(retries.filter((answer) => answer.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(retries[0]!.body.refund_orders[0]).toMatchObject({ refund_status: '2', refund_reference_id: claimed!.refund_reference_id });

    // The worker sends it again under the same id, and it succeeds: one refund of 2.00.
    const [settled] = await until('the refund settled', async () => {
      const refunds = await refundsOf(client, txn.transaction_id);
      return refunds[0]?.refund_status === '1' ? refunds : undefined;
    });
    expect(await refundsOf(client, txn.transaction_id)).toHaveLength(1);
    expect(settled!.refund_reference_id).toBe(claimed!.refund_reference_id);
    const query = await client.post('/v1/retrievalTrans', { ...client.ids, transaction_id: txn.transaction_id }, { format: 'form' });
    expect(query.body.orders_list[0]).toMatchObject({ transaction_id: txn.transaction_id, refunded_amount: '2.00' });
    const shown = await acquiroJson(['payments', 'show', txn.transaction_id], env);
    expect((shown.events as { type: string }[]).filter((event) => event.type === 'refund.succeeded')).toHaveLength(1);
    expect((await acquiro(['ledger', 'check'], env)).code).toBe(0);
    // A later repeat is answered as the retry was.
    const later = await client.post('/v1/refund', refund, { headers });
    expect([later.raw, later.headers['idempotent-replayed']]).toEqual([retries[0]!.raw, 'true']);
  });
});
