// The real gateway as a process, killed (SIGKILL) while a recurring charge is at the processor,
// between its claim and its record: after the restart the cycle is charged once. The sandbox card
// 4000000000000416 holds a merchant-initiated charge for 10 s before the processor receives it,
// the window the kill falls in; the processor never got it, says so when asked, and the retry
// charges the cycle. And `acquiro clock advance` past several due dates: every charge taken, in
// order, within 30 s. These read the database while the gateway runs, so run on PostgreSQL; on the
// embedded database (one process owns its data directory) the kill -9 test looks through
// `acquiro subscriptions show` and `acquiro payments list`, which the running server answers.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { sign } from '../../src/domain/signature.ts';
import { cardPayment } from '../support/fixtures.ts';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../support/gateway.ts';
import { acquiro, acquiroJson, startServer, tempDataDir, type RunningServer } from '../support/processes.ts';

const WAIT_MS = 120_000;
let database: TestDatabase | undefined;
const running: RunningServer[] = [];

afterEach(async () => {
  for (const child of running.splice(0)) await child.stop('SIGKILL');
  await database?.drop();
  database = undefined;
});

async function until<T>(what: string, probe: () => Promise<T | undefined>, server: RunningServer): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (server.child.exitCode !== null || Date.now() > deadline) throw new Error(`no ${what}:\n${server.output()}`);
    await sleep(250);
  }
}

describe.runIf(TEST_DB === 'postgres')('a gateway killed between a recurring charge’s claim and its record', () => {
  it('charges the cycle once after it restarts', { timeout: 300_000 }, async () => {
    database = await openTestDatabase(2);
    const env = { ...database.env, HOST: '127.0.0.1' };
    const query = <T>(sql: string, params: unknown[] = []) => database!.database.query<T & Record<string, unknown>>(sql, params);
    const first = await startServer(env);
    running.push(first);
    const field = (name: string) => new RegExp(`${name}\\s+(\\S+)`).exec(first.output())?.[1];
    const credentials = { merchant_id: field('merchant_id')!, account_id: field('account_id')!, secret_key: field('secret_key')! };

    const body = cardPayment({ merchant_id: credentials.merchant_id, account_id: credentials.account_id }, { card: '4000000000000416', subscription: { contract_name: 'Gold plan', contract_amount: '10.00', interval: 'month' } });
    const response = await fetch(`${first.url}/v1/authorise`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, encryption_data: sign(body as never, credentials.secret_key) }),
    });
    const answer = await response.text();
    const recurringId = /<recurring_id>(RC\w+)<\/recurring_id>/.exec(answer)?.[1];
    expect(recurringId, answer).toBeDefined();
    // A month and a day on (32 days: past the cycle's due date and its first retry's).
    expect((await acquiro(['clock', 'advance', '--days', '32'], env)).code).toBe(0);
    const chargeOrderNo = `${body.order_no as string} R2-1`;
    await until('a charge at the processor', async () => (await query('SELECT 1 FROM payments WHERE order_no = $1', [chargeOrderNo]))[0], first);
    await first.stop('SIGKILL');
    expect(await query(`SELECT status FROM subscription_charges WHERE subscription_id = $1`, [recurringId])).toEqual([{ status: 'pending' }]);

    const restarted = await startServer(env);
    running.push(restarted);
    // The processor never received the first attempt: asked about it, it has no record (2008).
    await until('the first attempt recorded', async () => (await query(`SELECT 1 FROM subscription_charges WHERE subscription_id = $1 AND status = 'failed'`, [recurringId]))[0], restarted);
    // The retry fell due a day after the cycle, already past: it is taken at once.
    await until('the cycle charged', async () => (await query(`SELECT 1 FROM subscription_charges WHERE subscription_id = $1 AND status = 'succeeded'`, [recurringId]))[0], restarted);

    const charges = await query<{ cycle: number; attempt: number; status: string; result_code: string }>(
      'SELECT cycle, attempt, status, result_code FROM subscription_charges WHERE subscription_id = $1 ORDER BY attempt',
      [recurringId],
    );
    expect(charges).toEqual([
      { cycle: 2, attempt: 1, status: 'failed', result_code: '2008' },
      { cycle: 2, attempt: 2, status: 'succeeded', result_code: '0000' },
    ]);
    const approved = await query<{ n: number }>(`SELECT count(*)::int AS n FROM payments WHERE order_no LIKE $1 AND status IN ('captured', 'authorised')`, [`${body.order_no as string} R2-%`]);
    expect(approved[0]!.n).toBe(1);
  });

  it('takes every charge an advance of the clock makes due, in order, within 30 s', { timeout: 180_000 }, async () => {
    database = await openTestDatabase(2);
    const env = { ...database.env, HOST: '127.0.0.1' };
    const query = <T>(sql: string, params: unknown[] = []) => database!.database.query<T & Record<string, unknown>>(sql, params);
    const server = await startServer(env);
    running.push(server);
    const field = (name: string) => new RegExp(`${name}\\s+(\\S+)`).exec(server.output())?.[1];
    const credentials = { merchant_id: field('merchant_id')!, account_id: field('account_id')!, secret_key: field('secret_key')! };
    const body = cardPayment({ merchant_id: credentials.merchant_id, account_id: credentials.account_id }, { subscription: { contract_name: 'Gold plan', contract_amount: '10.00', interval: 'month' } });
    const response = await fetch(`${server.url}/v1/authorise`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, encryption_data: sign(body as never, credentials.secret_key) }),
    });
    const recurringId = /<recurring_id>(RC\w+)<\/recurring_id>/.exec(await response.text())?.[1];
    expect((await acquiro(['clock', 'advance', '--days', '95'], env)).code).toBe(0);
    const advanced = Date.now();
    const charged = () => query<{ cycle: number }>(`SELECT cycle FROM subscription_charges WHERE subscription_id = $1 AND status = 'succeeded' ORDER BY cycle`, [recurringId]);
    await until('three charges', async () => ((await charged()).length === 3 ? true : undefined), server);
    expect(Date.now() - advanced).toBeLessThan(30_000);
    expect((await charged()).map((row) => row.cycle)).toEqual([2, 3, 4]);
  });
});

describe.runIf(TEST_DB === 'pglite')('a gateway on an embedded database killed between a recurring charge’s claim and its record', () => {
  it('charges the cycle once after it restarts on the same data directory', { timeout: 300_000 }, async () => {
    const env = { ACQUIRO_DATA_DIR: tempDataDir(), HOST: '127.0.0.1' };
    const first = await startServer(env);
    running.push(first);
    const credentials = (await acquiroJson(['merchants', 'create', '--name', 'Recurring restart'], env)) as { merchant_id: string; account_id: string; secret_key: string };
    const account = ['--merchant-id', credentials.merchant_id, '--account-id', credentials.account_id];

    const body = cardPayment({ merchant_id: credentials.merchant_id, account_id: credentials.account_id }, { card: '4000000000000416', subscription: { contract_name: 'Gold plan', contract_amount: '10.00', interval: 'month' } });
    const response = await fetch(`${first.url}/v1/authorise`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, encryption_data: sign(body as never, credentials.secret_key) }),
    });
    const answer = await response.text();
    const recurringId = /<recurring_id>(RC\w+)<\/recurring_id>/.exec(answer)?.[1];
    expect(recurringId, answer).toBeDefined();
    const charges = async () => (await acquiroJson(['subscriptions', 'show', ...account, '--recurring-id', recurringId!], env)).charges as { cycle: number; attempt: number; status: string; result_info: string }[];
    const cyclePayments = async () =>
      ((await acquiroJson(['payments', 'list', ...account], env)) as unknown as { order_no: string; status: string }[]).filter((payment) => payment.order_no.startsWith(`${body.order_no as string} R2-`));

    // A month and a day on (32 days: past the cycle's due date and its first retry's).
    expect((await acquiro(['clock', 'advance', '--days', '32'], env)).code).toBe(0);
    // Claimed, and its payment made: the charge is on its way to the processor (held 10 s).
    await until('a charge at the processor', async () => {
      const claimed = (await charges()).some((charge) => charge.cycle === 2 && charge.status === 'pending');
      return claimed && (await cyclePayments()).length === 1 ? true : undefined;
    }, first);
    await first.stop('SIGKILL');
    // No server owns the data directory now: the command opens it itself and finds the attempt unrecorded.
    expect((await charges()).map(({ cycle, attempt, status }) => ({ cycle, attempt, status }))).toEqual([{ cycle: 2, attempt: 1, status: 'pending' }]);

    const restarted = await startServer(env);
    running.push(restarted);
    // The processor never received the first attempt (2008); the retry, already due, charges the cycle.
    const settled = await until('the cycle charged', async () => {
      const cycle = (await charges()).filter((charge) => charge.cycle === 2);
      return cycle.some((charge) => charge.status === 'succeeded') ? cycle : undefined;
    }, restarted);
    expect(settled.map(({ cycle, attempt, status, result_info }) => ({ cycle, attempt, status, result: result_info.split(':')[0] }))).toEqual([
      { cycle: 2, attempt: 1, status: 'failed', result: '2008' },
      { cycle: 2, attempt: 2, status: 'succeeded', result: '0000' },
    ]);
    const approved = (await cyclePayments()).filter((payment) => payment.status === 'captured' || payment.status === 'authorised');
    expect(approved).toHaveLength(1);
  });
});
