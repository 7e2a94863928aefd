// The portal's defences over HTTP: CSRF tokens on every state change, posts from other sites,
// the pages' security headers, XSS probes shown as text, one merchant's staff refused another
// merchant's ids exactly as unknown ones, and the budget of failed passwords per client address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { createMember, nextCode, PortalClient, sendPassword, signIn, staleReauth, type TestMember } from '../support/portal.ts';

let gw: TestGateway;
let merchantId: string;
let otherMerchant: string;
const PROBE = '<script>alert(1)</script>';
beforeAll(async () => {
  // A budget of 3 failed sign-ins per address (10 by default): fewer passwords to hash.
  gw = await startTestGateway({ env: { ACQUIRO_PORTAL_FAILURE_LIMIT: '3' } });
  merchantId = (await gw.merchant({ name: `Shop ${PROBE}` })).credentials.merchant_id;
  otherMerchant = (await gw.merchant()).credentials.merchant_id;
});
afterAll(() => gw?.close());

const passwordStep = async (member: TestMember, password: string, remoteAddress?: string) => (await sendPassword(gw, member, { password, ...(remoteAddress ? { remoteAddress } : {}) })).answer;

const sessionsOf = async (member: TestMember) =>
  (await gw.database.query<{ n: number }>('SELECT count(*)::int AS n FROM portal_sessions WHERE user_id = $1', [member.userId]))[0]!.n;

describe('portal security', () => {
  it('refuses a state change without the CSRF token, or with another session’s, and changes nothing', async () => {
    const member = await createMember(gw, merchantId, 'viewer');
    const client = await signIn(gw, member);
    const other = await signIn(gw, await createMember(gw, merchantId, 'viewer'));
    await other.get('/portal/account');
    for (const token of ['', 'forged-token', other.csrf!]) {
      const answer = await client.post('/portal/account/sign-out-everywhere', { _csrf: token });
      expect(answer.status).toBe(403);
    }
    expect(await sessionsOf(member)).toBe(1);
    expect((await client.get('/portal/transactions')).status).toBe(200);
    // The sign-in form is protected too (login CSRF).
    const stranger = new PortalClient(gw.gateway.server.app);
    expect((await stranger.post('/portal/sign-in', { email: member.email, password: member.password })).status).toBe(403);
  });

  it('refuses a post sent from another site even with a valid token', async () => {
    const member = await createMember(gw, merchantId, 'viewer');
    const client = await signIn(gw, member);
    await client.get('/portal/account');
    expect((await client.post('/portal/account/sign-out-everywhere', {}, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await client.post('/portal/account/sign-out-everywhere', {}, { origin: 'https://evil.example' })).status).toBe(403);
    expect(await sessionsOf(member)).toBe(1);
  });

  it('serves every page with a strict CSP, no framing, no referrer and no caching', async () => {
    const client = await signIn(gw, await createMember(gw, merchantId, 'owner'));
    const signedOut = await new PortalClient(gw.gateway.server.app).get('/portal/sign-in');
    expect(signedOut.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    for (const path of ['/portal/transactions', '/portal/members', '/portal/audit', '/portal/account', '/portal/nowhere']) {
      const page = await client.get(path);
      const csp = String(page.headers['content-security-policy']);
      expect(csp, path).toContain("default-src 'none'");
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).not.toContain('unsafe-inline');
      expect(page.headers['x-frame-options'], path).toBe('DENY');
      expect(page.headers['referrer-policy'], path).toBe('no-referrer');
      expect(page.headers['cache-control'], path).toBe('no-store');
    }
  });

  it('shows XSS probes in the merchant name, a member e-mail and the filters as text', async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    await createMember(gw, merchantId, 'viewer', { email: `"><img/src=x/onerror=alert(1)>@shop.example` });
    const client = await signIn(gw, owner);
    const pages = [
      await client.get('/portal/transactions'),
      await client.get('/portal/members'),
      await client.get(`/portal/audit?email=${encodeURIComponent(PROBE)}&action=${encodeURIComponent('"><svg onload=alert(1)>')}`),
    ];
    for (const page of pages) {
      expect(page.body).not.toContain('<script>alert');
      expect(page.body).not.toContain('<img/src=x');
      expect(page.body).not.toContain('<svg onload');
    }
    expect(pages[0]!.body).toContain('Shop &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(pages[1]!.body).toContain('&quot;&gt;&lt;img/src=x/onerror=alert(1)&gt;@shop.example');
  });

  it("answers another merchant's member ids exactly like unknown ones, and changes nothing", async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    const theirs = await createMember(gw, otherMerchant, 'operator');
    const client = await signIn(gw, owner);
    const theirSession = await signIn(gw, theirs);
    await staleReauth(gw, owner);
    // Re-authenticate once (fresh for 5 minutes) through the confirmation the action asks for.
    await client.get('/portal/members');
    const asked = await client.post('/portal/members/PU00000000000000000000000000/disable');
    expect(asked.body).toContain('Confirm it is you');
    const confirmed = await client.post('/portal/members/PU00000000000000000000000000/disable', { _reauth_password: owner.password, _reauth_code: nextCode(owner) });
    expect(confirmed.status).toBe(404);
    const answers = [];
    for (const id of [theirs.userId, 'PU00000000000000000000000000']) {
      await client.get('/portal/members');
      answers.push(await client.post(`/portal/members/${id}/disable`));
      await client.get('/portal/members');
      answers.push(await client.post(`/portal/members/${id}/role`, { role: 'viewer' }));
    }
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404, 404]);
    expect(answers[0]!.body.replace(/value="[^"]*"/g, '')).toBe(answers[2]!.body.replace(/value="[^"]*"/g, ''));
    const [row] = await gw.database.query<{ status: string; role: string }>('SELECT status, role FROM portal_users WHERE id = $1', [theirs.userId]);
    expect(row).toEqual({ status: 'active', role: 'operator' });
    expect((await theirSession.get('/portal/transactions')).status).toBe(200);
    expect((await client.get('/portal/members')).body).not.toContain(theirs.email);
  });

  it('answers a URL with text the database cannot take, a repeated filter or a day at the end of time with a page, never a 500', async () => {
    const client = await signIn(gw, await createMember(gw, merchantId, 'owner'));
    const refused = [
      '/portal/transactions/T%00',
      '/portal/transactions?email=a%00@shop.example',
      '/portal/audit?email=%00',
      '/portal/audit?action=sign-in%00',
      '/portal/audit/export?action=%00',
      '/portal/subscriptions/A%00/R1',
      '/portal/payouts/A%00/PO1',
    ];
    for (const path of refused) {
      const page = await client.get(path);
      expect(page.status, path).toBe(400);
      expect(page.body, path).toContain('The request could not be read.');
    }
    const answered = [
      '/portal/audit?email=a@shop.example&email=b@shop.example',
      '/portal/audit?action=sign-in&action=sign-out',
      '/portal/audit/export?email=a@shop.example&email=b@shop.example',
      '/portal/audit?to=9999-12-31',
      '/portal/transactions?to=9999-12-31',
      '/portal/transactions/export.csv?from=2026-01-01&to=9999-12-31',
      '/portal/reports?from=9999-12-31&to=9999-12-31',
      '/portal/reports/settlement.csv?from=9999-12-01&to=9999-12-31',
    ];
    for (const path of answered) expect((await client.get(path)).status, path).toBe(200);
    expect(gw.logs.text).not.toContain('portal page failed');
  });

  it('refuses an address past its budget of failed passwords, across members and even the right password; another address is unaffected', async () => {
    const sprayer = '203.0.113.50';
    // One common password tried on many members: each member fails once, far from its own lockout.
    const members = await Promise.all(Array.from({ length: 4 }, () => createMember(gw, merchantId, 'viewer')));
    for (const member of members.slice(0, 3)) expect((await passwordStep(member, 'Summer2026!!', sprayer)).status).toBe(401);
    const spent = await passwordStep(members[3]!, 'Summer2026!!', sprayer);
    const right = await passwordStep(members[0]!, members[0]!.password, sprayer);
    for (const answer of [spent, right]) {
      expect(answer.status).toBe(429);
      // About 20 s: a budget of 3 a minute gives one failure back every 20 s.
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(15);
      expect(Number(answer.headers['retry-after'])).toBeLessThanOrEqual(20);
      expect(answer.body).toContain('Too many failed sign-ins from your network');
      expect(String(answer.headers['set-cookie'] ?? '')).not.toContain('acquiro_portal=');
    }
    // The same refusal whoever is named and whatever the password: it tells nothing of either.
    expect(right.body.replace(/value="[^"]*"/g, '')).toBe(spent.body.replace(/value="[^"]*"/g, ''));
    expect((await passwordStep(members[0]!, members[0]!.password)).location).toBe('/portal/transactions');
  });

  it('counts a burst of concurrent sign-ins against the budget before any password is checked: no more passwords are tried than it holds', async () => {
    const sprayer = '203.0.113.51';
    const member = await createMember(gw, merchantId, 'viewer');
    // Ten sign-ins sent at once from one address whose budget is 3: nine guesses on addresses, and the right password last.
    const attempts = [...Array.from({ length: 9 }, (_, i) => ({ email: `guess${i}-${Math.random().toString(36).slice(2, 8)}@shop.example`, password: 'Summer2026!!' })), { email: member.email, password: member.password }];
    const clients = await Promise.all(
      attempts.map(async () => {
        const client = new PortalClient(gw.gateway.server.app, { remoteAddress: sprayer });
        await client.get('/portal/sign-in');
        return client;
      }),
    );
    const answers = await Promise.all(clients.map((client, i) => client.post('/portal/sign-in', attempts[i]!)));
    // Each password the gateway checked is a sign-in row of the audit log (refused or ok), from that address.
    const checked = (await gw.database.query<{ n: number }>("SELECT count(*)::int AS n FROM portal_audit_log WHERE ip = $1 AND action LIKE 'sign-in%'", [sprayer]))[0]!.n;
    expect(checked).toBeLessThanOrEqual(3);
    expect(answers.filter((answer) => answer.status !== 429).length).toBeLessThanOrEqual(3);
    for (const answer of answers.filter((each) => each.status === 429)) {
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(answer.body).toContain('Too many failed sign-ins from your network');
    }
  });
});
