// A TOTP code is accepted once, whatever the door it comes through and however many requests
// bring it at once: N concurrent second-factor steps, re-authentications and enrolment
// confirmations with the same valid code, through the portal's forms, have exactly one succeed.
// (test/cli/multi-process.test.ts sends such a burst over two gateway processes.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recoveryCodeHash } from '../../src/app/portal/credentials.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { atSignInStep, createMember, nextCode, signIn, staleReauth, totpSecretOn, type TestMember } from '../support/portal.ts';

const N = 10;
let gw: TestGateway;
let merchantId: string;
const wall = new FakeClock('2026-11-22T09:00:00Z');
beforeAll(async () => {
  gw = await startTestGateway({ wallClock: wall });
  merchantId = (await gw.merchant()).credentials.merchant_id;
});
afterAll(() => gw?.close());

const shownCodes = (page: string) => [...page.matchAll(/<li>([a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4})<\/li>/g)].map((match) => match[1]!);

// The step's page is not loaded: each test loads the pages it races itself.
const passwordStep = (member: TestMember) => atSignInStep(gw, member, { load: false });

describe('one TOTP code, many requests at once', () => {
  it(`accepts the same code once among ${N} concurrent second-factor steps, each of its own sign-in`, async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    await signIn(gw, owner, { clock: wall });
    wall.advance(60_000);
    const pending = await Promise.all(Array.from({ length: N }, () => passwordStep(owner)));
    for (const client of pending) await client.get('/portal/second-factor');
    const code = nextCode(owner, wall);
    const answers = await Promise.all(pending.map((client) => client.post('/portal/second-factor', { code })));
    // The others are refused: as a wrong code (401), or, once five wrong codes locked the member, as locked (429).
    expect(answers.filter((a) => a.status === 303)).toHaveLength(1);
    expect(answers.every((a) => [303, 401, 429].includes(a.status))).toBe(true);
    expect(answers.find((a) => a.status === 303)!.location).toBe('/portal/transactions');
    const [sessions] = await gw.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM portal_sessions WHERE user_id = $1 AND status = 'active'`, [owner.userId]);
    expect(sessions!.n).toBe(2); // the enrolment's, and this one
    const [audit] = await gw.database.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM portal_audit_log WHERE user_id = $1 AND action = 'sign-in' AND outcome = 'ok' AND detail->>'second_factor' = 'totp'`,
      [owner.userId],
    );
    expect(audit!.n).toBe(1);
    wall.advance(15 * 60_000); // N - 1 wrong codes locked the member: let it end
  });

  it(`accepts the same code once among ${N} concurrent re-authentications: one action is done`, async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    const client = await signIn(gw, owner, { clock: wall });
    await staleReauth(gw, owner);
    wall.advance(60_000);
    await client.get('/portal/members');
    const code = nextCode(owner, wall);
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) => client.post('/portal/members/invite', { email: `race-${i}-${owner.userId}@shop.example`, role: 'viewer', _reauth_password: owner.password, _reauth_code: code })),
    );
    expect(answers.filter((a) => a.status === 200 && /id="invite-link"/.test(a.body))).toHaveLength(1);
    expect(answers.filter((a) => a.body.includes('Confirm it is you'))).toHaveLength(N - 1);
    const [invited] = await gw.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM portal_users WHERE email LIKE $1`, [`race-%-${owner.userId}@shop.example`]);
    expect(invited!.n).toBe(1);
    wall.advance(15 * 60_000);
  });

  it(`confirms an enrolment from My account once among ${N} concurrent confirmations with the same code`, async () => {
    const operator = await createMember(gw, merchantId, 'operator');
    const client = await signIn(gw, operator, { clock: wall });
    operator.totpSecret = totpSecretOn((await client.get('/portal/enrol')).body);
    const code = nextCode(operator, wall);
    const answers = await Promise.all(Array.from({ length: N }, () => client.post('/portal/enrol', { code, _reauth_password: operator.password })));
    const confirmed = answers.filter((a) => a.status === 200 && a.body.includes('id="recovery-codes"'));
    expect(confirmed).toHaveLength(1);
    // The others change nothing, show no codes and count no failure: the key was already confirmed.
    for (const answer of answers.filter((a) => a !== confirmed[0])) {
      expect(answer.status).toBe(409);
      expect(answer.body).toContain('already confirmed');
    }
    const [member] = await gw.database.query<{ failed_attempts: number; locked_until: Date | null }>('SELECT failed_attempts, locked_until FROM portal_users WHERE id = $1', [operator.userId]);
    expect(member).toEqual({ failed_attempts: 0, locked_until: null });
    // The codes the one confirmation showed are the member's codes.
    const shown = shownCodes(confirmed[0]!.body);
    const stored = await gw.database.query<{ code_hash: string }>('SELECT code_hash FROM portal_recovery_codes WHERE user_id = $1', [operator.userId]);
    expect(stored.map((row) => row.code_hash).sort()).toEqual(shown.map(recoveryCodeHash).sort());
    const [audit] = await gw.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM portal_audit_log WHERE user_id = $1 AND action = 'second-factor.enrol' AND outcome = 'ok'`, [operator.userId]);
    expect(audit!.n).toBe(1);
    wall.advance(60_000);
  });

  it(`confirms an enrolment at sign-in once among ${N} concurrent confirmations with the same code`, async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    const client = await passwordStep(owner);
    owner.totpSecret = totpSecretOn((await client.get('/portal/enrol')).body);
    const code = nextCode(owner, wall);
    const answers = await Promise.all(Array.from({ length: N }, () => client.post('/portal/enrol', { code })));
    expect(answers.filter((a) => a.status === 200 && a.body.includes('id="recovery-codes"'))).toHaveLength(1);
    // The others say it was confirmed, and leave the cookie the first one set: a browser shows the
    // answer that came last, which must not sign the member out of the session just opened.
    expect(answers.filter((a) => a.status === 409)).toHaveLength(N - 1);
    expect(answers.filter((a) => String(a.headers['set-cookie'] ?? '').includes('acquiro_portal='))).toHaveLength(1);
    const [sessions] = await gw.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM portal_sessions WHERE user_id = $1 AND status = 'active'`, [owner.userId]);
    expect(sessions!.n).toBe(1);
    const [audit] = await gw.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM portal_audit_log WHERE user_id = $1 AND action = 'second-factor.enrol' AND outcome = 'ok'`, [owner.userId]);
    expect(audit!.n).toBe(1);
    wall.advance(60_000);
  });

  // A sending that reaches the gateway after another finished the sign-in carries the token of a
  // session that is no more (the sign-in's was replaced by the new one). Its answer, which a
  // browser may show last, says the key was confirmed, as for the sendings that overlapped: it does
  // not end the new session, and does not send the member to sign in again.
  it('answers a confirmation sent with the sign-in it finished, after it finished, as already confirmed', async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    const client = await passwordStep(owner);
    owner.totpSecret = totpSecretOn((await client.get('/portal/enrol')).body);
    const late = client.sameForm();
    const code = nextCode(owner, wall);
    const first = await client.post('/portal/enrol', { code });
    expect(first.status).toBe(200);
    for (const path of ['/portal/enrol', '/portal/second-factor']) {
      const again = await late.post(path, { code });
      expect([path, again.status, again.body]).toEqual([path, 409, expect.stringContaining('already')]);
      expect(again.headers['set-cookie']).toBeUndefined();
    }
    expect((await client.get('/portal/transactions')).status).toBe(200);
    wall.advance(60_000);
  });

  it('opens one session for one pending sign-in sent a TOTP code and recovery codes at once', async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    const enrolling = await passwordStep(owner);
    owner.totpSecret = totpSecretOn((await enrolling.get('/portal/enrol')).body);
    const recovery = shownCodes((await enrolling.post('/portal/enrol', { code: nextCode(owner, wall) })).body);
    wall.advance(60_000);
    const client = await passwordStep(owner);
    await client.get('/portal/second-factor');
    const codes = [nextCode(owner, wall), ...recovery.slice(0, 4)];
    const answers = await Promise.all(codes.map((code) => client.post('/portal/second-factor', { code })));
    // One code finishes the sign-in. The others open nothing, spend no recovery code and count no
    // failure: those that read the pending sign-in before it was finished find it gone and are sent
    // on as signed in; one that arrives after it was finished is answered 409 "Already done" (how
    // many of each depends on when each request reaches the database).
    const outcomes = answers.map((a) => [a.status, a.location]);
    for (const outcome of outcomes) expect([[303, '/portal/transactions'], [409, undefined]]).toContainEqual(outcome);
    expect(outcomes.filter(([status]) => status === 303).length).toBeGreaterThanOrEqual(1);
    expect(answers.filter((a) => String(a.headers['set-cookie'] ?? '').includes('acquiro_portal='))).toHaveLength(1);
    const [sessions] = await gw.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM portal_sessions WHERE user_id = $1 AND status = 'active'`, [owner.userId]);
    expect(sessions!.n).toBe(2); // the enrolment's, and this one
    const [left] = await gw.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM portal_recovery_codes WHERE user_id = $1 AND used_at IS NULL`, [owner.userId]);
    expect(left!.n).toBeGreaterThanOrEqual(recovery.length - 1);
    const [member] = await gw.database.query<{ failed_attempts: number }>(`SELECT failed_attempts FROM portal_users WHERE id = $1`, [owner.userId]);
    expect(member!.failed_attempts).toBe(0);
    wall.advance(60_000);
  });
});
