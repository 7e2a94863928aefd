// Balances payouts draw on: `acquiro balance topup|show`, reservations that never overdraw under
// concurrent debits, settlement of pending money on the connector's schedule (moved by the
// injected clock), refunds that may drive the balance negative and its recovery, our fees in the
// platform account, and `acquiro ledger check` proving every balance row against its entries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payOutFunds, releaseFunds, reserveFunds } from '../../src/app/balances/funds.ts';
import { settleBalances, settleBalancesTask } from '../../src/app/balances/settle.ts';
import { runCommand } from '../../src/cli/commands.ts';
import type { SignedClient } from '../support/client.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectLedgerBalanced, pay, refund } from '../support/lifecycle.ts';

let gw: TestGateway;
const clock = new FakeClock(new Date());
const DAY = 86_400_000;

const acquiro = (...argv: string[]) => runCommand(argv, gw.gateway.deps);
const ids = (client: SignedClient) => ['--merchant-id', client.ids.merchant_id, '--account-id', client.ids.account_id];
const balances = async (client: SignedClient) => JSON.parse((await acquiro('balance', 'show', ...ids(client), '--json')).stdout);
const move = (client: SignedClient, amount: number, key: string) => ({ accountId: client.ids.account_id, currency: 'USD', amount, key });

beforeAll(async () => {
  gw = await startTestGateway({ clock });
});
afterAll(() => gw?.close());

describe('acquiro balance', () => {
  it('tops up the available balance in the sandbox and shows every balance as decimal strings', async () => {
    const shop = await gw.merchant();
    expect(await balances(shop)).toEqual([]);
    const topup = await acquiro('balance', 'topup', ...ids(shop), '--currency', 'USD', '--amount', '1000.00');
    expect([topup.exitCode, topup.stderr]).toEqual([0, '']);
    await acquiro('balance', 'topup', ...ids(shop), '--currency', 'JPY', '--amount', '500');
    expect(await balances(shop)).toEqual([
      { currency: 'JPY', available: '500', pending: '0', reserved: '0' },
      { currency: 'USD', available: '1000.00', pending: '0.00', reserved: '0.00' },
    ]);
    expect((await acquiro('balance', 'show', ...ids(shop))).stdout).toMatch(/^currency\s+available\s+pending\s+reserved\nJPY\s+500\s+0\s+0\nUSD\s+1000\.00/);
    await expectLedgerBalanced(gw);
  });

  it.each([
    [['--currency', 'XYZ', '--amount', '1.00'], /--currency XYZ is not an ISO 4217 currency code/],
    [['--currency', 'USD', '--amount', '1.001'], /--amount 1.001 is not a positive amount in USD/],
    [['--currency', 'USD', '--amount', '0'], /--amount 0 is not a positive amount in USD/],
  ])('refuses a top-up with %o, and moves nothing', async (args, message) => {
    const shop = await gw.merchant();
    const result = await acquiro('balance', 'topup', ...ids(shop), ...args);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(await balances(shop)).toEqual([]);
  });

  it("refuses another merchant's account", async () => {
    const [mine, theirs] = [await gw.merchant(), await gw.merchant()];
    const result = await acquiro('balance', 'topup', '--merchant-id', mine.ids.merchant_id, '--account-id', theirs.ids.account_id, '--currency', 'USD', '--amount', '1.00');
    expect([result.exitCode, result.stderr]).toEqual([1, `error: no account ${theirs.ids.account_id} under merchant ${mine.ids.merchant_id}\n`]);
  });

  it('refuses a top-up in live mode: live money reaches a balance only by settlement', async () => {
    const shop = await gw.merchant();
    const live = { ...gw.gateway.deps, config: { ...gw.gateway.deps.config, mode: 'live' as const } };
    const result = await runCommand(['balance', 'topup', ...ids(shop), '--currency', 'USD', '--amount', '1.00'], live);
    expect([result.exitCode, result.stderr]).toEqual([1, 'error: balance topup is for the sandbox only: in live mode money reaches a balance only by settlement\n']);
    expect(await balances(shop)).toEqual([]);
  });
});

describe('reservations', () => {
  it('50 concurrent debits against one balance never overdraw it', async () => {
    const shop = await gw.merchant();
    await acquiro('balance', 'topup', ...ids(shop), '--currency', 'USD', '--amount', '10.00');
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => reserveFunds(gw.gateway.deps, move(shop, 100, `PO-race-${shop.ids.account_id}-${i}`))));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    expect(results.filter((r) => !r.ok && r.reason === 'insufficient_funds')).toHaveLength(40);
    expect(await balances(shop)).toEqual([{ currency: 'USD', available: '0.00', pending: '0.00', reserved: '10.00' }]);
    await expectLedgerBalanced(gw);
  });

  it('writes a retried movement once; releases and pays out only what is reserved', async () => {
    const shop = await gw.merchant();
    await acquiro('balance', 'topup', ...ids(shop), '--currency', 'USD', '--amount', '5.00');
    expect(await reserveFunds(gw.gateway.deps, move(shop, 300, 'PO-a'))).toMatchObject({ ok: true, repeated: false });
    expect(await reserveFunds(gw.gateway.deps, move(shop, 300, 'PO-a'))).toMatchObject({ ok: true, repeated: true });
    expect(await reserveFunds(gw.gateway.deps, move(shop, 300, 'PO-b'))).toEqual({ ok: false, reason: 'insufficient_funds' });
    expect(await balances(shop)).toEqual([{ currency: 'USD', available: '2.00', pending: '0.00', reserved: '3.00' }]);
    expect(await payOutFunds(gw.gateway.deps, move(shop, 400, 'PO-a'))).toEqual({ ok: false, reason: 'not_reserved' });
    expect(await releaseFunds(gw.gateway.deps, move(shop, 100, 'PO-a'))).toMatchObject({ ok: true });
    expect(await payOutFunds(gw.gateway.deps, move(shop, 200, 'PO-a'))).toMatchObject({ ok: true });
    expect(await payOutFunds(gw.gateway.deps, move(shop, 200, 'PO-a'))).toMatchObject({ ok: true, repeated: true });
    expect(await balances(shop)).toEqual([{ currency: 'USD', available: '3.00', pending: '0.00', reserved: '0.00' }]);
    await expectLedgerBalanced(gw);
  });
});

describe('settlement', () => {
  it('keeps captured money pending until the sandbox settles it two days later; fees go to the platform account', async () => {
    const shop = await gw.merchant({ feeBps: 250 });
    const sold = await pay(shop, { amount: '100.00' });
    await refund(shop, sold, '10.00');
    expect(await balances(shop)).toEqual([{ currency: 'USD', available: '0.00', pending: '87.50', reserved: '0.00' }]);
    const fees = await gw.database.query<{ account_id: string; amount: string }>(
      `SELECT account_id, amount::text AS amount FROM ledger_entries WHERE payment_id = $1 AND book = 'fee_revenue'`,
      [sold.transaction_id],
    );
    expect(fees).toEqual([{ account_id: 'platform', amount: '-250' }]);

    await settleBalances(gw.gateway.deps);
    expect((await balances(shop))[0]).toMatchObject({ available: '0.00', pending: '87.50' });
    clock.advance(2 * DAY + 60_000);
    expect(await settleBalances(gw.gateway.deps)).toBeGreaterThanOrEqual(1);
    expect(await balances(shop)).toEqual([{ currency: 'USD', available: '87.50', pending: '0.00', reserved: '0.00' }]);
    await settleBalances(gw.gateway.deps);
    expect((await balances(shop))[0]).toMatchObject({ available: '87.50', pending: '0.00' });
    await expectLedgerBalanced(gw);
  });

  it('rounds the fee half up exactly on amounts whose product with the fee passes 2^53', async () => {
    // 2.89 % of 46 448 429 358 391 KRW is 1 342 359 608 457.9999 (…4 574 999 / 10 000 + ½): the
    // product is past JavaScript's exact integers, and a float rounded it to …458.
    const shop = await gw.merchant({ feeBps: 289 });
    const sold = await pay(shop, { currency: 'KRW', amount: '46448429358391' });
    const fees = await gw.database.query<{ amount: string }>(
      `SELECT amount::text AS amount FROM ledger_entries WHERE payment_id = $1 AND book = 'fee_revenue'`,
      [sold.transaction_id],
    );
    expect(fees).toEqual([{ amount: '-1342359608457' }]);
    expect(await balances(shop)).toEqual([{ currency: 'KRW', available: '0', pending: '45106069749934', reserved: '0' }]);
  });

  it('lets a refund drive the balance negative, and recovers it from the next settlement', async () => {
    const shop = await gw.merchant();
    const sold = await pay(shop, { amount: '50.00' });
    clock.advance(2 * DAY + 60_000);
    await settleBalances(gw.gateway.deps);
    expect((await reserveFunds(gw.gateway.deps, move(shop, 5000, `PO-all-${shop.ids.account_id}`))).ok).toBe(true);
    expect((await refund(shop, sold, '20.00')).refund_status).toBeDefined();
    expect((await balances(shop))[0]).toMatchObject({ available: '0.00', pending: '-20.00', reserved: '50.00' });
    clock.advance(2 * DAY + 60_000);
    await settleBalances(gw.gateway.deps);
    expect((await balances(shop))[0]).toMatchObject({ available: '-20.00', pending: '0.00' });
    expect(await reserveFunds(gw.gateway.deps, move(shop, 1, `PO-none-${shop.ids.account_id}`))).toEqual({ ok: false, reason: 'insufficient_funds' });
    await pay(shop, { amount: '30.00' });
    clock.advance(2 * DAY + 60_000);
    await settleBalances(gw.gateway.deps);
    expect((await balances(shop))[0]).toMatchObject({ available: '10.00', pending: '0.00', reserved: '50.00' });
    await expectLedgerBalanced(gw);
  });

  it('never takes settled money back when a worker whose business time lags runs the batch, and still settles what was booked late', async () => {
    const shop = await gw.merchant();
    await pay(shop, { amount: '100.00' });
    clock.advance(2 * DAY + 30_000);
    await settleBalances(gw.gateway.deps);
    expect((await balances(shop))[0]).toMatchObject({ available: '100.00', pending: '0.00' });

    // Another worker a minute behind (a host's clock, or a process that has not yet seen `acquiro clock advance`).
    const lagging = { ...gw.gateway.deps, clock: { now: () => new Date(clock.now().getTime() - 60_000) } };
    await settleBalances(lagging);
    expect((await balances(shop))[0]).toMatchObject({ available: '100.00', pending: '0.00' });

    // A capture dated by such a process before the cutoff already settled, committed after it.
    clock.advance(-(2 * DAY + 20_000));
    await pay(shop, { amount: '5.00' });
    clock.advance(2 * DAY + 20_000);
    await settleBalances(lagging);
    expect((await balances(shop))[0]).toMatchObject({ available: '105.00', pending: '0.00' });
    expect(await settleBalances(gw.gateway.deps)).toBe(0);
    expect((await balances(shop))[0]).toMatchObject({ available: '105.00', pending: '0.00' });
    await expectLedgerBalanced(gw);
  });

  it('as the worker\'s task, settles what is due and then waits its interval unless a batch was full: steady traffic never keeps it going without pause', async () => {
    const shops = [await gw.merchant(), await gw.merchant()];
    for (const shop of shops) await pay(shop, { amount: '10.00' });
    clock.advance(2 * DAY + 60_000);
    // Both settled, fewer than a batch: the runner is told nothing is left to do at once.
    expect(await settleBalancesTask(gw.gateway.deps)).toBe(0);
    for (const shop of shops) expect((await balances(shop))[0]).toMatchObject({ available: '10.00', pending: '0.00' });
    // A capture falling due a moment later waits for the next round, not a round right away.
    await pay(shops[0]!, { amount: '1.00' });
    clock.advance(2 * DAY + 60_000);
    expect(await settleBalancesTask(gw.gateway.deps)).toBe(0);
    expect((await balances(shops[0]!))[0]).toMatchObject({ available: '11.00', pending: '0.00' });
    await expectLedgerBalanced(gw);
  });
  it("finds what is due without reading the book's settled movements: a round after a large history reads the new capture's entries alone", async () => {
    const history = await gw.merchant();
    for (let i = 0; i < 40; i++) await pay(history, { amount: '1.00' });
    clock.advance(2 * DAY + 60_000);
    await settleBalances(gw.gateway.deps);
    expect((await balances(history))[0]).toMatchObject({ available: '40.00', pending: '0.00' });

    const shop = await gw.merchant();
    await pay(shop, { amount: '7.00' });
    clock.advance(2 * DAY + 60_000);
    // The round's reads outside a settlement's transaction (finding what is due), each also run
    // under EXPLAIN ANALYZE with sequential scans off: the question is which rows an index makes
    // it read, not what the planner prefers on a table this small.
    const plans: unknown[] = [];
    const { database } = gw.gateway.deps;
    const query: typeof database.query = async (text, params, name) => {
      plans.push(
        await database.transaction(async (tx) => {
          await tx('SET LOCAL enable_seqscan = off');
          return (await tx<Record<string, unknown>>(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, params))[0];
        }),
      );
      return database.query(text, params, name);
    };
    expect(await settleBalances({ ...gw.gateway.deps, database: { ...database, query } })).toBe(1);
    expect((await balances(shop))[0]).toMatchObject({ available: '7.00', pending: '0.00' });
    // 40 settled captures are at least 40 movements of the book; the new capture is one.
    expect(ledgerRowsRead(plans)).toBeLessThan(10);
    await expectLedgerBalanced(gw);
  });
});

/** Rows of ledger_entries the plans read (returned or filtered out), over every loop. */
function ledgerRowsRead(plans: unknown[]): number {
  const read = (node: Record<string, any>): number =>
    (node['Relation Name'] === 'ledger_entries' ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'] : 0) +
    ((node.Plans as Record<string, any>[] | undefined) ?? []).reduce((sum, child) => sum + read(child), 0);
  return plans
    .map((row) => Object.values(row as Record<string, unknown>)[0])
    .map((plan) => (typeof plan === 'string' ? JSON.parse(plan) : plan) as { Plan: Record<string, any> }[])
    .reduce((sum, [plan]) => sum + read(plan!.Plan), 0);
}

describe('acquiro ledger check and balances', () => {
  it('fails when a balance row differs from the sum of its entries', async () => {
    const shop = await gw.merchant();
    await acquiro('balance', 'topup', ...ids(shop), '--currency', 'USD', '--amount', '2.00');
    await gw.database.query(`UPDATE account_balances SET available = available + 1 WHERE account_id = $1`, [shop.ids.account_id]);
    try {
      const result = await acquiro('ledger', 'check', '--json');
      expect(result.exitCode).toBe(1);
      expect(JSON.parse(result.stdout).violations).toContainEqual({
        id: `${shop.ids.account_id}/USD`,
        problem: 'balance',
        detail: 'stored available 201 and reserved 0, the entries say 200 and 0',
      });
    } finally {
      await gw.database.query(`UPDATE account_balances SET available = available - 1 WHERE account_id = $1`, [shop.ids.account_id]);
    }
    expect((await acquiro('ledger', 'check')).stdout).toMatch(/ok: \d+ journals balance, \d+ payments match their books, \d+ balances match their entries/);
  });
});
