// /v1/retrievalTrans through the HTTP interface: registered IPs only (trusted proxies' forwarded
// address included), selection by order_no, transaction_id or a paged time window, every field
// of the documented query record, and nothing of another account.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignedClient } from '../support/client.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { allowQueriesFrom, cancel, orderOf, pay, refund, type Txn } from '../support/lifecycle.ts';

let gw: TestGateway;
let shop: SignedClient;
let stranger: SignedClient;

const registerIp = (gateway: TestGateway, client: SignedClient, cidr: string) => allowQueriesFrom(gateway, [client], cidr);

const query = (client: SignedClient, selection: Record<string, unknown>, options: { remoteAddress?: string; headers?: Record<string, string> } = {}) =>
  client.post('/v1/retrievalTrans', { ...client.ids, ...selection }, { format: 'form', ...options });

beforeAll(async () => {
  gw = await startTestGateway();
  shop = await gw.merchant({ captureMode: 'manual' });
  stranger = await gw.merchant();
  await registerIp(gw, shop, '127.0.0.1');
  await registerIp(gw, stranger, '127.0.0.0/8');
});
afterAll(() => gw?.close());

describe('the IP allow-list', () => {
  it('answers 403 to an address the account did not register, and says nothing else', async () => {
    const txn = await pay(shop);
    const answer = await query(shop, { order_no: txn.order_no }, { remoteAddress: '198.51.100.9' });
    expect(answer.status).toBe(403);
    expect(answer.signed).toBe(true);
    expect(answer.body).toEqual({
      merchant_id: shop.ids.merchant_id,
      account_id: shop.ids.account_id,
      return_status: '0',
      return_message: '4403:Caller IP is not registered for this account',
      orders_list: [],
      encryption_data: expect.any(String),
    });
  });

  it('answers 403 to an unregistered address whatever the request holds: a field it does not define, an empty or a double selection', async () => {
    for (const selection of [{ order_no: 'ORD-1', colour: 'red' }, { colour: '' }, {}, { order_no: 'A', transaction_id: 'T' }]) {
      const answer = await query(shop, selection, { remoteAddress: '198.51.100.9' });
      expect([answer.status, answer.body.return_message]).toEqual([403, '4403:Caller IP is not registered for this account']);
    }
  });

  it('answers an account with no registered address 403 too', async () => {
    const fresh = await gw.merchant();
    expect((await query(fresh, { order_no: 'ORD-1' })).status).toBe(403);
  });

  it('checks the signature before the address', async () => {
    const answer = await shop.post('/v1/retrievalTrans', { ...shop.ids, order_no: 'x' }, { secret: 'sk_test_wrong', remoteAddress: '198.51.100.9' });
    expect(answer.status).toBe(401);
  });

  it('takes a block written in IPv4-mapped IPv6 form as the IPv4 block it names, registered and matched', async () => {
    const merchant = await gw.merchant();
    const ids = ['--merchant-id', merchant.ids.merchant_id, '--account-id', merchant.ids.account_id];
    const added = await runCommand(['ips', 'add', ...ids, '--cidr', '::ffff:203.0.113.0/120', '--json'], gw.gateway.deps);
    expect(added.exitCode, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ cidr: '203.0.113.0/24' });
    // A block stored in that form before (as `ips add --cidr ::ffff:198.51.100.0/120` stored it) is matched as the IPv4 block too.
    await gw.database.query('INSERT INTO account_ips (account_id, cidr) VALUES ($1, $2)', [merchant.ids.account_id, '::ffff:c633:6400/120']);
    const txn = await pay(merchant);
    const from = async (remoteAddress: string) => (await query(merchant, { order_no: txn.order_no }, { remoteAddress })).status;
    expect([await from('203.0.113.7'), await from('::ffff:203.0.113.9'), await from('198.51.100.4'), await from('192.0.2.1')]).toEqual([200, 200, 200, 403]);
    // Removing the IPv4 block removes it as stored in either form.
    const removed = await runCommand(['ips', 'remove', ...ids, '--cidr', '198.51.100.0/24', '--json'], gw.gateway.deps);
    expect(JSON.parse(removed.stdout)).toMatchObject({ cidr: '198.51.100.0/24', removed: true });
    expect(await from('198.51.100.4')).toBe(403);
  });

  it('registers a block written with host bits as the block, and removes it in every form it was stored in', async () => {
    // `ips add --cidr 192.168.1.77/24` stored that text, which allows the whole /24: removing
    // 192.168.1.0/24 said "was not registered", and a block added in both forms was "removed"
    // while the other row still let every address of it query.
    const merchant = await gw.merchant();
    const ids = ['--merchant-id', merchant.ids.merchant_id, '--account-id', merchant.ids.account_id];
    const added = await runCommand(['ips', 'add', ...ids, '--cidr', '198.51.100.77/24'], gw.gateway.deps);
    expect([added.exitCode, added.stdout]).toEqual([0, 'added 198.51.100.0/24\n']);
    // A row stored with host bits before this was normalised.
    await gw.database.query('INSERT INTO account_ips (account_id, cidr) VALUES ($1, $2)', [merchant.ids.account_id, '198.51.100.9/24']);
    const txn = await pay(merchant);
    const from = async (remoteAddress: string) => (await query(merchant, { order_no: txn.order_no }, { remoteAddress })).status;
    expect(await from('198.51.100.4')).toBe(200);
    const removed = await runCommand(['ips', 'remove', ...ids, '--cidr', '198.51.100.0/24', '--json'], gw.gateway.deps);
    expect(JSON.parse(removed.stdout)).toMatchObject({ cidr: '198.51.100.0/24', removed: true });
    expect(JSON.parse((await runCommand(['ips', 'list', ...ids, '--json'], gw.gateway.deps)).stdout)).toEqual([]);
    expect(await from('198.51.100.4')).toBe(403);
  });

  it('ignores X-Forwarded-For when no proxy is trusted', async () => {
    const merchant = await gw.merchant();
    await registerIp(gw, merchant, '203.0.113.7');
    const answer = await query(merchant, { order_no: 'ORD-1' }, { headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(answer.status).toBe(403);
  });

  it('takes the forwarded address from a trusted proxy only', async () => {
    const proxied = await startTestGateway({ env: { ACQUIRO_TRUSTED_PROXIES: '10.0.0.1' } });
    try {
      const merchant = await proxied.merchant();
      await registerIp(proxied, merchant, '203.0.113.0/24');
      const txn = await pay(merchant);
      const viaProxy = await query(merchant, { order_no: txn.order_no }, { remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': '203.0.113.7' } });
      const spoofed = await query(merchant, { order_no: txn.order_no }, { remoteAddress: '10.0.0.2', headers: { 'x-forwarded-for': '203.0.113.7' } });
      const proxyItself = await query(merchant, { order_no: txn.order_no }, { remoteAddress: '10.0.0.1' });
      expect([viaProxy.status, viaProxy.body.orders_list[0]?.query_result]).toEqual([200, '1']);
      expect(spoofed.status).toBe(403);
      expect(proxyItself.status).toBe(403);
    } finally {
      await proxied.close();
    }
  });
});

describe('selecting by order_no or transaction_id', () => {
  let authorised: Txn;
  let captured: Txn;
  let declined: Txn;

  beforeAll(async () => {
    authorised = await pay(shop, { service: 'shipping-plus', open3d: '1' });
    captured = await pay(shop);
    await shop.post('/v1/capture', { ...shop.ids, capture_orders: [orderOf(captured)] });
    declined = await pay(shop, { card: '4000000000000002' });
  });

  it('answers one entry per key, in the order asked, with every documented field', async () => {
    const answer = await query(shop, { order_no: [captured.order_no, 'ORD-unknown', authorised.order_no].join(',') });
    expect(answer.status).toBe(200);
    expect(answer.signed).toBe(true);
    expect(answer.body).toMatchObject({ merchant_id: shop.ids.merchant_id, account_id: shop.ids.account_id, return_status: '1', return_message: 'OK' });
    const [first, unknown, last] = answer.body.orders_list;
    expect(first).toEqual({
      transaction_id: captured.transaction_id,
      order_no: captured.order_no,
      amount: '10.00',
      currency: 'USD',
      payment_status: '3000',
      query_result: '1',
      reference_no: `sim_${captured.transaction_id}`,
      transaction_date: expect.stringMatching(/^20\d{12}$/),
      service: '',
      captured_amount: '10.00',
      refunded_amount: '0.00',
      is3ds: '0',
      antifraud_provider: 'acquiro',
      fraud_check_result: expect.arrayContaining([{ check_items: 'blocklist', status: 'pass' }]),
      contract_name: '',
      recurring_id: '',
      recurring_deduction_period: '',
      recurring_deduction_time: '',
    });
    expect(unknown).toMatchObject({ order_no: 'ORD-unknown', transaction_id: '', query_result: '0', payment_status: '', fraud_check_result: [] });
    expect(last).toMatchObject({ transaction_id: authorised.transaction_id, payment_status: '2000', service: 'shipping-plus', is3ds: '1' });
  });

  it('dates the transaction in UTC, YYYYMMDDhhmmss', async () => {
    const [row] = await gw.database.query<{ created_at: Date }>('SELECT created_at FROM payments WHERE id = $1', [declined.transaction_id]);
    const answer = await query(shop, { transaction_id: declined.transaction_id });
    expect(answer.body.orders_list[0].transaction_date).toBe(row!.created_at.toISOString().slice(0, 19).replace(/[-T:]/g, ''));
  });

  it('selects by transaction_id, and gives every state its payment_status', async () => {
    const held = await pay(shop, { card: '4000000000004954' });
    const challenged = await pay(shop, { card: '4000000000003220' });
    const timedOut = await pay(shop, { card: '4000000000000259' });
    const cancelled = await pay(shop);
    await cancel(shop, cancelled);
    const auto = await gw.merchant();
    await registerIp(gw, auto, '127.0.0.1');
    const [partly, whole] = [await pay(auto), await pay(auto)];
    await refund(auto, partly, '1.00');
    await refund(auto, whole, '10.00');
    const mine = [authorised, captured, declined, held, challenged, timedOut, cancelled];
    const statusOf = async (client: SignedClient, txns: Txn[]) =>
      (await query(client, { transaction_id: txns.map((t) => t.transaction_id).join(',') })).body.orders_list.map((e: Record<string, string>) => e.payment_status);
    expect(await statusOf(shop, mine)).toEqual(['2000', '3000', '5000', '1003', '1001', '1000', '4000']);
    expect(await statusOf(auto, [partly, whole])).toEqual(['3001', '3002']);
  });

  it("answers another account's transaction exactly like one that does not exist", async () => {
    const byId = await query(stranger, { transaction_id: captured.transaction_id });
    const byNo = await query(stranger, { order_no: captured.order_no });
    const nobody = await query(stranger, { transaction_id: 'TNOSUCH' });
    expect({ ...byId.body.orders_list[0], transaction_id: '' }).toEqual({ ...nobody.body.orders_list[0], transaction_id: '' });
    expect(byNo.body.orders_list[0]).toMatchObject({ query_result: '0', amount: '', payment_status: '', reference_no: '' });
  });

  it('names no antifraud provider for a payment the risk engine has not decided on: a hosted page no card was tried on', async () => {
    const order = `QHP-${Date.now()}`;
    const page = await shop.post('/v1/checkout', { ...shop.ids, order_no: order, currency: 'USD', amount: '25.00', return_url: 'https://shop.example/return' });
    expect(page.status).toBe(200);
    const [entry] = (await query(shop, { order_no: order })).body.orders_list;
    expect(entry).toMatchObject({ query_result: '1', payment_status: '1002', antifraud_provider: '', fraud_check_result: [] });
    // Once a decision is made the provider is named, whatever it decided (declined by the processor after it).
    expect((await query(shop, { order_no: declined.order_no })).body.orders_list[0]).toMatchObject({ antifraud_provider: 'acquiro' });
  });

  it('reports a hosted page waiting for the shopper as 1002, as docs/api/query.md and checkout.md say', async () => {
    const order = `QHW-${Date.now()}`;
    expect((await shop.post('/v1/checkout', { ...shop.ids, order_no: order, currency: 'USD', amount: '25.00' })).status).toBe(200);
    const [entry] = (await query(shop, { order_no: order })).body.orders_list;
    expect(entry).toMatchObject({ query_result: '1', payment_status: '1002' });
    const doc = (page: string) => readFileSync(new URL(`../../docs/api/${page}.md`, import.meta.url), 'utf8');
    expect(doc('query').match(/^\| `1002` \| (.*) \|$/m)?.[1]).toContain('hosted payment page');
    // 1004 is the payment's result while it waits: no query answer carries it (a query record has no result_info).
    expect(doc('checkout')).not.toMatch(/`1004` while it waits for the shopper \(query answers\)/);
    expect(doc('checkout')).toMatch(/`payment_status` `1002`/);
  });

  it('takes a JSON body too', async () => {
    const answer = await shop.post('/v1/retrievalTrans', { ...shop.ids, order_no: captured.order_no });
    expect(answer.body.orders_list[0].query_result).toBe('1');
  });
});

describe('selecting by time window', () => {
  it('pages 100 at a time, oldest first, with the window inclusive to the second', async () => {
    const merchant = await gw.merchant();
    await registerIp(gw, merchant, '127.0.0.1');
    const seed = await pay(merchant);
    // 104 more payments of this account, one a minute from 2026-01-01T00:00:00Z (clones of a real one).
    await gw.database.query(
      `INSERT INTO payments (id, order_no, created_at, account_id, merchant_id, kind, payment_method, status, amount, currency,
         captured_amount, request_fingerprint, request, connector, connector_reference, risk_action, risk_reasons)
       SELECT 'T' || lpad(n::text, 26, '0'), 'ORD-W-' || n, timestamptz '2026-01-01 00:00:00+00' + (n - 1) * interval '1 minute',
         account_id, merchant_id, kind, payment_method, status, amount, currency, captured_amount, request_fingerprint, request, connector,
         connector_reference, risk_action, risk_reasons
       FROM payments, generate_series(1, 104) AS n WHERE id = $1`,
      [seed.transaction_id],
    );
    const window = { start_time: '20260101000000', end_time: '20260101014300' };
    const first = await query(merchant, window);
    const second = await query(merchant, { ...window, page: '2' });
    const third = await query(merchant, { ...window, page: '3' });
    expect([first.status, first.body.page, first.body.total, first.body.orders_list.length]).toEqual([200, '1', '104', 100]);
    expect(first.body.orders_list[0]).toMatchObject({ order_no: 'ORD-W-1', transaction_date: '20260101000000' });
    expect(second.body.orders_list.map((e: Record<string, string>) => e.order_no)).toEqual(['ORD-W-101', 'ORD-W-102', 'ORD-W-103', 'ORD-W-104']);
    expect(second.body.orders_list[3].transaction_date).toBe('20260101014300');
    expect(third.body.orders_list).toEqual([]);
    const narrow = await query(merchant, { start_time: '20260101000100', end_time: '20260101000200' });
    expect(narrow.body.orders_list.map((e: Record<string, string>) => e.order_no)).toEqual(['ORD-W-2', 'ORD-W-3']);
    // The stranger's window holds none of them.
    expect((await query(stranger, window)).body).toMatchObject({ total: '0', orders_list: [] });
  });
});

describe('refusing the selection as a whole (400)', () => {
  it.each([
    [{}, '4001:one of order_no, transaction_id, or start_time and end_time is required'],
    [{ order_no: 'a', transaction_id: 'b' }, '4002:transaction_id is invalid: expected only one of order_no, transaction_id, or start_time and end_time'],
    [{ order_no: 'a', start_time: '20260101000000', end_time: '20260101000000' }, '4002:start_time is invalid: expected only one of order_no, transaction_id, or start_time and end_time'],
    [{ order_no: Array.from({ length: 101 }, (_, i) => `O${i}`).join(',') }, '4010:order_no holds 101 values: at most 100 per request'],
    [{ order_no: 'a,,b' }, '4002:order_no is invalid: expected a comma-separated list of values without spaces, each 1 to 64 characters'],
    [{ start_time: '20260101000000' }, '4001:end_time is required with start_time'],
    [{ start_time: '20260230000000', end_time: '20260301000000' }, '4002:start_time is invalid: expected a real UTC time YYYYMMDDhhmmss'],
    [{ start_time: '2026-01-01', end_time: '20260301000000' }, '4002:start_time is invalid: expected a UTC time YYYYMMDDhhmmss'],
    [{ start_time: '20260102000000', end_time: '20260101000000' }, '4002:end_time is invalid: expected a time not before start_time'],
    [{ start_time: '20260101000000', end_time: '20260102000000', page: '0' }, '4002:page is invalid: expected a page number from 1 to 100000'],
  ])('%j', async (selection, message) => {
    const answer = await query(shop, selection);
    expect([answer.status, answer.body.return_status, answer.body.return_message]).toEqual([400, '0', message]);
  });

  it('takes exactly 100 keys', async () => {
    const answer = await query(shop, { transaction_id: Array.from({ length: 100 }, (_, i) => `T${i}`).join(',') });
    expect([answer.status, answer.body.orders_list.length]).toEqual([200, 100]);
  });
});
