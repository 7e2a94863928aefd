// Signing in to the portal over HTTP: password, second factor and its enrolment, recovery codes,
// lockout, idle and absolute expiry (on the wall clock, injected), the one-time link, sign out
// everywhere, and a new session at every step.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { createMember, nextCode, PortalClient, sendPassword, signIn, totpSecretOn, type TestMember } from '../support/portal.ts';

let gw: TestGateway;
let merchantId: string;
const wall = new FakeClock('2026-11-22T09:00:00Z');
// The business clock stays put: the portal's timers must follow the wall clock alone.
const business = new FakeClock('2026-11-22T09:00:00Z');
beforeAll(async () => {
  gw = await startTestGateway({ wallClock: wall, clock: business });
  merchantId = (await gw.merchant()).credentials.merchant_id;
});
afterAll(() => gw?.close());

const MINUTE = 60_000;

const passwordStep = (member: Pick<TestMember, 'email' | 'password'>, password = member.password) => sendPassword(gw, member, { password });

/** An owner enrolled in TOTP, with the ten recovery codes enrolment showed. */
async function enrolledOwner() {
  const member = await createMember(gw, merchantId, 'owner');
  const { client } = await passwordStep(member);
  const page = await client.get('/portal/enrol');
  member.totpSecret = totpSecretOn(page.body);
  const shown = await client.post('/portal/enrol', { code: nextCode(member, wall) });
  const codes = [...shown.body.matchAll(/<li>([a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4})<\/li>/g)].map((match) => match[1]!);
  return { member, codes };
}

const sessionCookie = (answer: { headers: Record<string, unknown> }) =>
  ([] as string[]).concat((answer.headers['set-cookie'] as string[] | string | undefined) ?? []).find((line) => line.startsWith('acquiro_portal='));

describe('portal sign-in', () => {
  it('signs an operator in with the password alone, with a new HttpOnly SameSite=Strict Secure cookie', async () => {
    const member = await createMember(gw, merchantId, 'operator');
    const { client, answer } = await passwordStep(member);
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/portal/transactions');
    const cookie = sessionCookie(answer)!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/Path=\/portal/);
    const page = await client.get('/portal/transactions');
    expect(page.status).toBe(200);
    expect(page.body).toContain(member.email);
  });

  it('answers a wrong password and an unknown address alike, and sets no session', async () => {
    const member = await createMember(gw, merchantId, 'viewer');
    const wrong = await passwordStep(member, 'not the password at all');
    const unknown = await passwordStep({ ...member, email: 'nobody@shop.example' });
    expect(wrong.answer.status).toBe(401);
    expect(unknown.answer.status).toBe(401);
    expect(wrong.answer.body.replace(/value="[^"]*"/g, '')).toBe(unknown.answer.body.replace(/value="[^"]*"/g, ''));
    expect(sessionCookie(wrong.answer)).toBeUndefined();
    expect((await wrong.client.get('/portal/transactions')).location).toBe('/portal/sign-in');
  });

  it('ignores a session token the browser brought along, and mints a new one at each step', async () => {
    const member = await createMember(gw, merchantId, 'admin');
    const { client, answer } = await passwordStep(member);
    expect(answer.location).toBe('/portal/enrol');
    const pending = client.cookies.get('acquiro_portal')!;
    // A fixated token is nothing: the server made none for it.
    const planted = new PortalClient(gw.gateway.server.app);
    planted.cookies.set('acquiro_portal', 'planted-token-planted-token-planted-token');
    expect((await planted.get('/portal/transactions')).location).toBe('/portal/sign-in');
    const page = await client.get('/portal/enrol');
    member.totpSecret = totpSecretOn(page.body);
    const enrolled = await client.post('/portal/enrol', { code: nextCode(member, wall) });
    expect(enrolled.status).toBe(200);
    expect(enrolled.body).toContain('recovery-codes');
    const active = client.cookies.get('acquiro_portal')!;
    expect(active).not.toBe(pending);
    const stale = new PortalClient(gw.gateway.server.app);
    stale.cookies.set('acquiro_portal', pending);
    expect((await stale.get('/portal/transactions')).location).toBe('/portal/sign-in');
    expect((await client.get('/portal/transactions')).status).toBe(200);
  });

  it('ends the session a sign-in came with: the token it replaces opens nothing afterwards', async () => {
    const first = await createMember(gw, merchantId, 'operator');
    const second = await createMember(gw, merchantId, 'operator');
    const client = await signIn(gw, first);
    const replaced = client.cookies.get('acquiro_portal')!;
    // Another member signs in on the same browser (a shared counter), with the first one's session.
    const again = await client.post('/portal/sign-in', { email: second.email, password: second.password });
    expect([again.status, again.location]).toEqual([303, '/portal/transactions']);
    expect(client.cookies.get('acquiro_portal')).not.toBe(replaced);
    const stale = new PortalClient(gw.gateway.server.app);
    stale.cookies.set('acquiro_portal', replaced);
    expect((await stale.get('/portal/transactions')).location).toBe('/portal/sign-in');
    expect((await client.get('/portal/transactions')).status).toBe(200);
  });

  it('makes an owner enrol a second factor, then asks for a code at every sign-in; a code is good once', async () => {
    const member = await createMember(gw, merchantId, 'owner');
    await signIn(gw, member, { clock: wall });
    const { client, answer } = await passwordStep(member);
    expect(answer.location).toBe('/portal/second-factor');
    expect((await client.get('/portal/transactions')).location).toBe('/portal/second-factor');
    await client.get('/portal/second-factor');
    expect((await client.post('/portal/second-factor', { code: '000000' })).status).toBe(401);
    const code = nextCode(member, wall);
    const done = await client.post('/portal/second-factor', { code });
    expect(done.location).toBe('/portal/transactions');
    expect((await client.get('/portal/transactions')).status).toBe(200);
    // The same code again, in another sign-in: refused.
    const again = await passwordStep(member);
    await again.client.get('/portal/second-factor');
    expect((await again.client.post('/portal/second-factor', { code })).status).toBe(401);
  });

  it('takes each recovery code once instead of a TOTP code', async () => {
    const { member, codes } = await enrolledOwner();
    expect(codes).toHaveLength(10);
    const first = await passwordStep(member);
    await first.client.get('/portal/second-factor');
    expect((await first.client.post('/portal/second-factor', { code: codes[3]!.toUpperCase() })).location).toBe('/portal/transactions');
    const second = await passwordStep(member);
    await second.client.get('/portal/second-factor');
    expect((await second.client.post('/portal/second-factor', { code: codes[3]! })).status).toBe(401);
    const [stored] = await gw.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM portal_recovery_codes WHERE code_hash LIKE '%${codes[0]!.replace(/-/g, '')}%'`);
    expect(stored!.n).toBe(0);
  });

  it('lets a member who lost its authenticator sign in with a recovery code, then replace the authenticator with another', async () => {
    const { member, codes } = await enrolledOwner();
    // The phone is lost: the password and a recovery code sign in.
    wall.advance(MINUTE);
    const lost = await passwordStep(member);
    await lost.client.get('/portal/second-factor');
    expect((await lost.client.post('/portal/second-factor', { code: codes[0]! })).location).toBe('/portal/transactions');
    // My account: a new key, confirmed with the password and another recovery code, as the form says.
    const enrol = await lost.client.get('/portal/enrol');
    expect(enrol.body).toContain('or a recovery code');
    expect(enrol.body).not.toMatch(/name="_reauth_code"[^>]*maxlength="7"/);
    const oldSecret = member.totpSecret;
    member.totpSecret = totpSecretOn(enrol.body);
    member.lastStep = undefined;
    const replaced = await lost.client.post('/portal/enrol', { code: nextCode(member, wall), _reauth_password: member.password, _reauth_code: codes[1]! });
    expect(replaced.status, replaced.body).toBe(200);
    expect(replaced.body).toContain('recovery-codes');
    const [row] = await gw.database.query<{ n: number }>('SELECT count(*)::int AS n FROM portal_recovery_codes WHERE user_id = $1 AND used_at IS NULL', [member.userId]);
    expect(row!.n).toBe(10);
    expect(member.totpSecret).not.toBe(oldSecret);
    // The new authenticator's codes sign in; a used recovery code confirms nothing a second time.
    wall.advance(MINUTE);
    expect((await signIn(gw, member, { clock: wall })).csrf).toBeDefined();
    const again = await lost.client.get('/portal/enrol');
    member.lastStep = undefined;
    const reused = await lost.client.post('/portal/enrol', { code: nextCode({ ...member, totpSecret: totpSecretOn(again.body) }, wall), _reauth_password: member.password, _reauth_code: codes[1]! });
    expect(reused.status).toBe(400);
  });

  it('refuses an enrolment begun at sign-in once the member has a second factor: it would replace it without a code', async () => {
    const member = await createMember(gw, merchantId, 'owner');
    // Two sign-ins before any factor: the member's own, and one by someone who has the password.
    const own = await passwordStep(member);
    const other = await passwordStep(member);
    expect([own.answer.location, other.answer.location]).toEqual(['/portal/enrol', '/portal/enrol']);
    const otherPage = await other.client.get('/portal/enrol');
    const otherSecret = totpSecretOn(otherPage.body);
    const ownPage = await own.client.get('/portal/enrol');
    member.totpSecret = totpSecretOn(ownPage.body);
    expect((await own.client.post('/portal/enrol', { code: nextCode(member, wall) })).status).toBe(200);
    const [enrolled] = await gw.database.query<{ totp_secret: string }>('SELECT totp_secret FROM portal_users WHERE id = $1', [member.userId]);
    // The other session enrols its own key: refused, the member's factor and sessions as they were.
    const replaced = await other.client.post('/portal/enrol', { code: nextCode({ ...member, totpSecret: otherSecret }, wall) });
    expect([replaced.status, replaced.location]).toEqual([303, '/portal/sign-in']);
    expect((await other.client.get('/portal/transactions')).location).toMatch(/^\/portal\/sign-in/);
    const [after] = await gw.database.query<{ totp_secret: string }>('SELECT totp_secret FROM portal_users WHERE id = $1', [member.userId]);
    expect(after!.totp_secret).toBe(enrolled!.totp_secret);
    expect((await own.client.get('/portal/transactions')).status).toBe(200);
    wall.advance(60_000);
  });

  it('lets an operator turn on a second factor from My account, confirming with the password', async () => {
    const member = await createMember(gw, merchantId, 'operator');
    const client = await signIn(gw, member, { clock: wall });
    const page = await client.get('/portal/enrol');
    expect(page.body).toContain('Your password');
    member.totpSecret = totpSecretOn(page.body);
    const code = nextCode(member, wall);
    expect((await client.post('/portal/enrol', { code, _reauth_password: 'not the password' })).status).toBe(400);
    const [before] = await gw.database.query<{ totp_secret: string | null }>('SELECT totp_secret FROM portal_users WHERE id = $1', [member.userId]);
    expect(before!.totp_secret).toBeNull();
    const done = await client.post('/portal/enrol', { code: nextCode(member, wall), _reauth_password: member.password });
    expect(done.status).toBe(200);
    expect(done.body).toContain('recovery-codes');
    wall.advance(60_000);
    expect((await passwordStep(member)).answer.location).toBe('/portal/second-factor');
  });

  it('ends the member\'s other sessions when it sets or replaces its second factor from My account, as a new password does', async () => {
    const member = await createMember(gw, merchantId, 'operator');
    const here = await signIn(gw, member, { clock: wall });
    const elsewhere = await signIn(gw, member, { clock: wall });
    const enrol = async () => {
      // Replacing asks for a code from the current app too.
      const current: Record<string, string> = member.totpSecret ? { _reauth_code: nextCode(member, wall) } : {};
      const page = await here.get('/portal/enrol');
      member.totpSecret = totpSecretOn(page.body);
      expect((await here.post('/portal/enrol', { code: nextCode(member, wall), _reauth_password: member.password, ...current })).status).toBe(200);
    };
    await enrol();
    expect((await here.get('/portal/transactions')).status).toBe(200);
    expect((await elsewhere.get('/portal/transactions')).location).toMatch(/^\/portal\/sign-in/);

    // Replaced (a lost phone, say): a session opened with the old factor ends too.
    wall.advance(60_000);
    const again = await signIn(gw, member, { clock: wall });
    expect((await again.get('/portal/transactions')).status).toBe(200);
    wall.advance(60_000);
    await enrol();
    expect((await here.get('/portal/transactions')).status).toBe(200);
    expect((await again.get('/portal/transactions')).location).toMatch(/^\/portal\/sign-in/);
    const [audit] = await gw.database.query<{ detail: Record<string, string> }>(
      `SELECT detail FROM portal_audit_log WHERE user_id = $1 AND action = 'second-factor.enrol' AND outcome = 'ok' ORDER BY seq DESC LIMIT 1`,
      [member.userId],
    );
    expect(audit?.detail).toEqual({ sessions_ended: '1' });
  });

  it('locks a member after 5 failures, even against the right password, for 15 minutes of wall-clock time', async () => {
    const member = await createMember(gw, merchantId, 'viewer');
    for (let i = 0; i < 5; i++) expect((await passwordStep(member, `wrong password ${i}`)).answer.status).toBe(401);
    const locked = await passwordStep(member);
    expect(locked.answer.status).toBe(429);
    expect(locked.answer.body).toContain('locked for 15 minutes');
    business.advance(24 * 60 * MINUTE);
    expect((await passwordStep(member)).answer.status).toBe(429);
    wall.advance(15 * MINUTE);
    expect((await passwordStep(member)).answer.location).toBe('/portal/transactions');
  });

  it('counts wrong codes across sign-ins: a right password in between does not start the count again', async () => {
    const member = await createMember(gw, merchantId, 'owner');
    await signIn(gw, member, { clock: wall });
    const codeStep = async () => {
      const { client, answer } = await passwordStep(member);
      expect(answer.location).toBe('/portal/second-factor');
      await client.get('/portal/second-factor');
      return client;
    };
    // Someone holding the password guesses codes, four per sign-in, never five in one.
    const first = await codeStep();
    for (let i = 0; i < 4; i++) expect((await first.post('/portal/second-factor', { code: String(100000 + i) })).status).toBe(401);
    const second = await codeStep();
    expect((await second.post('/portal/second-factor', { code: '200000' })).status).toBe(401);
    // Five wrong codes in a row: locked, the right code too.
    const locked = await second.post('/portal/second-factor', { code: nextCode(member, wall) });
    expect(locked.status).toBe(429);
    expect((await passwordStep(member)).answer.status).toBe(429);
    wall.advance(15 * MINUTE);
  });

  it('counts N concurrent wrong passwords each: the member is locked after them', async () => {
    const member = await createMember(gw, merchantId, 'viewer');
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => passwordStep(member, `concurrent wrong ${i}`)));
    // Each failure counted once: five refused as wrong, the rest find the member locked.
    expect(answers.map((a) => a.answer.status).sort()).toEqual([...Array(5).fill(401), ...Array(3).fill(429)]);
    expect((await passwordStep(member)).answer.status).toBe(429);
    const [audit] = await gw.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM portal_audit_log WHERE user_id = $1 AND action = 'sign-in' AND outcome = 'refused'`, [member.userId]);
    expect(audit!.n).toBe(9);
    wall.advance(15 * MINUTE);
  });

  it('ends a session idle for 15 minutes, and any session after its absolute limit', async () => {
    const member = await createMember(gw, merchantId, 'operator');
    const idle = await signIn(gw, member, { clock: wall });
    wall.advance(14 * MINUTE);
    expect((await idle.get('/portal/transactions')).status).toBe(200);
    wall.advance(15 * MINUTE);
    expect((await idle.get('/portal/transactions')).location).toBe('/portal/sign-in');
    const busy = await signIn(gw, member, { clock: wall });
    for (let elapsed = 0; elapsed < 12 * 60 - 10; elapsed += 10) {
      wall.advance(10 * MINUTE);
      expect((await busy.get('/portal/transactions')).status).toBe(200);
    }
    wall.advance(10 * MINUTE);
    expect((await busy.get('/portal/transactions')).location).toBe('/portal/sign-in');
  });

  it('signs out from a page left open past the idle limit: to the sign-in page, not a "form expired" refusal', async () => {
    const member = await createMember(gw, merchantId, 'operator');
    const client = await signIn(gw, member, { clock: wall });
    await client.get('/portal/account');
    wall.advance(16 * MINUTE);
    const out = await client.post('/portal/sign-out');
    expect([out.status, out.location]).toEqual([303, '/portal/sign-in']);
    expect(client.cookies.has('acquiro_portal')).toBe(false);
    // A live session is still signed out only by its own form: another site's post, or a post without the token, is refused.
    const live = await signIn(gw, member, { clock: wall });
    expect((await live.post('/portal/sign-out', { _csrf: '' })).status).toBe(403);
    expect((await live.post('/portal/sign-out', {}, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await live.get('/portal/transactions')).status).toBe(200);
  });

  it('signs out everywhere: every session of the member ends, others stay', async () => {
    const member = await createMember(gw, merchantId, 'viewer');
    const other = await createMember(gw, merchantId, 'viewer');
    const [phone, laptop, colleague] = await Promise.all([signIn(gw, member), signIn(gw, member), signIn(gw, other)]);
    await laptop.get('/portal/account');
    const out = await laptop.post('/portal/account/sign-out-everywhere');
    expect(out.location).toBe('/portal/sign-in?ended=everywhere');
    expect((await phone.get('/portal/transactions')).location).toBe('/portal/sign-in');
    expect((await laptop.get('/portal/transactions')).location).toBe('/portal/sign-in');
    expect((await colleague.get('/portal/transactions')).status).toBe(200);
  });

  it('sets the password from the one-time link `users create` prints; the link works once and ends sessions', async () => {
    const email = `invited-${Date.now()}@shop.example`;
    const created = await runCommand(['users', 'create', '--merchant-id', merchantId, '--email', email, '--role', 'viewer'], gw.gateway.deps);
    expect(created.exitCode).toBe(0);
    const link = /set-password link \(one use, 24 hours\): (\S+)/.exec(created.stdout)![1]!;
    expect(link).toMatch(/^http:\/\/gateway\.test\/portal\/set-password\?token=[A-Za-z0-9_-]{43}$/);
    const path = link.slice('http://gateway.test'.length);
    const client = new PortalClient(gw.gateway.server.app);
    const form = await client.get(path);
    expect(form.status).toBe(200);
    expect(form.body).toContain(email);
    expect((await client.post('/portal/set-password', { token: new URL(link).searchParams.get('token')!, password: 'short' })).status).toBe(400);
    const set = await client.post('/portal/set-password', { token: new URL(link).searchParams.get('token')!, password: 'a long enough pass phrase' });
    expect(set.location).toBe('/portal/sign-in?ended=password');
    expect((await new PortalClient(gw.gateway.server.app).get(path)).status).toBe(404);
    const member: TestMember = { userId: '', merchantId, email, password: 'a long enough pass phrase', role: 'viewer' };
    const session = await signIn(gw, member);
    // A reset prints a new link; using it ends the member's sessions and the old password.
    const reset = await runCommand(['users', 'reset', '--email', email], gw.gateway.deps);
    const second = /: (http\S+)$/m.exec(reset.stdout)![1]!;
    const resetter = new PortalClient(gw.gateway.server.app);
    await resetter.get(second.slice('http://gateway.test'.length));
    expect((await resetter.post('/portal/set-password', { token: new URL(second).searchParams.get('token')!, password: 'another long pass phrase' })).status).toBe(303);
    expect((await session.get('/portal/transactions')).location).toBe('/portal/sign-in');
    expect((await passwordStep(member)).answer.status).toBe(401);
  });

  it("refuses a disabled merchant's members: the session ends and sign-in is refused until enabled again", async () => {
    const closed = (await gw.merchant()).credentials.merchant_id;
    const member = await createMember(gw, closed, 'operator');
    const session = await signIn(gw, member, { clock: wall });
    expect((await runCommand(['merchants', 'disable', '--merchant-id', closed], gw.gateway.deps)).exitCode).toBe(0);
    expect((await session.get('/portal/transactions')).location).toBe('/portal/sign-in');
    const refused = await passwordStep(member);
    expect(refused.answer.status).toBe(401);
    expect(sessionCookie(refused.answer)).toBeUndefined();
    const [audit] = await gw.database.query<{ detail: { reason: string } }>(`SELECT detail FROM portal_audit_log WHERE user_id = $1 ORDER BY seq DESC LIMIT 1`, [member.userId]);
    expect(audit!.detail.reason).toBe('merchant disabled');
    // Refused before the password counts: no lockout builds up while the merchant is disabled.
    for (let i = 0; i < 5; i++) await passwordStep(member);
    expect((await runCommand(['merchants', 'enable', '--merchant-id', closed], gw.gateway.deps)).exitCode).toBe(0);
    expect((await passwordStep(member)).answer.location).toBe('/portal/transactions');
  });

  it("ends a disabled merchant's sessions at the disable: enabled again before their next request, they do not come back", async () => {
    const closed = (await gw.merchant()).credentials.merchant_id;
    const member = await createMember(gw, closed, 'operator');
    const session = await signIn(gw, member, { clock: wall });
    const pending = new PortalClient(gw.gateway.server.app);
    await pending.get('/portal/sign-in');
    // A session past its password, its second factor still due, ends too.
    const owner = await createMember(gw, closed, 'owner');
    expect((await pending.post('/portal/sign-in', { email: owner.email, password: owner.password })).location).toBe('/portal/enrol');
    // An operator disables the merchant (a member's password leaked, say) and enables it again a minute later.
    expect((await runCommand(['merchants', 'disable', '--merchant-id', closed], gw.gateway.deps)).exitCode).toBe(0);
    expect((await runCommand(['merchants', 'enable', '--merchant-id', closed], gw.gateway.deps)).exitCode).toBe(0);
    expect((await session.get('/portal/transactions')).location).toBe('/portal/sign-in');
    expect((await pending.get('/portal/enrol')).location).toBe('/portal/sign-in');
    const [left] = await gw.database.query<{ n: number }>('SELECT count(*)::int AS n FROM portal_sessions WHERE user_id IN ($1, $2)', [member.userId, owner.userId]);
    expect(left!.n).toBe(0);
    // Signing in again works as before.
    expect((await passwordStep(member)).answer.location).toBe('/portal/transactions');
  });

  it('counts enrolling the second factor at sign-in as re-authentication, for five minutes', async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    const client = await signIn(gw, owner, { clock: wall });
    await client.get('/portal/members');
    const invited = await client.post('/portal/members/invite', { email: `fresh-${Date.now()}@shop.example`, role: 'viewer' });
    expect(invited.status).toBe(200);
    expect(invited.body).not.toContain('Confirm it is you');
    expect(invited.body).toMatch(/id="invite-link"/);
    wall.advance(6 * MINUTE);
    await client.get('/portal/members');
    expect((await client.post('/portal/members/invite', { email: `stale-${Date.now()}@shop.example`, role: 'viewer' })).body).toContain('Confirm it is you');
  });

  it('never writes a password, a session token or a link token to a log line', async () => {
    expect(gw.logs.text).not.toContain('correct horse battery staple');
    expect(gw.logs.text).not.toContain('a long enough pass phrase');
    expect(gw.logs.text).not.toMatch(/token=/);
    const [session] = await gw.database.query<{ id: string }>('SELECT id FROM portal_sessions LIMIT 1');
    expect(session!.id).toMatch(/^[0-9a-f]{64}$/);
  });
});
