// What operators change on a merchant already taking payments, through the CLI: disable and
// enable (a disabled merchant's or account's requests refused with 4410, from the next request,
// although the server caches accounts), and fees per currency (fixed plus a percentage).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import type { SignedClient } from '../support/client.ts';
import { cardPayment, orderNo } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { booksOf, pay } from '../support/lifecycle.ts';
import { shopper } from '../support/shopper.ts';
import { until, type UntilOptions } from '../support/until.ts';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());

const acquiro = (...argv: string[]) => runCommand(argv, gw.gateway.deps);
const ids = (client: SignedClient) => ['--merchant-id', client.ids.merchant_id, '--account-id', client.ids.account_id];
const authorise = (client: SignedClient) => client.post('/v1/authorise', cardPayment(client.ids));

/** The announcement reaches the server's cache asynchronously (LISTEN): within a second, not a TTL. */
const SOON: UntilOptions = { withinMs: 2_000, everyMs: 20 };

describe('acquiro merchants disable|enable', () => {
  it("refuses a disabled merchant's requests with 4410, signed, and accepts them again once enabled", async () => {
    const shop = await gw.merchant();
    expect((await authorise(shop)).body.result_info).toBe('0000:Success'); // cached now
    const disabled = await acquiro('merchants', 'disable', '--merchant-id', shop.ids.merchant_id);
    expect([disabled.exitCode, disabled.stdout]).toEqual([0, `merchant ${shop.ids.merchant_id} disabled\n`]);
    await until('the disabled merchant refused', async () => (await authorise(shop)).status === 403, SOON);
    const refused = await authorise(shop);
    expect([refused.status, refused.body.result_info, refused.signed]).toEqual([403, '4410:Merchant or account disabled', true]);
    const before = await gw.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM payments WHERE account_id = $1`, [shop.ids.account_id]);
    await authorise(shop);
    expect(await gw.database.query(`SELECT count(*)::int AS n FROM payments WHERE account_id = $1`, [shop.ids.account_id])).toEqual(before);

    expect((await acquiro('merchants', 'enable', '--merchant-id', shop.ids.merchant_id)).exitCode).toBe(0);
    await until('the enabled merchant served', async () => (await authorise(shop)).status === 200, SOON);
  });

  it('disables one account of a merchant, not the others', async () => {
    const shop = await gw.merchant();
    const result = await acquiro('merchants', 'disable', ...ids(shop), '--json');
    expect(JSON.parse(result.stdout)).toEqual({ merchant_id: shop.ids.merchant_id, account_id: shop.ids.account_id, status: 'disabled' });
    await until('the disabled account refused', async () => (await authorise(shop)).status === 403, SOON);
    const other = await gw.merchant();
    expect((await authorise(other)).status).toBe(200);
  });

  it('merchants list says which accounts are disabled, not only which merchants', async () => {
    // It printed the merchant's status on each account's line: a disabled account read `active`.
    const shop = await gw.merchant();
    const second = JSON.parse((await acquiro('accounts', 'create', '--merchant-id', shop.ids.merchant_id, '--json')).stdout) as { account_id: string };
    await acquiro('merchants', 'disable', ...ids(shop));
    const lines = async () =>
      (JSON.parse((await acquiro('merchants', 'list', '--json')).stdout) as Record<string, unknown>[])
        .filter((line) => line.merchant_id === shop.ids.merchant_id)
        .map(({ account_id, status, account_status }) => ({ account_id, status, account_status }));
    expect(await lines()).toEqual([
      { account_id: shop.ids.account_id, status: 'active', account_status: 'disabled' },
      { account_id: second.account_id, status: 'active', account_status: 'active' },
    ]);
    await acquiro('merchants', 'disable', '--merchant-id', shop.ids.merchant_id);
    await acquiro('merchants', 'enable', ...ids(shop));
    expect(await lines()).toEqual([
      { account_id: shop.ids.account_id, status: 'disabled', account_status: 'active' },
      { account_id: second.account_id, status: 'disabled', account_status: 'active' },
    ]);
    const text = (await acquiro('merchants', 'list')).stdout;
    expect(text.split('\n')[0]).toMatch(/^merchant_id\s+name\s+status\s+account_id\s+account_status\s/);
  });

  it("takes no payment on a disabled merchant's hosted page, and takes it again once enabled", async () => {
    const shop = await gw.merchant();
    const browser = shopper(gw.gateway.server.app);
    const order = orderNo('CO');
    const handOffPage = await shop.post('/v1/checkout', { ...shop.ids, order_no: order, currency: 'USD', amount: '25.00', return_url: 'https://shop.example/return' });
    const pageUrl = (await browser.handOff(handOffPage.raw)).location!;
    expect((await browser.get(pageUrl)).status).toBe(200); // the card form; the account is cached now
    expect((await acquiro('merchants', 'disable', '--merchant-id', shop.ids.merchant_id)).exitCode).toBe(0);
    await until('the hosted page closed', async () => (await browser.get(pageUrl)).status === 404, SOON);
    const card = { holder_name: 'Ana Lima', card_number: '4111 1111 1111 1111', expiry: '12 / 30', security_code: '123' };
    expect((await browser.post(`${pageUrl}/pay`, card)).status).toBe(404);
    const status = async () => (await gw.database.query<{ status: string }>('SELECT status FROM payments WHERE order_no = $1', [order]))[0]!.status;
    expect(await status()).toBe('requires_redirect');

    expect((await acquiro('merchants', 'enable', '--merchant-id', shop.ids.merchant_id)).exitCode).toBe(0);
    await until('the hosted page open again', async () => (await browser.get(pageUrl)).status === 200, SOON);
    expect((await browser.post(`${pageUrl}/pay`, card)).status).toBe(303);
    expect(await status()).toBe('captured');
  });

  it("completes no 3-D Secure challenge of a disabled account: the shopper's answer charges nothing, and again once enabled", async () => {
    const shop = await gw.merchant();
    const browser = shopper(gw.gateway.server.app);
    const challenged = (await shop.post('/v1/authorise', cardPayment(shop.ids, { card: '4000000000003220', return_url: 'https://shop.example/back' }))).body;
    expect(challenged.order_status).toBe('2');
    const status = async () => (await gw.database.query<{ status: string }>('SELECT status FROM payments WHERE id = $1', [challenged.transaction_id]))[0]!.status;
    expect((await acquiro('merchants', 'disable', ...ids(shop))).exitCode).toBe(0);
    await browser.answer(challenged.redirect_url, { code: '1234', action: 'verify' });
    expect(await status()).toBe('requires_authentication');
    expect(await booksOf(gw, challenged.transaction_id)).toEqual({});

    expect((await acquiro('merchants', 'enable', ...ids(shop))).exitCode).toBe(0);
    await browser.answer(challenged.redirect_url, { code: '1234', action: 'verify' });
    expect(await status()).toBe('captured');
  });

  it('refuses an unknown merchant, and an account of another merchant', async () => {
    const [mine, theirs] = [await gw.merchant(), await gw.merchant()];
    expect((await acquiro('merchants', 'disable', '--merchant-id', 'M999')).stderr).toBe('error: no merchant M999\n');
    const cross = await acquiro('merchants', 'disable', '--merchant-id', mine.ids.merchant_id, '--account-id', theirs.ids.account_id);
    expect([cross.exitCode, cross.stderr]).toEqual([1, `error: no account ${theirs.ids.account_id} under merchant ${mine.ids.merchant_id}\n`]);
    expect((await authorise(theirs)).status).toBe(200);
  });
});

describe('acquiro accounts fees', () => {
  it('charges a currency its fixed fee plus percentage, other currencies the default, from the next capture', async () => {
    const shop = await gw.merchant({ feeBps: 100 });
    const set = await acquiro('accounts', 'fees', 'set', ...ids(shop), '--currency', 'USD', '--fixed', '0.30', '--percent', '2.9');
    expect(set.stdout).toBe('USD  0.30 + 2.90%\nother currencies  1.00%\n');
    expect(JSON.parse((await acquiro('accounts', 'fees', 'show', ...ids(shop), '--json')).stdout)).toEqual({
      default_bps: 100,
      currencies: { USD: { fixed: 30, bps: 290 } },
    });
    let usd = await pay(shop, { amount: '100.00' });
    await until(
      'a USD capture charged the new fee',
      async () => {
        if ((await booksOf(gw, usd.transaction_id)).fee_revenue === -320) return true;
        usd = await pay(shop, { amount: '100.00' });
        return false;
      },
      SOON,
    );
    const eur = await pay(shop, { amount: '100.00', currency: 'EUR' });
    expect((await booksOf(gw, eur.transaction_id)).fee_revenue).toBe(-100);

    expect((await acquiro('accounts', 'fees', 'remove', ...ids(shop), '--currency', 'USD')).stdout).toBe('removed the USD fee: it pays the default percentage\nother currencies  1.00%\n');
  });

  it('says when the currency had no fee to remove, as ips remove and storefronts remove do', async () => {
    // It printed the fees and exited 0, as for a fee removed: a typo (EUR for USD) left the fee in place unseen.
    const shop = await gw.merchant();
    expect((await acquiro('accounts', 'fees', 'set', ...ids(shop), '--currency', 'USD', '--fixed', '0.30', '--percent', '2.9')).exitCode).toBe(0);
    const none = await acquiro('accounts', 'fees', 'remove', ...ids(shop), '--currency', 'EUR');
    expect([none.exitCode, none.stdout]).toEqual([0, 'EUR had no fee of its own: nothing removed\nUSD  0.30 + 2.90%\nother currencies  0.00%\n']);
    const json = await acquiro('accounts', 'fees', 'remove', ...ids(shop), '--currency', 'EUR', '--json');
    expect(JSON.parse(json.stdout)).toEqual({ currency: 'EUR', removed: false, default_bps: 0, currencies: { USD: { fixed: 30, bps: 290 } } });
    const removed = await acquiro('accounts', 'fees', 'remove', ...ids(shop), '--currency', 'USD', '--json');
    expect(JSON.parse(removed.stdout)).toEqual({ currency: 'USD', removed: true, default_bps: 0, currencies: {} });
  });

  it.each([
    [['--currency', 'USD', '--percent', '100.01'], /--percent 100.01 is a percentage from 0 to 100/],
    [['--currency', 'USD', '--fixed', '0.001'], /--fixed 0.001 is not an amount in USD/],
    [['--currency', 'XYZ', '--fixed', '1.00'], /--currency XYZ is not an ISO 4217 currency code/],
  ])('refuses %o and changes nothing', async (args, message) => {
    const shop = await gw.merchant();
    const result = await acquiro('accounts', 'fees', 'set', ...ids(shop), ...args);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(JSON.parse((await acquiro('accounts', 'fees', 'show', ...ids(shop), '--json')).stdout).currencies).toEqual({});
  });
});

describe('acquiro accounts fees|payout-fees remove', () => {
  // A code that is no currency (a lower-case one, a typo) named no fee: the command said what
  // stayed, exit 0, and the fee the operator meant to remove was still charged.
  it.each([['fees'], ['payout-fees']])('%s remove refuses a code that is no currency, naming --currency, exit 2, the fee kept', async (which) => {
    const shop = await gw.merchant();
    expect((await acquiro('accounts', which, 'set', ...ids(shop), '--currency', 'USD', '--fixed', '0.30')).exitCode).toBe(0);
    const before = JSON.parse((await acquiro('accounts', which, 'show', ...ids(shop), '--json')).stdout);
    expect(Object.keys(before.currencies)).toEqual(['USD']);
    for (const code of ['usd', 'XYZ', 'US']) {
      const result = await acquiro('accounts', which, 'remove', ...ids(shop), '--currency', code, '--json');
      expect([result.exitCode, result.stdout, result.stderr]).toEqual([2, '', `error: --currency ${code} is not an ISO 4217 currency code\n`]);
    }
    expect(JSON.parse((await acquiro('accounts', which, 'show', ...ids(shop), '--json')).stdout)).toEqual(before);
  });

  it('payout-fees remove says when the currency had no payout fee of its own, and writes nothing then', async () => {
    // It printed the fees and exited 0, as for a fee removed, and rewrote the row: a typo (EUR
    // for USD) left the payout fee in place unseen.
    const shop = await gw.merchant();
    expect((await acquiro('accounts', 'payout-fees', 'set', ...ids(shop), '--currency', 'USD', '--fixed', '0.25', '--percent', '1', '--swift', '20.00')).exitCode).toBe(0);
    const version = async () => (await gw.database.query<{ v: string }>(`SELECT xmin::text AS v FROM accounts WHERE id = $1`, [shop.ids.account_id]))[0]!.v;
    const written = await version();
    const fees = 'USD  0.25 + 1.00%, SWIFT charge 20.00\nother currencies  1 unit of the currency + 0.50%, SWIFT charge 15 units (sandbox default)\n';
    const none = await acquiro('accounts', 'payout-fees', 'remove', ...ids(shop), '--currency', 'EUR');
    expect([none.exitCode, none.stdout]).toEqual([0, `EUR had no payout fee of its own: nothing removed\n${fees}`]);
    const json = await acquiro('accounts', 'payout-fees', 'remove', ...ids(shop), '--currency', 'EUR', '--json');
    const usd = { fixed: 25, bps: 100, swift: 2000 };
    const sandboxDefault = { fixed: 100, bps: 50, swift: 1500 };
    expect([json.exitCode, JSON.parse(json.stdout)]).toEqual([0, { currency: 'EUR', removed: false, currencies: { USD: usd }, default: sandboxDefault }]);
    expect(await version()).toBe(written);

    const removed = await acquiro('accounts', 'payout-fees', 'remove', ...ids(shop), '--currency', 'USD');
    expect([removed.exitCode, removed.stdout]).toEqual([0, 'removed the USD payout fee: it pays the sandbox default\nother currencies  1 unit of the currency + 0.50%, SWIFT charge 15 units (sandbox default)\n']);
    expect(await version()).not.toBe(written);
    const again = await acquiro('accounts', 'payout-fees', 'remove', ...ids(shop), '--currency', 'USD', '--json');
    expect(JSON.parse(again.stdout)).toEqual({ currency: 'USD', removed: false, currencies: {}, default: sandboxDefault });
  });
});

describe("the platform's own books", () => {
  // The ledger's `platform` merchant and account (fees earned) are no merchant: the settings
  // commands said so, but an account, a portal member, a query IP, a key rotation, a top-up of
  // the platform's balance were all taken for it.
  it.each([
    [['accounts', 'create', '--merchant-id', 'platform'], 'error: no merchant platform\n'],
    [['users', 'create', '--merchant-id', 'platform', '--email', 'books@platform.example', '--role', 'owner'], 'error: no merchant platform\n'],
    [['ips', 'add', '--merchant-id', 'platform', '--account-id', 'platform', '--cidr', '203.0.113.7'], 'error: no account platform under merchant platform\n'],
    [['balance', 'topup', '--merchant-id', 'platform', '--account-id', 'platform', '--currency', 'USD', '--amount', '10.00'], 'error: no account platform under merchant platform\n'],
    [['keys', 'rotate', '--merchant-id', 'platform', '--account-id', 'platform'], 'error: no account platform under merchant platform\n'],
    [['keys', 'revoke', '--merchant-id', 'platform', '--account-id', 'platform'], 'error: no account platform under merchant platform\n'],
    [['accounts', 'dunning', 'set', '--merchant-id', 'platform', '--account-id', 'platform', '--retry-days', '1,3,7'], 'error: no account platform under merchant platform\n'],
    [['blocklist', 'add', '--kind', 'bin', '--value', '411111', '--merchant-id', 'platform', '--account-id', 'platform'], 'error: no account platform under merchant platform\n'],
    [['storefronts', 'add', '--merchant-id', 'platform', '--account-id', 'platform', '--domain', 'https://shop.example'], 'error: no account platform under merchant platform\n'],
  ])('refuses acquiro %o', async (argv, stderr) => {
    const run = await acquiro(...argv);
    expect([run.exitCode, run.stdout, run.stderr]).toEqual([1, '', stderr]);
  });
});

describe('acquiro keys rotate|revoke of an account the merchant does not have', () => {
  // Worded `no account M/A`, where every other command says `no account A under merchant M`.
  it.each(['rotate', 'revoke'])('says so as every other command does (keys %s)', async (which) => {
    const [mine, theirs] = [await gw.merchant(), await gw.merchant()];
    const run = await acquiro('keys', which, '--merchant-id', mine.ids.merchant_id, '--account-id', theirs.ids.account_id);
    expect([run.exitCode, run.stdout, run.stderr]).toEqual([1, '', `error: no account ${theirs.ids.account_id} under merchant ${mine.ids.merchant_id}\n`]);
  });
});
