// A sign-in step (the second factor, or enrolment at sign-in) posted with the cookie of a session
// that is no more. Either another sending of the same form finished the sign-in (its session was
// replaced by the signed-in one): 409 "Already done", the new session's cookie kept. Or the
// sign-in expired, or the cookie never opened one: the member is sent to sign in again, and told
// why. Neither changes anything. The gateway tells them apart from the database alone, so any
// process on it answers alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newToken } from '../../src/app/portal/credentials.ts';
import { endExpiredSessions } from '../../src/app/portal/sessions.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { atSignInStep, createMember, nextCode, PortalClient, signIn, totpSecretOn, type PortalAnswer, type TestMember } from '../support/portal.ts';

const MINUTE = 60_000;
const STEPS = ['/portal/second-factor', '/portal/enrol'] as const;

let gw: TestGateway;
let merchantId: string;
const wall = new FakeClock('2026-11-22T09:00:00Z');
beforeAll(async () => {
  gw = await startTestGateway({ wallClock: wall });
  merchantId = (await gw.merchant()).credentials.merchant_id;
});
afterAll(() => gw?.close());

const passwordStep = (member: TestMember) => atSignInStep(gw, member);

/** Everything a step could change: the member's row, its recovery codes, its sessions still open, the audit log. */
async function stateOf(member: TestMember) {
  const query = gw.database.query.bind(gw.database);
  return {
    member: await query('SELECT failed_attempts, locked_until, totp_secret, totp_last_step FROM portal_users WHERE id = $1', [member.userId]),
    codes: await query('SELECT code_hash, used_at FROM portal_recovery_codes WHERE user_id = $1 ORDER BY code_hash', [member.userId]),
    sessions: await query('SELECT id, status, last_seen_at, reauth_at FROM portal_sessions WHERE user_id = $1 AND expires_at > $2 ORDER BY id', [member.userId, wall.now()]),
    audit: await query<{ n: number }>('SELECT count(*)::int AS n FROM portal_audit_log'),
  };
}

const setsSessionCookie = (answer: PortalAnswer) => String(answer.headers['set-cookie'] ?? '').includes('acquiro_portal=');

function expectSentToSignIn(answer: PortalAnswer, path: string) {
  expect([path, answer.status, answer.location]).toEqual([path, 303, '/portal/sign-in?ended=expired']);
  expect(answer.body).not.toContain('Already done');
  expect(setsSessionCookie(answer)).toBe(false);
}

/**
 * The step sent again with the finished sign-in's cookie (`late`), on either route, is answered
 * 409 "Already done", sets no cookie and changes nothing; the new session (`client`) still works.
 */
async function expectAlreadyDone(owner: TestMember, client: PortalClient, late: PortalClient, code: string): Promise<void> {
  const before = await stateOf(owner);
  for (const path of STEPS) {
    const again = await late.post(path, { code });
    expect([path, again.status, again.body]).toEqual([path, 409, expect.stringContaining('Already done')]);
    expect(setsSessionCookie(again)).toBe(false);
  }
  expect(await stateOf(owner)).toEqual(before);
  expect((await client.get('/portal/transactions')).status).toBe(200);
}

describe('a sign-in step posted with a session that is no more', () => {
  it('answers the second factor sent again after it finished the sign-in as already done, on either step, changing nothing', async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    await signIn(gw, owner, { clock: wall });
    wall.advance(MINUTE);
    const client = await passwordStep(owner);
    const late = client.sameForm();
    const code = nextCode(owner, wall);
    const first = await client.post('/portal/second-factor', { code });
    expect([first.status, first.location]).toEqual([303, '/portal/transactions']);
    await expectAlreadyDone(owner, client, late, code);
    wall.advance(MINUTE);
  });

  it('answers the enrolment sent again after it finished the sign-in as already done, on either step, changing nothing', async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    const client = await passwordStep(owner);
    owner.totpSecret = totpSecretOn((await client.get('/portal/enrol')).body);
    const late = client.sameForm();
    const code = nextCode(owner, wall);
    expect((await client.post('/portal/enrol', { code })).body).toContain('id="recovery-codes"');
    await expectAlreadyDone(owner, client, late, code);
    wall.advance(MINUTE);
  });

  it('sends a second-factor step of a sign-in that expired to sign in again, with why, changing nothing', async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    await signIn(gw, owner, { clock: wall });
    const client = await passwordStep(owner);
    wall.advance(11 * MINUTE); // the password step is good for 10 minutes
    const before = await stateOf(owner);
    for (const path of STEPS) expectSentToSignIn(await client.sameForm().post(path, { code: nextCode(owner, wall) }), path);
    expect(await stateOf(owner)).toEqual(before);
    const page = await client.follow(await client.post('/portal/second-factor', { code: '000000' }));
    expect([page.status, page.body]).toEqual([200, expect.stringContaining('Your sign-in has expired: sign in again.')]);
    expect(page.body).toContain('action="/portal/sign-in"');
  });

  it('sends an enrolment at a sign-in that expired to sign in again, changing nothing', async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    const client = await passwordStep(owner);
    owner.totpSecret = totpSecretOn((await client.get('/portal/enrol')).body);
    wall.advance(11 * MINUTE);
    const before = await stateOf(owner);
    for (const path of STEPS) expectSentToSignIn(await client.sameForm().post(path, { code: nextCode(owner, wall) }), path);
    expect(await stateOf(owner)).toEqual(before);
    expect(before.member[0]).toMatchObject({ totp_secret: null });
  });

  it('sends a step with a cookie that never opened a session to sign in again', async () => {
    const stranger = new PortalClient(gw.gateway.server.app);
    await stranger.get('/portal/sign-in');
    stranger.cookies.set('acquiro_portal', newToken());
    for (const path of STEPS) expectSentToSignIn(await stranger.post(path, { code: '123456' }), path);
  });

  it('remembers a finished sign-in for as long as the sign-in itself could have lasted, then forgets it at the clean-up', async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    await signIn(gw, owner, { clock: wall });
    wall.advance(MINUTE);
    const client = await passwordStep(owner);
    const late = client.sameForm();
    expect((await client.post('/portal/second-factor', { code: nextCode(owner, wall) })).status).toBe(303);
    const remembered = () => gw.database.query<{ n: number }>('SELECT count(*)::int AS n FROM portal_finished_sign_ins').then((rows) => rows[0]!.n);
    expect(await remembered()).toBeGreaterThan(0);
    wall.advance(9 * MINUTE);
    expect((await late.post('/portal/second-factor', { code: '000000' })).status).toBe(409);
    wall.advance(2 * MINUTE);
    expectSentToSignIn(await late.post('/portal/second-factor', { code: '000000' }), '/portal/second-factor');
    await endExpiredSessions(gw.gateway.deps);
    expect(await remembered()).toBe(0);
  });
});
