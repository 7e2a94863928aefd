// PostgreSQL goes away under load and comes back: a gateway (`acquiro serve --no-worker`) and a
// worker (`acquiro worker`) as real processes on a cluster of the test's own. While it is away
// every request is answered 503 with code 9503 (never 500, never a hang or a dropped connection);
// within 10 s of its return payments succeed again; both processes are still running; and what
// was acknowledged before is in the database as acknowledged. The shopper's pages (the hosted
// payment page, the sandbox's 3-D Secure page) and the portal answer their 503 page meanwhile,
// logged as the refusal it is and never as an error, and open again once it is back.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardPayment, orderNo } from '../support/fixtures.ts';
import { TEST_DB } from '../support/gateway.ts';
import { createOwnPostgres, type OwnPostgres } from '../support/own-postgres.ts';
import { acquiro, startServer, startWorker, whileRunning, type RunningServer, type RunningWorker } from '../support/processes.ts';
import { hiddenFields } from '../support/shopper.ts';
import { postSigned, type MerchantKeys, type Sent } from '../support/signed-fetch.ts';
import { until } from '../support/until.ts';

// Wide margins: the machine's 2 cores are shared with the load and other test files.
const BACK_WITHIN_MS = 10_000;
const AWAY_MS = 3_000;
const LANES = 3;

interface Outcome {
  readonly sentAt: number;
  readonly doneAt: number;
  readonly path: string;
  readonly sent: Sent;
  readonly orderNo?: string;
}

let cluster: OwnPostgres;
let gateway: RunningServer;
let worker: RunningWorker;
let merchant: MerchantKeys;
let env: Record<string, string>;

// The cluster is PostgreSQL; the embedded database has no server to lose.
describe.runIf(TEST_DB === 'postgres')('PostgreSQL restarted under load', () => {
  beforeAll(async () => {
    cluster = await createOwnPostgres();
    env = { DATABASE_URL: cluster.url, HOST: '127.0.0.1', ACQUIRO_DB_POOL_SIZE: '5' };
    gateway = await startServer(env, { acquiroArgs: ['serve', '--no-worker'], readyWithinMs: 150_000 });
    worker = startWorker(env);
    const created = await acquiro(['merchants', 'create', '--name', 'Restart', '--json', '--rate-limit', '100000'], env);
    merchant = JSON.parse(created.stdout) as MerchantKeys;
    // The worker has no readiness probe: its first heartbeat says it is past its start (migrations
    // included), which a cluster stopped mid-start would fail instead of the load this test is about.
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      await until("the worker's first heartbeat", async () => (await client.query(`SELECT 1 FROM process_heartbeats WHERE role = 'worker'`)).rowCount !== 0, {
        withinMs: 150_000,
        everyMs: 200,
        ...whileRunning(worker),
      });
    } finally {
      await client.end();
    }
    // A cluster, a gateway, a worker and a command, each started from nothing on a loaded machine.
  }, 240_000);
  afterAll(async () => {
    await gateway?.stop('SIGKILL');
    await worker?.stop('SIGKILL');
    await cluster?.destroy();
  });

  it('answers 503 while it is away, and is back within 10 s of its return', async () => {
    const outcomes: Outcome[] = [];
    let stopLoad = false;
    let refundSeq = 0;
    const lane = async (index: number) => {
      while (!stopLoad) {
        const sentAt = Date.now();
        // Mostly payments, and refunds of an order no one has: each touches the database.
        if (index === 0 && refundSeq++ % 2 === 0) {
          const order = { transaction_id: 'T0000000000', order_no: 'none', currency: 'USD', amount: '10.00', refund_amount: '1.00' };
          const sent = await postSigned(gateway.url, '/v1/refund', merchant, { refund_orders: [order] }, { headers: { 'idempotency-key': `r-${sentAt}-${refundSeq}` } });
          outcomes.push({ sentAt, doneAt: Date.now(), path: '/v1/refund', sent });
        } else {
          const body = cardPayment({ merchant_id: merchant.merchant_id, account_id: merchant.account_id });
          const sent = await postSigned(gateway.url, '/v1/authorise', merchant, body);
          outcomes.push({ sentAt, doneAt: Date.now(), path: '/v1/authorise', sent, orderNo: String(body.order_no) });
        }
        await sleep(20);
      }
    };
    const pages = await openPages();
    const pagesBefore = await Promise.all(pages.map(getPage));
    expect(pagesBefore.map((p) => p.status)).toEqual([200, 200, 303]);
    const load = Promise.all(Array.from({ length: LANES }, (_, i) => lane(i)));

    await sleep(1_500);
    const awayAt = Date.now();
    await cluster.stop('immediate');
    const goneAt = Date.now();
    const pagesAway = await Promise.all(pages.map(getPage));
    await sleep(Math.max(0, AWAY_MS - (Date.now() - goneAt)));
    const returnAt = Date.now();
    await cluster.start();
    const backAt = Date.now();
    // Until a payment sent after the return succeeds, or the margin is spent.
    const firstSuccessAfterReturn = () => outcomes.find((o) => o.sentAt >= backAt && isSuccess(o.sent));
    while (!firstSuccessAfterReturn() && Date.now() - backAt < BACK_WITHIN_MS + 5_000) await sleep(100);
    await sleep(500);
    stopLoad = true;
    await load;
    const pagesBack = await Promise.all(pages.map(getPage));

    // The pages while it was away: the 503 page, in the shopper's language, with Retry-After.
    expect(pagesAway.map((p) => [p.status, p.retryAfter, p.type]), JSON.stringify(pagesAway)).toEqual(pages.map(() => [503, '1', 'text/html; charset=utf-8']));
    expect(pagesAway[0]!.body).toContain('Algo ha fallado');
    expect(pagesAway[1]!.body).toContain('Algo ha fallado');
    expect(pagesAway[2]!.body).toContain('Something went wrong on our side');
    // A database away is expected: logged as the API logs it, never as an error with a stack.
    const errors = logLines(gateway.output()).filter((line) => Number(line.level) >= 50);
    expect(errors.map((line) => line.msg)).toEqual([]);
    const pageLines = logLines(gateway.output()).filter((line) => line.msg === 'database unavailable' && line.status === 503);
    expect(pageLines.map((line) => line.level)).toEqual(pages.map(() => 40));
    // And they open again once it is back.
    expect(pagesBack.map((p) => p.status)).toEqual(pagesBefore.map((p) => p.status));

    const answers = outcomes.map((o) => (o.sent.kind === 'answer' ? o.sent.status : o.sent.kind));
    const whileAway = outcomes.filter((o) => o.sentAt >= goneAt && o.doneAt <= returnAt);
    const summary = { total: outcomes.length, whileAway: whileAway.length, statuses: count(answers) };
    // Never a 500, a hang or a cut connection, at any moment.
    expect(answers.filter((a) => a === 500 || a === 'timeout' || a === 'dropped'), JSON.stringify(summary)).toEqual([]);
    expect(whileAway.length, JSON.stringify(summary)).toBeGreaterThan(5);
    for (const o of whileAway) {
      expect(o.sent.kind === 'answer' && o.sent.status, `${o.path} ${o.sent.kind === 'answer' ? o.sent.raw : ''}`).toBe(503);
      const text = o.sent.kind === 'answer' ? `${o.sent.body.result_info ?? ''}${o.sent.body.return_message ?? ''}` : '';
      expect(text).toContain('9503:');
    }
    // The requests in flight when it went away were answered 503 or 200: nothing else either.
    expect(outcomes.filter((o) => o.sentAt >= awayAt && o.doneAt <= returnAt).every((o) => o.sent.kind === 'answer' && [200, 503].includes(o.sent.status))).toBe(true);

    const back = firstSuccessAfterReturn();
    expect(back, `no success after the return: ${JSON.stringify(summary)}`).toBeDefined();
    expect(back!.doneAt - backAt).toBeLessThan(BACK_WITHIN_MS);

    expect(gateway.child.exitCode, gateway.output()).toBeNull();
    expect(worker.child.exitCode, worker.output()).toBeNull();

    // Every payment acknowledged as a success is stored as one.
    const acknowledged = outcomes.filter((o) => o.orderNo !== undefined && isSuccess(o.sent)).map((o) => o.orderNo!);
    expect(acknowledged.length).toBeGreaterThan(0);
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      const stored = await client.query<{ order_no: string }>(
        `SELECT order_no FROM payments WHERE order_no = ANY($1) AND status IN ('captured', 'authorised')`,
        [acknowledged],
      );
      expect(stored.rows.length).toBe(acknowledged.length);
    } finally {
      await client.end();
    }
    const check = await acquiro(['ledger', 'check'], env);
    expect([check.code, check.stderr]).toEqual([0, '']);
  });
});

interface PageGet {
  readonly path: string;
  readonly headers: Record<string, string>;
}

/** A hosted payment page, a sandbox 3-D Secure page and a portal page with a session cookie (looked up in the database: one no session has, so it sends to sign-in), each reading the database. */
async function openPages(): Promise<PageGet[]> {
  const spanish = { 'accept-language': 'es' };
  const challenged = await postSigned(gateway.url, '/v1/authorise', merchant, cardPayment({ merchant_id: merchant.merchant_id, account_id: merchant.account_id }, { card: '4000000000003220', return_url: 'https://shop.example/3ds' }));
  const acs = new URL(answerOf(challenged).body.redirect_url as string).pathname;
  const checkout = { order_no: orderNo('CO'), currency: 'USD', amount: '12.00', return_url: 'https://shop.example/r' };
  const handOff = answerOf(await postSigned(gateway.url, '/v1/checkout', merchant, checkout));
  const opened = await fetch(`${gateway.url}/v1/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(hiddenFields(handOff.raw)).toString(),
    redirect: 'manual',
  });
  const hosted = new URL(opened.headers.get('location')!, gateway.url).pathname;
  return [
    { path: hosted, headers: spanish },
    { path: acs, headers: spanish },
    { path: '/portal', headers: { cookie: `acquiro_portal=${'s'.repeat(43)}` } },
  ];
}

async function getPage(page: PageGet) {
  const response = await fetch(`${gateway.url}${page.path}`, { headers: page.headers, redirect: 'manual', signal: AbortSignal.timeout(20_000) });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), type: response.headers.get('content-type'), body: await response.text() };
}

function answerOf(sent: Sent) {
  if (sent.kind !== 'answer' || sent.status !== 200) throw new Error(`no answer: ${JSON.stringify(sent)}`);
  return sent;
}

function logLines(output: string): Record<string, unknown>[] {
  return output.split('\n').flatMap((line) => {
    try {
      const parsed: unknown = JSON.parse(line);
      return typeof parsed === 'object' && parsed !== null ? [parsed as Record<string, unknown>] : [];
    } catch {
      return [];
    }
  });
}

function isSuccess(sent: Sent): boolean {
  return sent.kind === 'answer' && sent.status === 200 && sent.body.order_status === '1';
}

function count(values: readonly unknown[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[String(value)] = (counts[String(value)] ?? 0) + 1;
  return counts;
}
