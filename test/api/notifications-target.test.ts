// Where notifications may go (docs/notifications.md): in live mode a notify_url that is not https, carries
// credentials or resolves to an internal address is never contacted, and refused at submission
// when the URL itself shows it. The resolver and the socket are spies here: no traffic is ever
// sent to a private range.
import { randomBytes } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deliverDueNotifications, type DeliveryDeps } from '../../src/app/notifications/deliver.ts';
import { networkTransport, type HttpAnswer, type PinnedTarget, type Transport } from '../../src/app/notifications/transport.ts';
import type { SignedClient } from '../support/client.ts';
import { cardPayment, orderNo } from '../support/fixtures.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { payoutBody } from '../support/payouts.ts';
import { startReceiver } from '../support/receiver.ts';

let gw: TestGateway;
let shop: SignedClient;
let live: DeliveryDeps;
const clock = new FakeClock();

beforeAll(async () => {
  gw = await startTestGateway({ clock });
  shop = await gw.merchant();
  live = { ...gw.gateway.deps, config: { ...gw.config, mode: 'live' } };
});
afterAll(() => gw?.close());

const rows = (sql: string, params: unknown[] = []) => gw.database.query<Record<string, any>>(sql, params);
let hosts = 0;
const uniqueHost = () => `hooks-${++hosts}.merchant.example`;

/** An event announced to `notifyUrl` (accepted in sandbox, then delivered by a live-mode worker). */
async function eventFor(notifyUrl: string, client: SignedClient = shop): Promise<string> {
  const answer = await client.post('/v1/authorise', cardPayment(client.ids, { notify_url: notifyUrl }));
  expect(answer.status).toBe(200);
  const [event] = await rows('SELECT id FROM events WHERE payment_id = $1', [answer.body.transaction_id]);
  return event!.id;
}

/** A resolver answering from `dns` and a socket layer that must only be reached when allowed. */
function spies(dns: Record<string, readonly LookupAddress[]>) {
  const resolve = vi.fn(async (hostname: string) => dns[hostname] ?? []);
  const post = vi.fn(async (_target: PinnedTarget, _body: string): Promise<HttpAnswer> => ({ status: 200, excerpt: '' }));
  const transport: Transport = { resolve, post };
  const postedTo = (host: string) => post.mock.calls.filter(([target]) => target.url.hostname === host);
  return { resolve, post, transport, postedTo };
}

const attemptsOf = (id: string) => rows('SELECT * FROM notification_attempts WHERE event_id = $1 ORDER BY attempt', [id]);
const statusOf = async (id: string) => (await rows('SELECT delivery_status FROM events WHERE id = $1', [id]))[0]!.delivery_status;

describe('live mode, when sending', () => {
  it.each([
    ['private', '10.1.2.3', 4],
    ['private', '192.168.0.10', 4],
    ['private', '172.20.0.1', 4],
    ['loopback', '127.0.0.1', 4],
    ['link-local (cloud metadata)', '169.254.169.254', 4],
    ['carrier-grade NAT', '100.64.0.1', 4],
    ['unspecified', '0.0.0.0', 4],
    ['multicast', '224.0.0.1', 4],
    ['IPv6 loopback', '::1', 6],
    ['IPv6 unique local', 'fd00::1', 6],
    ['IPv6 link-local', 'fe80::1', 6],
    ['IPv4-mapped private', '::ffff:10.0.0.1', 6],
    ['NAT64 of a private address', '64:ff9b::a00:1', 6],
  ])('never connects to a name that resolves to a %s address (%s)', async (_kind, address, family) => {
    const host = uniqueHost();
    const id = await eventFor(`https://${host}/notify`);
    const net = spies({ [host]: [{ address, family }] });
    await deliverDueNotifications(live, { transport: net.transport });
    expect(net.resolve).toHaveBeenCalledWith(host);
    expect(net.postedTo(host)).toEqual([]);
    const [attempt] = await attemptsOf(id);
    expect(attempt).toMatchObject({ outcome: 'refused', http_status: null });
    expect(attempt!.error).toContain(`${host} resolves to`);
    // The name may be fixed: the event stays on its schedule.
    expect(await statusOf(id)).toBe('pending');
  });

  it('refuses a name with one internal address among public ones', async () => {
    const host = uniqueHost();
    const id = await eventFor(`https://${host}/notify`);
    const net = spies({ [host]: [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.8', family: 4 }] });
    await deliverDueNotifications(live, { transport: net.transport });
    expect(net.postedTo(host)).toEqual([]);
    expect((await attemptsOf(id))[0]).toMatchObject({ outcome: 'refused' });
  });

  it('connects to a public address, pinned to the addresses it checked', async () => {
    const host = uniqueHost();
    const id = await eventFor(`https://${host}/notify`);
    const addresses = [{ address: '93.184.216.34', family: 4 }, { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 }];
    const net = spies({ [host]: addresses });
    await deliverDueNotifications(live, { transport: net.transport });
    const [[target, body]] = net.postedTo(host) as [[PinnedTarget, string]];
    expect(target.addresses).toEqual(addresses);
    expect(JSON.parse(body).notify_id).toBe(id);
    expect(await statusOf(id)).toBe('delivered');
  });

  it('checks the name again at every attempt, so a name that turns internal is refused', async () => {
    const host = uniqueHost();
    const id = await eventFor(`https://${host}/notify`);
    const first = spies({ [host]: [{ address: '93.184.216.34', family: 4 }] });
    first.post.mockResolvedValue({ status: 500, excerpt: '' });
    await deliverDueNotifications(live, { transport: first.transport });
    expect(first.postedTo(host)).toHaveLength(1);

    clock.advance(60_000);
    const rebound = spies({ [host]: [{ address: '127.0.0.1', family: 4 }] });
    // The earlier tests' refused events (one account's) fall due with it: rounds until none is left,
    // as the worker runs them (one round leases at most 4 events of an account).
    while ((await deliverDueNotifications(live, { transport: rebound.transport })) > 0);
    expect(rebound.resolve).toHaveBeenCalledWith(host);
    expect(rebound.postedTo(host)).toEqual([]);
    expect((await attemptsOf(id)).map((a) => a.outcome)).toEqual(['failed', 'refused']);
  });

  it('gives up on a name that does not resolve within the attempt’s deadline, and keeps the event on its schedule', async () => {
    // A resolver that never answers (a merchant's DNS down): the attempt must end within its
    // deadline, or it outlives the lease and another worker sends the same attempt meanwhile.
    const host = uniqueHost();
    const id = await eventFor(`https://${host}/notify`);
    const net = spies({});
    let answerAtLast: (addresses: LookupAddress[]) => void = () => {};
    net.resolve.mockImplementation(() => new Promise((resolve) => (answerAtLast = resolve)));
    const round = deliverDueNotifications(live, { transport: net.transport, timeoutMs: 200 });
    const stuck = new Promise<string>((resolve) => setTimeout(() => resolve('still resolving after 5 s'), 5_000).unref());
    expect(await Promise.race([round.then(() => 'ended'), stuck])).toBe('ended');
    expect(net.postedTo(host)).toEqual([]);
    expect(await attemptsOf(id)).toMatchObject([{ outcome: 'failed', http_status: null, error: `cannot resolve ${host}: no answer within 200 ms` }]);
    expect(await statusOf(id)).toBe('pending');
    // The resolver gives up at last (getaddrinfo does), freeing the process's lookup it held.
    answerAtLast([]);
  });

  it('lets one account whose DNS hangs hold one lookup, never the resolver threads nor another account’s delivery', async () => {
    // getaddrinfo runs on libuv's 4 threads and cannot be cancelled: each attempt that gives up on
    // a hung name leaves its thread busy. The process resolves at most 2 names at once, one per account.
    const [slow, other] = [await gw.merchant(), await gw.merchant()];
    const hungHost = uniqueHost();
    const okHost = uniqueHost();
    const hung = await Promise.all([1, 2, 3, 4].map(() => eventFor(`https://${hungHost}/notify`, slow)));
    const ok = await eventFor(`https://${okHost}/notify`, other);
    const net = spies({ [okHost]: [{ address: '93.184.216.34', family: 4 }] });
    const running = new Map<string, number>();
    const most = new Map<string, number>();
    const answerHung: Array<() => void> = [];
    net.resolve.mockImplementation(async (hostname: string) => {
      running.set(hostname, (running.get(hostname) ?? 0) + 1);
      running.set('*', (running.get('*') ?? 0) + 1);
      for (const key of [hostname, '*']) most.set(key, Math.max(most.get(key) ?? 0, running.get(key)!));
      if (hostname === hungHost) await new Promise<void>((resolve) => answerHung.push(resolve));
      running.set(hostname, running.get(hostname)! - 1);
      running.set('*', running.get('*')! - 1);
      return hostname === okHost ? [{ address: '93.184.216.34', family: 4 }] : [];
    });
    try {
      await deliverDueNotifications(live, { transport: net.transport, timeoutMs: 500, roundMs: 5_000 });
      expect(most.get(hungHost)).toBe(1);
      expect(most.get('*')).toBeLessThanOrEqual(2);
      expect(net.postedTo(okHost)).toHaveLength(1);
      expect((await attemptsOf(ok))[0]).toMatchObject({ outcome: 'delivered', http_status: 200 });
      for (const id of hung) expect(await attemptsOf(id)).toMatchObject([{ outcome: 'failed', error: `cannot resolve ${hungHost}: no answer within 500 ms` }]);
    } finally {
      for (const answer of answerHung) answer();
    }
  });

  it.each([
    ['plain http', 'http://{host}/notify'],
    ['credentials in the URL', 'https://user:secret@{host}/notify'],
    ['an internal address literal', 'https://10.9.8.7/notify'],
    ['a link-local address literal', 'https://169.254.169.254/latest/meta-data'],
    ['an IPv6 loopback literal', 'https://[::1]/notify'],
    ['a local name', 'https://localhost/notify'],
  ])('fails an event whose URL has %s at once, without resolving or connecting', async (_kind, template) => {
    const host = uniqueHost();
    const url = template.replace('{host}', host);
    // Recorded by a path that did not check the URL on submission (the sending check still holds).
    const id = await eventFor(`https://${host}/notify`);
    await rows('UPDATE events SET notify_url = $2 WHERE id = $1', [id, url]);
    const net = spies({ [host]: [{ address: '93.184.216.34', family: 4 }] });
    await deliverDueNotifications(live, { transport: net.transport });
    expect(net.resolve).not.toHaveBeenCalledWith(host);
    expect(net.post.mock.calls.filter(([target]) => target.url.href === new URL(url).href)).toEqual([]);
    expect(await attemptsOf(id)).toMatchObject([{ outcome: 'refused' }]);
    expect(await statusOf(id)).toBe('failed');
  });
});

describe('sandbox mode, when sending', () => {
  it('reaches a loopback receiver through a name, connecting to the address it checked', async () => {
    const receiver = await startReceiver();
    try {
      const { port } = new URL(receiver.base);
      const id = await eventFor(`http://merchant.test:${port}/notify`);
      // merchant.test resolves nowhere: only the pinned, checked address can be connected to.
      const resolve = vi.fn(async (hostname: string) => (hostname === 'merchant.test' ? [{ address: '127.0.0.1', family: 4 }] : []));
      await deliverDueNotifications(gw.gateway.deps, { transport: { ...networkTransport, resolve } });
      expect(receiver.received.map((r) => [r.body.notify_id, r.headers.host])).toEqual([[id, `merchant.test:${port}`]]);
    } finally {
      await receiver.close();
    }
  });

  it('still refuses link-local and private targets', async () => {
    const host = uniqueHost();
    const id = await eventFor(`http://${host}/notify`);
    const net = spies({ [host]: [{ address: '169.254.169.254', family: 4 }] });
    await deliverDueNotifications(gw.gateway.deps, { transport: net.transport });
    expect(net.postedTo(host)).toEqual([]);
    expect((await attemptsOf(id))[0]).toMatchObject({ outcome: 'refused' });
  });
});

describe('at submission', () => {
  let liveGw: TestGateway;
  let liveShop: SignedClient;
  beforeAll(async () => {
    liveGw = await startTestGateway({
      env: { ACQUIRO_MODE: 'live', DATABASE_URL: 'postgresql://unused', ACQUIRO_VAULT_KEYS: `k1:${randomBytes(32).toString('base64')}` },
    });
    liveShop = await liveGw.merchant();
  });
  afterAll(() => liveGw?.close());

  it.each([
    ['http://hooks.merchant.example/notify', 'an https URL'],
    ['https://user:pw@hooks.merchant.example/notify', 'a URL without a user name or password'],
    ['https://10.0.0.1/notify', 'a public address (10.0.0.1 is a private address)'],
    ['https://[::ffff:127.0.0.1]/notify', 'a public address (::ffff:7f00:1 is a loopback address)'],
    ['https://169.254.169.254/notify', 'a public address (169.254.169.254 is a link-local address)'],
    ['https://localhost:8443/notify', 'a public host name (localhost is local)'],
    ['https://localhost../notify', 'a public host name (localhost is local)'],
    ['https://LocalHost.../notify', 'a public host name (localhost is local)'],
    ['https://api.localhost./notify', 'a public host name (api.localhost is local)'],
    ['https://hooks..merchant.example/notify', 'a host name without empty labels'],
    ['https://[::1]/notify', 'a public address (::1 is a loopback address)'],
    ['https://[::]/notify', 'a public address (:: is an unspecified address)'],
    ['https://[64:ff9b::7f00:1]/notify', 'a public address (64:ff9b::7f00:1 is a NAT64 address for 127.0.0.1, a loopback address)'],
    ['https://[2002:a00:1::1]/notify', 'a public address (2002:a00:1::1 is a 6to4 address for 10.0.0.1, a private address)'],
  ])('live mode refuses %s with 4002 naming notify_url, storing nothing', async (notifyUrl, expected) => {
    const answer = await liveShop.post('/v1/authorise', cardPayment(liveShop.ids, { notify_url: notifyUrl }));
    expect(answer.status).toBe(400);
    expect(answer.body.result_info).toBe(`4002:notify_url is invalid: expected ${expected}`);
    const stored = await liveGw.database.query('SELECT 1 FROM payments WHERE account_id = $1', [liveShop.ids.account_id]);
    expect(stored).toEqual([]);
  });

  it.each([
    ['/v1/checkout', (ids: SignedClient['ids']) => ({ ...ids, order_no: orderNo('CO'), currency: 'USD', amount: '25.00', return_url: 'https://shop.example/return' }), 'result_info'],
    ['/v1/payout', (ids: SignedClient['ids']) => payoutBody({ ids }), 'return_message'],
  ])('live mode refuses an internal notify_url on %s too, storing nothing', async (path, body, field) => {
    // (The APM payment checks it the same way; live mode offers no sandbox method to try it with.)
    for (const [notifyUrl, expected] of [
      ['https://10.0.0.1/notify', 'a public address (10.0.0.1 is a private address)'],
      ['https://[::1]/notify', 'a public address (::1 is a loopback address)'],
      ['https://169.254.169.254/notify', 'a public address (169.254.169.254 is a link-local address)'],
    ]) {
      const answer = await liveShop.post(path, { ...body(liveShop.ids), notify_url: notifyUrl });
      expect([path, answer.status, answer.body[field]]).toEqual([path, 400, `4002:notify_url is invalid: expected ${expected}`]);
    }
    const stored = await liveGw.database.query(
      'SELECT 1 FROM payments WHERE account_id = $1 UNION ALL SELECT 1 FROM payouts WHERE account_id = $1 UNION ALL SELECT 1 FROM events WHERE account_id = $1',
      [liveShop.ids.account_id],
    );
    expect(stored).toEqual([]);
  });

  it('live mode takes an https URL on a public name', async () => {
    const answer = await liveShop.post('/v1/authorise', cardPayment(liveShop.ids, { notify_url: 'https://hooks.merchant.example/notify' }));
    expect(answer.status).toBe(200);
  });

  it('live mode takes a URL whose scheme is written in capitals (schemes are case-insensitive), keeping it in lower case', async () => {
    const card = await liveShop.post('/v1/authorise', cardPayment(liveShop.ids, { notify_url: 'HTTPS://hooks.merchant.example/Caps', return_url: 'Https://shop.example/back' }));
    // Live mode has no processor here: the payment is taken (and declined by it), not refused.
    expect(card.status).toBe(200);
    const checkout = await liveShop.post('/v1/checkout', {
      ...liveShop.ids, order_no: orderNo('CO'), currency: 'USD', amount: '25.00',
      return_url: 'HTTPS://shop.example/return', cancel_url: 'HTTP://shop.example/cancel', notify_url: 'HTTPS://hooks.merchant.example/Caps',
    });
    expect(checkout.status).toBe(200);
    const payout = await liveShop.post('/v1/payout', { ...payoutBody({ ids: liveShop.ids }), notify_url: 'HTTPS://hooks.merchant.example/Caps' });
    expect(payout.status).toBe(200);
    const stored = await liveGw.database.query<{ notify_url: string }>(
      "SELECT notify_url FROM payments WHERE account_id = $1 AND notify_url ILIKE '%/Caps' UNION ALL SELECT notify_url FROM payouts WHERE account_id = $1",
      [liveShop.ids.account_id],
    );
    expect(stored.length).toBeGreaterThanOrEqual(3);
    // The scheme is lowered; the path, which is case-sensitive, is kept.
    expect(new Set(stored.map((row) => row.notify_url))).toEqual(new Set(['https://hooks.merchant.example/Caps']));
  });

  it('sandbox takes a loopback http receiver, and refuses link-local ones', async () => {
    const ok = await shop.post('/v1/authorise', cardPayment(shop.ids, { notify_url: 'http://127.0.0.1:9/notify' }));
    const refused = await shop.post('/v1/authorise', cardPayment(shop.ids, { notify_url: 'http://169.254.169.254/latest' }));
    expect(ok.status).toBe(200);
    expect([refused.status, refused.body.result_info]).toEqual([400, '4002:notify_url is invalid: expected a public address (169.254.169.254 is a link-local address)']);
  });

  it('sandbox takes the IPv6 loopback and a loopback name with trailing dots, as loopback', async () => {
    for (const notifyUrl of ['http://[::1]:9/notify', 'http://[::ffff:127.0.0.1]:9/notify', 'http://localhost.:9/notify']) {
      const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { notify_url: notifyUrl }));
      expect([notifyUrl, answer.status, answer.body.result_info]).toEqual([notifyUrl, 200, '0000:Success']);
    }
  });

  it('sandbox names an IPv6 address by what it means, not by its leading zeros', async () => {
    const cases = [
      ['http://[::]/notify', 'a public address (:: is an unspecified address)'],
      ['http://[::a00:1]/notify', 'a public address (::a00:1 is an IPv4-compatible address for 10.0.0.1, a private address)'],
      ['http://[64:ff9b::7f00:1]/notify', 'a public address (64:ff9b::7f00:1 is a NAT64 address for 127.0.0.1, a loopback address)'],
      ['http://[fe80::1]/notify', 'a public address (fe80::1 is a link-local address)'],
    ];
    for (const [notifyUrl, expected] of cases) {
      const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { notify_url: notifyUrl }));
      expect([answer.status, answer.body.result_info]).toEqual([400, `4002:notify_url is invalid: expected ${expected}`]);
    }
  });
});
