// The real gateway as a process, killed (SIGKILL) while a recurring charge is at the processor,
// between its claim and its record: after the restart the cycle is charged once. The sandbox card
// 4000000000000416 holds a merchant-initiated charge before the processor receives it (4 s here,
// ACQUIRO_SANDBOX_CARD_DELAY), the window the kill falls in; the processor never got it, says so
// when asked, and the retry charges the cycle. The restarted gateway waits out the killed one's
// lease on the charge (twice the unknown-outcome wait: 22 s with the 6 s ACQUIRO_CONNECTOR_TIMEOUT
// of QUICK_TIMERS). And `acquiro clock advance` past several due dates: every charge taken, in
// order, within 30 s. These read the database while the gateway runs, so run on PostgreSQL; on the
// embedded database (one process owns its data directory) the kill -9 test watches the charge
// through /v1/retrievalTrans (the demo merchant may query from loopback) and reads the attempts
// with `acquiro subscriptions show`, which opens the directory itself once the killed server's
// lock has run out (3 s here, ACQUIRO_DATA_DIR_LEASE). The tests on PostgreSQL run at once, each
// on a schema of its own, their servers on small pools (the machine's PostgreSQL is shared).
import { describe, expect, it, type TestContext } from 'vitest';
import { sign } from '../../src/domain/signature.ts';
import { httpClient, type SignedClient } from '../support/client.ts';
import { cardPayment } from '../support/fixtures.ts';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../support/gateway.ts';
import { acquiro, acquiroJson, migratedDataDir, QUICK_TIMERS, startServer, whileRunning, type RunningServer } from '../support/processes.ts';
import { until } from '../support/until.ts';

const WAIT_MS = 120_000;

/**
 * What one test starts: its schema (on PostgreSQL) and its servers, killed and dropped when it
 * ends (through the test's own context: tests that run at once each finish their own).
 */
function ownProcesses({ onTestFinished }: TestContext) {
  const running: RunningServer[] = [];
  let database: TestDatabase | undefined;
  onTestFinished(async () => {
    for (const child of running) await child.stop('SIGKILL');
    await database?.drop();
  });
  return {
    async database(): Promise<TestDatabase> {
      database = await openTestDatabase(2);
      return database;
    },
    async server(env: Record<string, string>): Promise<RunningServer> {
      const started = await startServer(env);
      running.push(started);
      return started;
    },
  };
}

/** The demo merchant the first start of an empty database prints. */
function demoCredentials(server: RunningServer) {
  const field = (name: string) => new RegExp(`${name}\\s+(\\S+)`).exec(server.output())?.[1];
  const credentials = { merchant_id: field('merchant_id')!, account_id: field('account_id')!, secret_key: field('secret_key')! };
  expect(credentials.secret_key, server.output()).toMatch(/^sk_test_/);
  return credentials;
}

/** A payment with `card` that begins a monthly subscription; answers its body and recurring_id. */
async function subscribe(server: RunningServer, credentials: ReturnType<typeof demoCredentials>, card?: string) {
  const body = cardPayment(
    { merchant_id: credentials.merchant_id, account_id: credentials.account_id },
    { ...(card ? { card } : {}), subscription: { contract_name: 'Gold plan', contract_amount: '10.00', interval: 'month' } },
  );
  const response = await fetch(`${server.url}/v1/authorise`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, encryption_data: sign(body as never, credentials.secret_key) }),
  });
  const answer = await response.text();
  const recurringId = /<recurring_id>(RC\w+)<\/recurring_id>/.exec(answer)?.[1];
  expect(recurringId, answer).toBeDefined();
  return { orderNo: body.order_no as string, recurringId: recurringId! };
}

/** The payments /v1/retrievalTrans finds under `order_no`, with their payment_status. */
async function ordersOf(client: SignedClient, orderNo: string): Promise<{ payment_status: string }[]> {
  const answer = await client.post('/v1/retrievalTrans', { ...client.ids, order_no: orderNo });
  expect(answer.status, answer.raw).toBe(200);
  return (answer.body.orders_list ?? []) as { payment_status: string }[];
}

describe.runIf(TEST_DB === 'postgres')('a gateway killed between a recurring charge’s claim and its record', () => {
  it.concurrent('charges the cycle once after it restarts', { timeout: 300_000 }, async (context) => {
    const { expect } = context;
    const own = ownProcesses(context);
    const database = await own.database();
    const env = { ...database.env, HOST: '127.0.0.1', ACQUIRO_DB_POOL_SIZE: '4', ...QUICK_TIMERS };
    const query = <T>(sql: string, params: unknown[] = []) => database.database.query<T & Record<string, unknown>>(sql, params);
    const first = await own.server(env);
    const { orderNo, recurringId } = await subscribe(first, demoCredentials(first), '4000000000000416');
    // A month and a day on (32 days: past the cycle's due date and its first retry's).
    expect((await acquiro(['clock', 'advance', '--days', '32'], env)).code).toBe(0);
    await until('a charge at the processor', async () => (await query('SELECT 1 FROM payments WHERE order_no = $1', [`${orderNo} R2-1`]))[0], { withinMs: WAIT_MS, ...whileRunning(first) });
    const claimedBy = Date.now();
    await first.stop('SIGKILL');
    expect(await query(`SELECT status FROM subscription_charges WHERE subscription_id = $1`, [recurringId])).toEqual([{ status: 'pending' }]);

    const restarted = await own.server(env);
    // The processor never received the first attempt: asked about it, it has no record (2008).
    await until('the first attempt recorded', async () => (await query(`SELECT 1 FROM subscription_charges WHERE subscription_id = $1 AND status = 'failed'`, [recurringId]))[0], { withinMs: WAIT_MS, ...whileRunning(restarted) });
    // Taken up once the killed worker's lease ran out: 22 s after the claim with these timers,
    // where the default ACQUIRO_CONNECTOR_TIMEOUT's lease would have held it 70 s.
    expect(Date.now() - claimedBy).toBeLessThan(60_000);
    // The retry fell due a day after the cycle, already past: it is taken at once.
    await until('the cycle charged', async () => (await query(`SELECT 1 FROM subscription_charges WHERE subscription_id = $1 AND status = 'succeeded'`, [recurringId]))[0], { withinMs: WAIT_MS, ...whileRunning(restarted) });

    const charges = await query<{ cycle: number; attempt: number; status: string; result_code: string }>(
      'SELECT cycle, attempt, status, result_code FROM subscription_charges WHERE subscription_id = $1 ORDER BY attempt',
      [recurringId],
    );
    expect(charges).toEqual([
      { cycle: 2, attempt: 1, status: 'failed', result_code: '2008' },
      { cycle: 2, attempt: 2, status: 'succeeded', result_code: '0000' },
    ]);
    const approved = await query<{ n: number }>(`SELECT count(*)::int AS n FROM payments WHERE order_no LIKE $1 AND status IN ('captured', 'authorised')`, [`${orderNo} R2-%`]);
    expect(approved[0]!.n).toBe(1);
  });

  it.concurrent('takes every charge an advance of the clock makes due, in order, within 30 s', { timeout: 180_000 }, async (context) => {
    const { expect } = context;
    const own = ownProcesses(context);
    const database = await own.database();
    const env = { ...database.env, HOST: '127.0.0.1', ACQUIRO_DB_POOL_SIZE: '4' };
    const query = <T>(sql: string, params: unknown[] = []) => database.database.query<T & Record<string, unknown>>(sql, params);
    const server = await own.server(env);
    const { recurringId } = await subscribe(server, demoCredentials(server));
    expect((await acquiro(['clock', 'advance', '--days', '95'], env)).code).toBe(0);
    const advanced = Date.now();
    const charged = () => query<{ cycle: number }>(`SELECT cycle FROM subscription_charges WHERE subscription_id = $1 AND status = 'succeeded' ORDER BY cycle`, [recurringId]);
    await until('three charges', async () => (await charged()).length === 3, { withinMs: WAIT_MS, ...whileRunning(server) });
    expect(Date.now() - advanced).toBeLessThan(30_000);
    expect((await charged()).map((row) => row.cycle)).toEqual([2, 3, 4]);
  });
});

describe.runIf(TEST_DB === 'pglite')('a gateway on an embedded database killed between a recurring charge’s claim and its record', () => {
  it('charges the cycle once after it restarts on the same data directory', { timeout: 300_000 }, async (context) => {
    const own = ownProcesses(context);
    const env = { ACQUIRO_DATA_DIR: await migratedDataDir(), HOST: '127.0.0.1', ...QUICK_TIMERS };
    const first = await own.server(env);
    const credentials = demoCredentials(first);
    const account = ['--merchant-id', credentials.merchant_id, '--account-id', credentials.account_id];
    const { orderNo, recurringId } = await subscribe(first, credentials, '4000000000000416');
    const charges = async () => (await acquiroJson(['subscriptions', 'show', ...account, '--recurring-id', recurringId], env)).charges as { cycle: number; attempt: number; status: string; result_info: string }[];

    // A month and a day on (32 days: past the cycle's due date and its first retry's).
    expect((await acquiro(['clock', 'advance', '--days', '32'], env)).code).toBe(0);
    // Its payment made (the attempt is claimed first): the charge is on its way to the processor, held.
    const before = httpClient([first.url], credentials);
    await until('a charge at the processor', async () => (await ordersOf(before, `${orderNo} R2-1`)).length > 0, { withinMs: WAIT_MS, ...whileRunning(first) });
    await first.stop('SIGKILL');
    // No server owns the data directory now: the command opens it itself (once the killed
    // server's lock has run out) and finds the attempt unrecorded.
    expect((await charges()).map(({ cycle, attempt, status }) => ({ cycle, attempt, status }))).toEqual([{ cycle: 2, attempt: 1, status: 'pending' }]);

    const restarted = await own.server(env);
    // The processor never received the first attempt (2008); the retry, already due, charges the cycle.
    const after = httpClient([restarted.url], credentials);
    await until('the retry captured', async () => (await ordersOf(after, `${orderNo} R2-2`))[0]?.payment_status === '3000', { withinMs: WAIT_MS, ...whileRunning(restarted) });
    const settled = await until('the cycle charged', async () => {
      const cycle = (await charges()).filter((charge) => charge.cycle === 2);
      return cycle.some((charge) => charge.status === 'succeeded') ? cycle : undefined;
    }, { withinMs: WAIT_MS, ...whileRunning(restarted) });
    expect(settled.map(({ cycle, attempt, status, result_info }) => ({ cycle, attempt, status, result: result_info.split(':')[0] }))).toEqual([
      { cycle: 2, attempt: 1, status: 'failed', result: '2008' },
      { cycle: 2, attempt: 2, status: 'succeeded', result: '0000' },
    ]);
    expect((await ordersOf(after, `${orderNo} R2-1`)).map((order) => order.payment_status)).toEqual(['5000']);
  });
});
