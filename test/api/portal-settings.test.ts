// Settings over HTTP: key rotation (re-authentication; the new secret shown once and working at
// once), query IPs, storefront domains, the notification URL check; roles refused; another
// merchant's accounts not found; a disabled account's settings refused as its API requests are (4410).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { networkTransport } from '../../src/app/notifications/transport.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { verify } from '../../src/domain/signature.ts';
import type { SignedClient } from '../support/client.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { pay } from '../support/lifecycle.ts';
import { createMember, nextCode, signIn, type PortalClient, type TestMember } from '../support/portal.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

let gw: TestGateway;
let wall: FakeClock;
let shop: SignedClient;
let other: SignedClient;
let admin: TestMember;
let staff: PortalClient;
let viewer: PortalClient;
let operator: PortalClient;
let receiver: Receiver;
/** The account's current secret, after the rotations below. */
let latestSecret: string;

beforeAll(async () => {
  wall = new FakeClock(new Date());
  gw = await startTestGateway({ wallClock: wall });
  shop = await gw.merchant();
  other = await gw.merchant();
  receiver = await startReceiver();
  admin = await createMember(gw, shop.ids.merchant_id, 'admin');
  staff = await signIn(gw, admin, { clock: wall });
  viewer = await signIn(gw, await createMember(gw, shop.ids.merchant_id, 'viewer'), { clock: wall });
  operator = await signIn(gw, await createMember(gw, shop.ids.merchant_id, 'operator'), { clock: wall });
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await gw?.close();
});

const account = () => `/portal/settings/accounts/${shop.ids.account_id}`;
const secretOf = (body: string) => /id="new-secret">([^<]+)</.exec(body)?.[1];

describe('portal key rotation', () => {
  it('shows the new secret once; it signs at once and the old key still works', async () => {
    await staff.get('/portal/settings');
    let answer = await staff.post(`${account()}/rotate-key`);
    // Right after signing in the confirmation may still be fresh; if not, the form asks for it.
    if (answer.body.includes('Confirm it is you')) answer = await staff.post(`${account()}/rotate-key`, { _reauth_password: admin.password, _reauth_code: nextCode(admin, wall) });
    expect(answer.status, answer.body.slice(-600)).toBe(200);
    const secret = secretOf(answer.body)!;
    latestSecret = secret;
    expect(secret).toMatch(/^sk_/);
    expect(answer.headers['cache-control']).toBe('no-store');
    const order = { merchant_id: shop.ids.merchant_id, account_id: shop.ids.account_id };
    expect((await shop.post('/v1/authorise', { ...order, order_no: `K-${Date.now()}`, currency: 'USD', amount: '1.00', card: '4111111111111111', expiration_month: '12', expiration_year: '2030', security_code: '123' }, { secret })).status).toBe(200);
    expect((await pay(shop)).transaction_id).toBeTruthy();
    expect((await staff.get('/portal/settings')).body).not.toContain(secret);
    const audit = await gw.database.query<{ detail: unknown; outcome: string }>("SELECT detail, outcome FROM portal_audit_log WHERE action = 'settings.rotate-key'");
    expect(audit.at(-1)!.outcome).toBe('ok');
    expect(JSON.stringify(audit)).not.toContain(secret);
  });

  it('asks for the password and code again once the sign-in is no longer fresh', async () => {
    wall.advance(6 * 60_000);
    await staff.get('/portal/settings');
    const asked = await staff.post(`${account()}/rotate-key`);
    expect(asked.body).toContain('Confirm it is you');
    expect(secretOf(asked.body)).toBeUndefined();
    const confirmed = await staff.post(`${account()}/rotate-key`, { _reauth_password: admin.password, _reauth_code: nextCode(admin, wall) });
    expect(confirmed.status).toBe(200);
    expect(secretOf(confirmed.body)).toMatch(/^sk_/);
    latestSecret = secretOf(confirmed.body)!;
  });

  it('is refused to a viewer and to an operator, and another merchant’s account is not found', async () => {
    expect((await viewer.post(`${account()}/rotate-key`)).status).toBe(403);
    expect((await operator.get('/portal/settings')).status).toBe(403);
    expect((await operator.post(`${account()}/rotate-key`)).status).toBe(403);
    const [before] = await gw.database.query<{ n: number }>('SELECT count(*)::int AS n FROM account_keys WHERE account_id = $1', [other.ids.account_id]);
    await staff.get('/portal/settings');
    const theirs = await staff.post(`/portal/settings/accounts/${other.ids.account_id}/rotate-key`);
    expect(theirs.status).toBe(404);
    const [after] = await gw.database.query<{ n: number }>('SELECT count(*)::int AS n FROM account_keys WHERE account_id = $1', [other.ids.account_id]);
    expect(after).toEqual(before);
  });
});

describe('portal query IPs and storefronts', () => {
  it('adds an address: the query is admitted from it; removing it refuses again', async () => {
    const txn = await pay(shop);
    const query = () => shop.post('/v1/retrievalTrans', { ...shop.ids, transaction_id: txn.transaction_id }, { remoteAddress: '203.0.113.7' });
    expect((await query()).status).toBe(403);
    await staff.get('/portal/settings');
    const added = await staff.post(`${account()}/query-ips/add`, { cidr: '203.0.113.0/24' });
    expect(added.status).toBe(303);
    expect((await staff.follow(added)).body).toContain('203.0.113.0/24');
    expect((await query()).body.orders_list[0]).toMatchObject({ transaction_id: txn.transaction_id });
    await staff.post(`${account()}/query-ips/remove`, { cidr: '203.0.113.0/24' });
    expect((await query()).status).toBe(403);
  });

  it('adds and removes a storefront domain', async () => {
    await staff.get('/portal/settings');
    expect((await staff.post(`${account()}/storefronts/add`, { domain: 'https://shop.example' })).status).toBe(303);
    expect((await staff.get('/portal/settings')).body).toContain('https://shop.example');
    await staff.post(`${account()}/storefronts/remove`, { domain: 'https://shop.example' });
    expect((await staff.get('/portal/settings')).body).not.toContain('<span class="mono">https://shop.example</span>');
  });

  it('adds a storefront with a Chinese domain name (IDN) as browsers send it, in its ASCII form, and removes it by either', async () => {
    await staff.get('/portal/settings');
    const added = await staff.post(`${account()}/storefronts/add`, { domain: 'https://例子.广告' });
    expect(added.status, added.body).toBe(303);
    expect((await staff.follow(added)).body).toContain('<span class="mono">https://xn--fsqu00a.xn--4rr70v</span>');
    const handOff = await shop.post('/v1/checkout', { ...shop.ids, order_no: `IDN-${Date.now()}`, currency: 'USD', amount: '5.00', return_url: 'https://shop.example/return' });
    expect(String(handOff.headers['content-security-policy'])).toContain('https://xn--fsqu00a.xn--4rr70v');
    await staff.get('/portal/settings');
    expect((await staff.post(`${account()}/storefronts/remove`, { domain: 'https://例子.广告' })).status).toBe(303);
    expect((await staff.get('/portal/settings')).body).not.toContain('xn--fsqu00a');
  });

  it.each([
    ['query-ips/add', { cidr: '300.1.2.3' }, '4002:cidr is invalid'],
    ['storefronts/add', { domain: 'javascript:alert(1)' }, '4002:domain is invalid'],
    ['notify-url/check', { notify_url: 'ftp://shop.example/notify' }, '4002:notify_url is invalid'],
    ['query-ips/add', {}, 'cidr is missing'],
  ] as const)('refuses %s %j with a 400 naming the field', async (action, fields, text) => {
    await staff.get('/portal/settings');
    const answer = await staff.post(`${account()}/${action}`, fields);
    expect(answer.status).toBe(400);
    expect(answer.body).toContain(text);
  });

  it('another merchant’s account: every change is not found, nothing changes', async () => {
    await staff.get('/portal/settings');
    for (const [action, fields] of [
      ['query-ips/add', { cidr: '198.51.100.1' }],
      ['query-ips/remove', { cidr: '198.51.100.1' }],
      ['storefronts/add', { domain: 'evil.example' }],
      ['storefronts/remove', { domain: 'evil.example' }],
      ['notify-url/check', { notify_url: receiver.url }],
    ] as const) {
      expect((await staff.post(`/portal/settings/accounts/${other.ids.account_id}/${action}`, fields)).status, action).toBe(404);
    }
    const [ips] = await gw.database.query<{ n: number }>('SELECT count(*)::int AS n FROM account_ips WHERE account_id = $1', [other.ids.account_id]);
    expect(ips!.n).toBe(0);
    expect(receiver.received).toHaveLength(0);
  });

  it('a viewer is refused each change', async () => {
    for (const action of ['query-ips/add', 'storefronts/add', 'notify-url/check']) {
      expect((await viewer.post(`${account()}/${action}`, { cidr: '198.51.100.1', domain: 'a.example', notify_url: receiver.url })).status).toBe(403);
    }
  });
});

describe('portal notification URL check', () => {
  it('posts one signed url_check and shows the answer', async () => {
    await staff.get('/portal/settings');
    receiver.reply(() => 200);
    const answer = await staff.post(`${account()}/notify-url/check`, { notify_url: receiver.url });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('The receiver answered HTTP 200');
    const received = receiver.received.at(-1)!;
    expect(received.body).toMatchObject({ notify_type: 'url_check', merchant_id: shop.ids.merchant_id, account_id: shop.ids.account_id });
    const [key] = await gw.database.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE type = $1', ['url_check']);
    expect(key!.n).toBe(0);
    expect(verify(received.body, latestSecret)).toBe(true);
  });

  it('refuses a name that resolves to an internal address without showing the address', async () => {
    // The check resolves the name from inside the operator's network: the member was shown
    // "db.internal.example resolves to 10.1.2.3 is a private address", an oracle of the internal DNS.
    // The resolver is a spy (no internal name resolves on the test machine); the page is the portal's.
    const resolve = vi.spyOn(networkTransport, 'resolve').mockResolvedValue([
      { address: '93.184.216.34', family: 4 },
      { address: '64:ff9b::a01:203', family: 6 },
    ]);
    try {
      await staff.get('/portal/settings');
      const received = receiver.received.length;
      const answer = await staff.post(`${account()}/notify-url/check`, { notify_url: 'https://db.internal.example/notify' });
      expect(resolve).toHaveBeenCalledWith('db.internal.example');
      expect(answer.body).toContain('Not reached: db.internal.example resolves to an address notifications may not go to (a NAT64 address)');
      for (const address of ['64:ff9b::a01:203', '10.1.2.3', '93.184.216.34']) expect(answer.body).not.toContain(address);
      expect(receiver.received).toHaveLength(received);
    } finally {
      resolve.mockRestore();
    }
  });

  it('says when the receiver does not acknowledge', async () => {
    receiver.reply(() => 500);
    await staff.get('/portal/settings');
    const answer = await staff.post(`${account()}/notify-url/check`, { notify_url: receiver.url });
    expect(answer.body).toContain('HTTP 500');
  });
});

describe('portal settings of a disabled account', () => {
  it('refuses every change with 403 4410, audited, and changes nothing', async () => {
    const frozen = await gw.merchant();
    const frozenAdmin = await createMember(gw, frozen.ids.merchant_id, 'admin');
    const client = await signIn(gw, frozenAdmin, { clock: wall });
    const path = `/portal/settings/accounts/${frozen.ids.account_id}`;
    await client.get('/portal/settings');
    expect((await client.post(`${path}/query-ips/add`, { cidr: '93.184.216.34' })).status).toBe(303);
    expect((await client.post(`${path}/storefronts/add`, { domain: 'https://frozen.example' })).status).toBe(303);
    const disabled = await runCommand(['merchants', 'disable', '--merchant-id', frozen.ids.merchant_id, '--account-id', frozen.ids.account_id], gw.gateway.deps);
    expect(disabled.exitCode).toBe(0);
    const before = await gw.database.query('SELECT id, expires_at FROM account_keys WHERE account_id = $1 ORDER BY id', [frozen.ids.account_id]);
    const heard = receiver.received.length;

    const changes = [
      ['rotate-key', { _reauth_password: frozenAdmin.password, _reauth_code: nextCode(frozenAdmin, wall) }],
      ['query-ips/add', { cidr: '198.51.100.8' }],
      ['query-ips/remove', { cidr: '93.184.216.34' }],
      ['storefronts/add', { domain: 'https://other.example' }],
      ['storefronts/remove', { domain: 'https://frozen.example' }],
      ['notify-url/check', { notify_url: receiver.url }],
    ] as const;
    for (const [action, fields] of changes) {
      await client.get('/portal/settings');
      const answer = await client.post(`${path}/${action}`, fields);
      expect(answer.status, action).toBe(403);
      expect(answer.body, action).toContain('4410:Merchant or account disabled');
      expect(answer.body, action).not.toContain('new-secret');
    }
    expect(await gw.database.query('SELECT id, expires_at FROM account_keys WHERE account_id = $1 ORDER BY id', [frozen.ids.account_id])).toEqual(before);
    const [row] = await gw.database.query<{ domains: string[] }>('SELECT storefront_domains AS domains FROM accounts WHERE id = $1', [frozen.ids.account_id]);
    expect(row!.domains).toEqual(['https://frozen.example']);
    const ips = await gw.database.query<{ cidr: string }>('SELECT cidr::text AS cidr FROM account_ips WHERE account_id = $1', [frozen.ids.account_id]);
    expect(ips.map((ip) => ip.cidr)).toEqual(['93.184.216.34/32']);
    expect(receiver.received).toHaveLength(heard);
    const audit = await gw.database.query<{ action: string; outcome: string; detail: unknown }>(
      "SELECT action, outcome, detail FROM portal_audit_log WHERE merchant_id = $1 AND action LIKE 'settings.%' AND outcome = 'refused' ORDER BY seq",
      [frozen.ids.merchant_id],
    );
    expect(audit).toEqual(
      ['settings.rotate-key', 'settings.query-ips.add', 'settings.query-ips.remove', 'settings.storefronts.add', 'settings.storefronts.remove', 'settings.notify-url.check'].map((action) => ({
        action,
        outcome: 'refused',
        detail: { reason: '4410:Merchant or account disabled' },
      })),
    );
  });
});
