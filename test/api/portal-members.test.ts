// Members in the portal (owners and admins) and with the CLI: invite with a one-time link, change
// a role, disable; each asks for re-authentication first, is written to the audit log, and ends
// the member's sessions where it changes their rights. Admins cannot touch owners.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import { startTestGateway, TEST_DB, type TestGateway } from '../support/gateway.ts';
import { createMember, nextCode, PortalClient, signIn, staleReauth, type TestMember } from '../support/portal.ts';

let gw: TestGateway;
let merchantId: string;
beforeAll(async () => {
  gw = await startTestGateway();
  merchantId = (await gw.merchant()).credentials.merchant_id;
});
afterAll(() => gw?.close());

const memberRow = async (userId: string) =>
  (await gw.database.query<{ role: string; status: string }>('SELECT role, status FROM portal_users WHERE id = $1', [userId]))[0];

/** Posts an action, confirming with the password and a code when the portal asks. */
async function act(client: PortalClient, member: TestMember, path: string, fields: Record<string, string> = {}) {
  await client.get('/portal/members');
  const first = await client.post(path, fields);
  if (!first.body.includes('Confirm it is you')) return first;
  return client.post(path, { ...fields, _reauth_password: member.password, ...(member.totpSecret ? { _reauth_code: nextCode(member) } : {}) });
}

describe('members', () => {
  it('asks an owner to re-authenticate, then invites a member with a one-time link', async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    const client = await signIn(gw, owner);
    await staleReauth(gw, owner);
    await client.get('/portal/members');
    const asked = await client.post('/portal/members/invite', { email: 'new.member@shop.example', role: 'operator' });
    expect(asked.body).toContain('Confirm it is you');
    expect(asked.body).toContain('value="new.member@shop.example"');
    expect((await gw.database.query(`SELECT 1 FROM portal_users WHERE email = 'new.member@shop.example'`)).length).toBe(0);
    const wrong = await client.post('/portal/members/invite', { email: 'new.member@shop.example', role: 'operator', _reauth_password: 'not my password', _reauth_code: '000000' });
    expect(wrong.status).toBe(403);
    const done = await client.post('/portal/members/invite', { email: 'new.member@shop.example', role: 'operator', _reauth_password: owner.password, _reauth_code: nextCode(owner) });
    expect(done.status).toBe(200);
    const link = /id="invite-link">([^<]+)</.exec(done.body)![1]!;
    expect(link).toMatch(/\/portal\/set-password\?token=/);
    const list = await runCommand(['users', 'list', '--merchant-id', merchantId, '--json'], gw.gateway.deps);
    expect(JSON.parse(list.stdout).members).toEqual(expect.arrayContaining([expect.objectContaining({ email: 'new.member@shop.example', role: 'operator', status: 'invited' })]));
    const audit = await gw.database.query<{ email: string; outcome: string }>(`SELECT email, outcome FROM portal_audit_log WHERE action = 'member.create' AND target LIKE '%new.member@shop.example'`);
    expect(audit).toEqual([{ email: owner.email, outcome: 'ok' }]);
  });

  it('changes a role and disables a member; their sessions end at once', async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    const operator = await createMember(gw, merchantId, 'operator');
    const client = await signIn(gw, owner);
    const theirs = await signIn(gw, operator);
    expect((await act(client, owner, `/portal/members/${operator.userId}/role`, { role: 'viewer' })).location).toBe('/portal/members');
    expect(await memberRow(operator.userId)).toEqual({ role: 'viewer', status: 'active' });
    expect((await theirs.get('/portal/transactions')).location).toBe('/portal/sign-in');
    const again = await signIn(gw, operator);
    expect((await act(client, owner, `/portal/members/${operator.userId}/disable`)).location).toBe('/portal/members');
    expect(await memberRow(operator.userId)).toEqual({ role: 'viewer', status: 'disabled' });
    expect((await again.get('/portal/transactions')).location).toBe('/portal/sign-in');
    const refused = new PortalClient(gw.gateway.server.app);
    await refused.get('/portal/sign-in');
    expect((await refused.post('/portal/sign-in', { email: operator.email, password: operator.password })).status).toBe(401);
  });

  it('lets an admin manage operators but not owners, nor make one', async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    const admin = await createMember(gw, merchantId, 'admin');
    const viewer = await createMember(gw, merchantId, 'viewer');
    const client = await signIn(gw, admin);
    expect((await act(client, admin, `/portal/members/${owner.userId}/disable`)).status).toBe(403);
    expect((await act(client, admin, `/portal/members/${viewer.userId}/role`, { role: 'owner' })).status).toBe(403);
    expect((await act(client, admin, '/portal/members/invite', { email: 'boss@shop.example', role: 'owner' })).status).toBe(403);
    expect((await act(client, admin, `/portal/members/${admin.userId}/disable`)).status).toBe(403);
    expect(await memberRow(owner.userId)).toEqual({ role: 'owner', status: 'active' });
    expect(await memberRow(viewer.userId)).toEqual({ role: 'viewer', status: 'active' });
    expect((await act(client, admin, `/portal/members/${viewer.userId}/role`, { role: 'operator' })).location).toBe('/portal/members');
    expect(await memberRow(viewer.userId)).toEqual({ role: 'operator', status: 'active' });
  });

  it("answers an invitation of another merchant's member as any invitation; only the link's holder learns the address is taken", async () => {
    const otherMerchant = (await gw.merchant()).credentials.merchant_id;
    const outsider = await createMember(gw, otherMerchant, 'viewer');
    const owner = await createMember(gw, merchantId, 'owner');
    const client = await signIn(gw, owner);
    const invite = async (email: string) => {
      const answer = await act(client, owner, '/portal/members/invite', { email, role: 'viewer' });
      const link = /id="invite-link">[^<]*(\/portal\/set-password\?token=[^<]+)</.exec(answer.body)?.[1];
      // The page less what differs by construction (the address typed, the link drawn, the form tokens).
      const page = answer.body.replaceAll(email, 'E').replace(/token=[^<"]+/g, 'token=T').replace(/value="[^"]*"/g, 'value=""');
      return { status: answer.status, page, link };
    };
    const fresh = await invite(`nobody-${Date.now()}@shop.example`);
    const taken = await invite(outsider.email.toUpperCase());
    expect([fresh.status, fresh.page]).toEqual([200, expect.stringContaining('<h1>Member invited</h1>')]);
    expect(taken.status).toBe(200);
    expect(taken.page).toBe(fresh.page);
    expect(taken.link).toBeDefined();
    // The merchant's own list shows the invitation as it shows any other; its own member again is refused (its own data).
    const list = await runCommand(['users', 'list', '--merchant-id', merchantId, '--json'], gw.gateway.deps);
    expect(JSON.parse(list.stdout).members).toContainEqual(expect.objectContaining({ email: outsider.email.toUpperCase(), status: 'invited' }));
    expect((await act(client, owner, '/portal/members/invite', { email: outsider.email, role: 'viewer' })).status).toBe(409);

    // The other merchant's member still signs in there, as before.
    expect((await signIn(gw, outsider)).cookies.size).toBeGreaterThan(0);
    // The link's holder (the address's owner) is told when choosing a password; nothing changes.
    const holder = new PortalClient(gw.gateway.server.app);
    expect((await holder.get(taken.link!)).status).toBe(200);
    const token = new URL(taken.link!, 'http://portal').searchParams.get('token')!;
    const refused = await holder.post('/portal/set-password', { token, password: 'another long enough password' });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('already signs in to the portal of another merchant');
    expect(await memberRow(outsider.userId)).toEqual({ role: 'viewer', status: 'active' });
    const invited = await gw.database.query<{ status: string }>('SELECT status FROM portal_users WHERE merchant_id = $1 AND email = $2', [merchantId, outsider.email.toUpperCase()]);
    expect(invited).toEqual([{ status: 'invited' }]);
    // With the address named alone, the command line asks which member is meant.
    const ambiguous = await runCommand(['users', 'reset', '--email', outsider.email], gw.gateway.deps);
    expect([ambiguous.exitCode, ambiguous.stderr]).toEqual([1, expect.stringContaining('name one with --user-id')]);
  });

  it('refuses a bad e-mail or role without storing anything', async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    const client = await signIn(gw, owner);
    expect((await act(client, owner, '/portal/members/invite', { email: 'not-an-address', role: 'viewer' })).status).toBe(400);
    expect((await act(client, owner, '/portal/members/invite', { email: 'fine@shop.example', role: 'superuser' })).status).toBe(400);
    expect((await gw.database.query(`SELECT 1 FROM portal_users WHERE email IN ('not-an-address', 'fine@shop.example')`)).length).toBe(0);
    const cli = await runCommand(['users', 'create', '--merchant-id', merchantId, '--email', 'x@shop.example', '--role', 'root'], gw.gateway.deps);
    expect(cli.exitCode).toBe(2);
    const unknown = await runCommand(['users', 'create', '--merchant-id', 'M999999', '--email', 'x@shop.example', '--role', 'viewer'], gw.gateway.deps);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain('no merchant M999999');
  });

  it('makes one member of N concurrent identical creations, and disables once under N concurrent disables', async () => {
    const email = `race-${Date.now()}@shop.example`;
    const results = await Promise.all(Array.from({ length: 10 }, () => runCommand(['users', 'create', '--merchant-id', merchantId, '--email', email, '--role', 'viewer'], gw.gateway.deps)));
    expect(results.filter((r) => r.exitCode === 0)).toHaveLength(1);
    expect(results.filter((r) => r.exitCode !== 0).every((r) => r.stderr.includes('exists already'))).toBe(true);
    const disables = await Promise.all(Array.from({ length: 10 }, () => runCommand(['users', 'disable', '--email', email], gw.gateway.deps)));
    expect(disables.filter((r) => r.exitCode === 0)).toHaveLength(1);
    const audit = await gw.database.query(`SELECT 1 FROM portal_audit_log WHERE action = 'member.disable' AND target LIKE $1`, [`%${email}`]);
    expect(audit).toHaveLength(1);
  });
});

// PostgreSQL only: PGlite runs one statement at a time, so two changes never interleave there.
describe.runIf(TEST_DB === 'postgres')('two owners changing each other at the same moment', () => {
  const activeOwners = async (ids: string[]) =>
    (await gw.database.query<{ id: string }>(`SELECT id FROM portal_users WHERE id = ANY($1) AND role = 'owner' AND status = 'active'`, [ids])).length;

  it.each([
    ['demote', (id: string) => [`/portal/members/${id}/role`, { role: 'admin' }] as const],
    ['disable', (id: string) => [`/portal/members/${id}/disable`, {}] as const],
  ])('%s each other: one wins, the other is refused, and the merchant keeps an owner', async (_, request) => {
    // A merchant of its own, so that its two owners are its only ones.
    const merchant = (await gw.merchant()).credentials.merchant_id;
    for (let round = 0; round < 5; round++) {
      const first = await createMember(gw, merchant, 'owner');
      const second = await createMember(gw, merchant, 'owner');
      const [one, two] = [await signIn(gw, first), await signIn(gw, second)];
      await one.get('/portal/members');
      await two.get('/portal/members');
      const [path1, fields1] = request(second.userId);
      const [path2, fields2] = request(first.userId);
      const answers = await Promise.all([one.post(path1, fields1), two.post(path2, fields2)]);
      expect(answers.filter((answer) => answer.location === '/portal/members')).toHaveLength(1);
      // The other is refused: by the change itself, its actor no longer an owner (403), or, had the
      // first ended its session before its request was read, sent to sign in.
      expect(answers.filter((answer) => answer.status === 403 || answer.location === '/portal/sign-in')).toHaveLength(1);
      expect(await activeOwners([first.userId, second.userId])).toBe(1);
      // The next round's owners are the merchant's only ones again.
      await gw.database.query(`UPDATE portal_users SET status = 'disabled' WHERE id = ANY($1)`, [[first.userId, second.userId]]);
    }
  });
});

// PostgreSQL only: the demotion is held open in a transaction of its own while the invitation runs,
// which PGlite, one statement at a time, cannot do.
describe.runIf(TEST_DB === 'postgres')('an invitation by a member demoted while it is on its way', () => {
  const sleep = (ms: number) => new Promise<false>((resolve) => setTimeout(() => resolve(false), ms));

  it.each([
    ['an owner made an admin invites an owner', 'owner', 'admin', 'owner'],
    ['an admin made a viewer invites an operator', 'admin', 'viewer', 'operator'],
  ] as const)('%s: the invitation waits for the demotion and is refused 403, inviting no one', async (_, was, becomes, invites) => {
    const actor = await createMember(gw, merchantId, was);
    const client = await signIn(gw, actor);
    await client.get('/portal/members');
    const email = `late.${was}.${Date.now()}@shop.example`;
    const other = await gw.anotherConnection();
    try {
      // The demotion, as changeRole writes it (the actor's row locked, its role changed, its
      // sessions ended), holds the row while the invitation (its session already read) comes in.
      const { invite, blocked } = await other.transaction(async (query) => {
        const [{ pid }] = (await query('SELECT pg_backend_pid() AS pid')) as [{ pid: number }];
        await query('SELECT id FROM portal_users WHERE id = $1 FOR UPDATE', [actor.userId]);
        const invite = client.post('/portal/members/invite', { email, role: invites });
        const settled = invite.then(() => true);
        let blocked = false;
        for (let tries = 0; tries < 250 && !blocked; tries++) {
          if (await Promise.race([settled, sleep(20)])) break;
          const waiting = await gw.database.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid]);
          blocked = waiting[0]!.n > 0;
        }
        await query('UPDATE portal_users SET role = $2 WHERE id = $1', [actor.userId, becomes]);
        await query('DELETE FROM portal_sessions WHERE user_id = $1', [actor.userId]);
        return { invite: { answer: invite }, blocked };
      });
      const answer = await invite.answer;
      expect([blocked, answer.status]).toEqual([true, 403]);
      expect(answer.body).toContain('your role or access changed');
      expect(await gw.database.query('SELECT 1 FROM portal_users WHERE email = $1', [email])).toHaveLength(0);
    } finally {
      await other.close();
    }
  });
});
