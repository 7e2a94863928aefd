// A batch whose database goes away while some of its orders are done: the answer says what was
// done. PostgreSQL stopped (a crash: `pg_ctl stop -m immediate`) while one order's call is at the
// processor, after other orders of the batch were captured or refunded. The request waits for every
// order to settle and answers 200 with each order's own result: the ones done as done, the one
// whose processor call was made but whose outcome could not be written as pending (the gateway asks
// again once the database is back), and the ones not reached `9503`. Only a batch of which no order
// was done is answered 503 `9503` as a whole: nothing was stored, and it may be sent again.
//
// Before, the first order to meet the database away ended the request with 503 `9503` ("nothing
// was stored, the same request may be sent again") while the others kept running: a refund batch
// sent again refunded the orders that were done a second time.
//
// PostgreSQL only: the embedded database has no server to lose. The cluster is the test's own
// (test/support/own-postgres.ts), never the machine's shared one.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/app/merchants/credentials.ts';
import type { Result } from '../../src/connectors/port.ts';
import type { OperationOutcome } from '../../src/connectors/port.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { createLogger } from '../../src/logging.ts';
import { signedClient, type SignedClient } from '../support/client.ts';
import { LogCapture, TEST_DB, withTestPasswordCost } from '../support/gateway.ts';
import { batch, orderOf, pay, scriptedProcessor, type Txn } from '../support/lifecycle.ts';
import { createOwnPostgres, type OwnPostgres } from '../support/own-postgres.ts';
import { until, type UntilOptions } from '../support/until.ts';

const processor = scriptedProcessor();
let cluster: OwnPostgres;
let gateway: Gateway;
let manual: SignedClient;
let auto: SignedClient;

/** A processor call held until the test lets it go: the order is at the processor meanwhile. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, passed: (answer: Result<OperationOutcome>) => opened.then(() => answer) };
}

/** Reads the cluster on a connection of the test's own (the gateway's pool is not used). */
async function query<T>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** How long the gateway may take to store what a test waits for (read on the test's own connections), and how often to look. */
const STORED_WITHIN: UntilOptions = { withinMs: 20_000, everyMs: 50 };

const capturedCount = (txns: readonly Txn[]) =>
  query<{ n: number }>(`SELECT count(*)::int AS n FROM payments WHERE id = ANY($1) AND status = 'captured'`, [txns.map((t) => t.transaction_id)]).then(
    ([row]) => row!.n,
  );

describe.runIf(TEST_DB === 'postgres')('a batch whose database goes away part way', () => {
  beforeAll(async () => {
    cluster = await createOwnPostgres();
    const config = loadConfig({ ACQUIRO_BASE_URL: 'http://gateway.test', LOG_LEVEL: 'info', ...withTestPasswordCost({}) });
    const database = await openDatabase({ url: cluster.url, poolSize: 5 });
    gateway = await createGateway({ config, database, log: createLogger(config.logLevel, new LogCapture()), connectors: processor.connectors });
    await gateway.server.app.ready();
    manual = signedClient(gateway.server.app, await createMerchant(gateway.deps, 'Manual', { captureMode: 'manual' }));
    auto = signedClient(gateway.server.app, await createMerchant(gateway.deps, 'Auto', {}));
  }, 120_000);
  afterAll(async () => {
    await cluster?.start().catch(() => {});
    await gateway?.close().catch(() => {});
    await cluster?.destroy();
  });

  it('a capture batch answers 200: the captured ones captured, the one at the processor pending, the one not reached 9503', async () => {
    const [a, b, c] = [await pay(manual), await pay(manual), await pay(manual)];
    const held = gate();
    processor.script.capture = async (request) =>
      request.paymentId === b.transaction_id ? held.passed({ ok: true, value: { status: 'succeeded', reference: 'held' } }) : { ok: true, value: { status: 'succeeded', reference: 'at once' } };
    // Three lanes (a, b, c); b's second order waits for its first. With a key, which the database
    // away keeps the gateway from letting go: the answer is sent all the same.
    const key = `away-${a.transaction_id}`;
    const answering = manual.post(
      '/v1/capture',
      { ...manual.ids, capture_orders: [orderOf(a), orderOf(b), orderOf(c), orderOf(b)] },
      { headers: { 'idempotency-key': key } },
    );
    await until('a and c captured', async () => (await capturedCount([a, c])) === 2, STORED_WITHIN);
    await cluster.stop('immediate');
    held.open();
    const answer = await answering;
    await cluster.start();
    delete processor.script.capture;

    expect(answer.status, answer.raw).toBe(200);
    expect(answer.body.return_status).toBe('1');
    const entries = answer.body.capture_orders as Record<string, string>[];
    expect(entries.map((e) => [e.transaction_id, e.capture_status, (e.error_message ?? "").slice(0, 5)])).toEqual([
      [a.transaction_id, '1', ''],
      [b.transaction_id, '2', '1000:'],
      [c.transaction_id, '1', ''],
      [b.transaction_id, '0', '9503:'],
    ]);
    // What the answer says is what is stored: a and c captured, b's capture claimed and pending.
    expect(await capturedCount([a, c])).toBe(2);
    // b's second order was not run, then or after the answer: one operation on b, the first's.
    await sleep(500);
    expect(await query(`SELECT kind, status FROM payment_operations WHERE payment_id = $1`, [b.transaction_id])).toEqual([{ kind: 'capture', status: 'pending' }]);
    // The answer with a 9503 is not kept under the key, and the key is let go once the database is
    // back (not held for its 60 s lease): the same request sent again with it at once is run again,
    // not answered 4017, and finds what this one did.
    await until('the key let go', async () => (await query<{ holder: string | null }>(`SELECT holder FROM idempotency_keys WHERE key = $1 AND status = 'processing'`, [key]))[0]?.holder === null, STORED_WITHIN);
    const again = await manual.post('/v1/capture', { ...manual.ids, capture_orders: [orderOf(a), orderOf(b), orderOf(c), orderOf(b)] }, { headers: { 'idempotency-key': key } });
    expect(again.status, again.raw).toBe(200);
    const retried = again.body.capture_orders as Record<string, string>[];
    expect(retried.map((e) => [e.transaction_id, e.capture_status, (e.error_message ?? '').slice(0, 5)])).toEqual([
      [a.transaction_id, '1', ''],
      [b.transaction_id, '2', '1000:'],
      [c.transaction_id, '1', ''],
      [b.transaction_id, '0', '5012:'], // its first order's capture is still pending
    ]);
    expect(await query(`SELECT count(*)::int AS n FROM payment_operations WHERE payment_id = ANY($1)`, [[a, b, c].map((t) => t.transaction_id)])).toEqual([{ n: 3 }]);
  }, 90_000);

  it('a refund batch answers 200 with the refund done, and a batch of which nothing was done 503 9503', async () => {
    const [a, b] = [await pay(auto), await pay(auto)];
    const held = gate();
    processor.script.refund = async (request) =>
      request.amount.minor === 200 ? held.passed({ ok: true, value: { status: 'succeeded', reference: 'held' } }) : { ok: true, value: { status: 'succeeded', reference: 'at once' } };
    const refunds = () => query<{ n: number }>(`SELECT count(*)::int AS n FROM refunds WHERE payment_id = $1 AND status = 'succeeded'`, [a.transaction_id]);
    // a's first refund goes in the first wave, its second (held at the processor) in the next.
    const answering = batch(auto, 'refund_orders', [orderOf(a, { refund_amount: '1.00' }), orderOf(a, { refund_amount: '2.00' })]);
    await until("a's first refund recorded", async () => (await refunds())[0]!.n === 1, STORED_WITHIN);
    await cluster.stop('immediate');
    held.open();
    const answer = await answering;

    // Nothing of this one is done while the database is away: 503 9503 as a whole.
    const away = await batch(auto, 'refund_orders', [orderOf(b, { refund_amount: '1.00' })]);
    await cluster.start();
    delete processor.script.refund;

    expect(answer.status, answer.raw).toBe(200);
    const entries = answer.body.refund_orders as Record<string, string>[];
    expect(entries.map((e) => [e.refund_amount, e.refund_status])).toEqual([
      ['1.00', '1'],
      ['2.00', '2'],
    ]);
    // The refund the merchant was told of is stored once; the second claimed, pending.
    const rows = await query<{ amount: number; status: string }>(`SELECT amount::int AS amount, status FROM refunds WHERE payment_id = $1 ORDER BY created_at`, [a.transaction_id]);
    expect(rows).toEqual([
      { amount: 100, status: 'succeeded' },
      { amount: 200, status: 'pending' },
    ]);

    expect(away.status, away.raw).toBe(503);
    expect(away.body.return_message).toMatch(/^9503:/);
    expect(await query(`SELECT 1 FROM refunds WHERE payment_id = $1`, [b.transaction_id])).toEqual([]);
  }, 90_000);
});
