// Re-authentication before a sensitive action shares the member's failure count with sign-in:
// someone holding a session guesses the password or code there no faster than at the sign-in
// page. Reaching the lock there refuses the action in words that say so; the session stays, and
// the lock ends after 15 minutes of wall-clock time like a sign-in's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { PortalClient} from '../support/portal.ts';
import { createMember, nextCode, sendPassword, signIn, staleReauth, totpSecretOn, type TestMember } from '../support/portal.ts';

const MINUTE = 60_000;
const LOCKED = 'Too many failed attempts: this account is locked';
let gw: TestGateway;
let merchantId: string;
const wall = new FakeClock('2026-11-22T09:00:00Z');
beforeAll(async () => {
  gw = await startTestGateway({ wallClock: wall });
  merchantId = (await gw.merchant()).credentials.merchant_id;
});
afterAll(() => gw?.close());

const passwordStep = async (member: TestMember, password = member.password) => (await sendPassword(gw, member, { password })).answer;

/** An owner signed in, whose last confirmation is old: inviting asks for the password and a code. */
async function staleOwner() {
  const owner = await createMember(gw, merchantId, 'owner');
  const client = await signIn(gw, owner, { clock: wall });
  await staleReauth(gw, owner);
  await client.get('/portal/members');
  wall.advance(MINUTE);
  return { owner, client };
}

const invite = (client: PortalClient, owner: TestMember, fields: Record<string, string>) =>
  client.post('/portal/members/invite', { email: `invited-${owner.userId}@shop.example`, role: 'viewer', ...fields });
const invited = async (owner: TestMember) =>
  (await gw.database.query<{ n: number }>('SELECT count(*)::int AS n FROM portal_users WHERE email = $1', [`invited-${owner.userId}@shop.example`]))[0]!.n;

describe('re-authentication and the lockout', () => {
  it('counts wrong passwords and codes at re-authentication with sign-in’s: five in a row lock the member, wherever they were typed', async () => {
    const { owner, client } = await staleOwner();
    // Two wrong passwords at the sign-in page, three wrong confirmations (a wrong password, then wrong codes).
    for (const password of ['wrong one', 'wrong two']) expect((await passwordStep(owner, password)).status).toBe(401);
    expect((await invite(client, owner, { _reauth_password: 'wrong three', _reauth_code: nextCode(owner, wall) })).status).toBe(403);
    wall.advance(MINUTE);
    expect((await invite(client, owner, { _reauth_password: owner.password, _reauth_code: '000000' })).status).toBe(403);
    const fifth = await invite(client, owner, { _reauth_password: owner.password, _reauth_code: '111111' });
    expect(fifth.status).toBe(429);
    expect(fifth.body).toContain(LOCKED);
    // Locked: the sign-in page refuses the right password too.
    expect((await passwordStep(owner)).status).toBe(429);
    expect(await invited(owner)).toBe(0);
    wall.advance(15 * MINUTE);
  });

  it('does not start the count again at a right password whose code is wrong', async () => {
    const { owner, client } = await staleOwner();
    for (let i = 0; i < 4; i++) expect((await invite(client, owner, { _reauth_password: owner.password, _reauth_code: String(200000 + i) })).status).toBe(403);
    // A right password at the sign-in page (its code still due) does not clear the four.
    expect((await passwordStep(owner)).location).toBe('/portal/second-factor');
    expect((await invite(client, owner, { _reauth_password: owner.password, _reauth_code: '300000' })).status).toBe(429);
    wall.advance(15 * MINUTE);
  });

  it('refuses the action while locked, in words that say so, even with the right password and code; the session stays, and the lock ends after 15 minutes', async () => {
    const { owner, client } = await staleOwner();
    for (let i = 0; i < 4; i++) {
      const wrong = await invite(client, owner, { _reauth_password: `wrong ${i}`, _reauth_code: '000000' });
      expect(wrong.status).toBe(403);
      expect(wrong.body).toContain('The password or code was not right.');
    }
    const locking = await invite(client, owner, { _reauth_password: 'wrong 4', _reauth_code: '000000' });
    expect(locking.status).toBe(429);
    expect(locking.body).toContain(LOCKED);
    expect(locking.body).toContain('Nothing was done');
    expect(locking.headers['retry-after']).toBe(String(15 * 60));
    // The right password and code while locked: refused the same way, nothing done, the code not spent.
    wall.advance(5 * MINUTE);
    const code = nextCode(owner, wall);
    const right = await invite(client, owner, { _reauth_password: owner.password, _reauth_code: code });
    expect(right.status).toBe(429);
    expect(right.body).toContain(LOCKED);
    expect(right.headers['retry-after']).toBe(String(10 * 60));
    // The form is kept: confirming again once the lock ends performs the action.
    expect(right.body).toContain(`value="invited-${owner.userId}@shop.example"`);
    expect(await invited(owner)).toBe(0);
    // The session still opens the portal; only sensitive actions wait for the lock to end.
    expect((await client.get('/portal/transactions')).status).toBe(200);
    // Tries while locked do not lengthen the lock.
    const [row] = await gw.database.query<{ locked_until: Date }>('SELECT locked_until FROM portal_users WHERE id = $1', [owner.userId]);
    expect(new Date(row!.locked_until).getTime()).toBe(wall.now().getTime() + 10 * MINUTE);
    wall.advance(10 * MINUTE);
    await client.get('/portal/members');
    const done = await invite(client, owner, { _reauth_password: owner.password, _reauth_code: nextCode(owner, wall) });
    expect(done.status).toBe(200);
    expect(await invited(owner)).toBe(1);
    const audit = await gw.database.query<{ outcome: string; detail: Record<string, string> | null }>(
      `SELECT outcome, detail FROM portal_audit_log WHERE user_id = $1 AND action = 'reauthenticate' ORDER BY seq`,
      [owner.userId],
    );
    expect(audit.map((a) => [a.outcome, a.detail?.reason, a.detail?.locked])).toEqual([
      ...Array(4).fill(['refused', 'wrong password or code', undefined]),
      ['refused', 'wrong password or code', 'now'],
      ['refused', 'locked', undefined],
      ['ok', undefined, undefined],
    ]);
  });

  it('says so on My account’s second-factor form too, when its confirmation reaches the lock', async () => {
    const operator = await createMember(gw, merchantId, 'operator');
    const client = await signIn(gw, operator, { clock: wall });
    const page = await client.get('/portal/enrol');
    operator.totpSecret = totpSecretOn(page.body);
    for (let i = 0; i < 4; i++) {
      const wrong = await client.post('/portal/enrol', { code: nextCode({ ...operator }, wall), _reauth_password: `wrong ${i}` });
      expect(wrong.status).toBe(400);
      expect(wrong.body).toContain('Your password or current code is not right.');
    }
    const locking = await client.post('/portal/enrol', { code: nextCode({ ...operator }, wall), _reauth_password: 'wrong 4' });
    expect(locking.status).toBe(429);
    expect(locking.body).toContain(LOCKED);
    const [row] = await gw.database.query<{ totp_secret: string | null }>('SELECT totp_secret FROM portal_users WHERE id = $1', [operator.userId]);
    expect(row!.totp_secret).toBeNull();
    wall.advance(15 * MINUTE);
  });
});
