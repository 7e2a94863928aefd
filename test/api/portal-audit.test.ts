// The audit log: every sign-in and staff action is a row; rows chain by hash; the database
// refuses to change or delete them (a trigger on both databases; on PostgreSQL the gateway's role
// has no UPDATE or DELETE either); `acquiro audit verify` finds a row tampered with by a superuser
// who disabled the trigger. Owners view and export it (CSV, formulas neutralised); nobody else.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import { migrate, openDatabase } from '../../src/db/client.ts';
import { POSTGRES_URL, startTestGateway, TEST_DB, type TestGateway } from '../support/gateway.ts';
import { createMember, signIn } from '../support/portal.ts';

let gw: TestGateway;
let merchantId: string;
let otherMerchant: string;
beforeAll(async () => {
  gw = await startTestGateway();
  merchantId = (await gw.merchant()).credentials.merchant_id;
  otherMerchant = (await gw.merchant()).credentials.merchant_id;
});
afterAll(() => gw?.close());

const verify = () => runCommand(['audit', 'verify', '--json'], gw.gateway.deps);
const rows = (where = '') => gw.database.query<{ seq: string; action: string; outcome: string; email: string; merchant_id: string | null }>(`SELECT * FROM portal_audit_log ${where} ORDER BY seq`);

describe('the audit log', () => {
  it('records sign-ins, refusals and member changes with who, what, when, where and the outcome, in one intact chain', async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    const client = await signIn(gw, owner);
    await client.post('/portal/sign-in', { email: owner.email, password: 'wrong password!!' });
    const mine = await rows(`WHERE merchant_id = '${merchantId}'`);
    expect(mine.map((row) => `${row.action}:${row.outcome}`)).toEqual(
      expect.arrayContaining(['member.create:ok', 'sign-in.password:ok', 'second-factor.enrol:ok', 'sign-in:refused']),
    );
    const [created] = await gw.database.query<{ email: string; ip: string; at: Date; target: string }>(`SELECT * FROM portal_audit_log WHERE action = 'member.create' AND target LIKE '${owner.userId}%'`);
    expect(created).toMatchObject({ email: 'cli', ip: 'cli', target: `${owner.userId} ${owner.email}` });
    const answer = await verify();
    expect(answer.exitCode).toBe(0);
    expect(JSON.parse(answer.stdout)).toMatchObject({ ok: true });
  });

  it('refuses UPDATE, DELETE and TRUNCATE, even from the database superuser', async () => {
    await createMember(gw, merchantId, 'viewer');
    for (const statement of ["UPDATE portal_audit_log SET outcome = 'ok'", 'DELETE FROM portal_audit_log', 'TRUNCATE portal_audit_log']) {
      await expect(gw.database.query(statement)).rejects.toThrow(/append-only/);
    }
    expect((await verify()).exitCode).toBe(0);
  });

  it('names the first row a superuser changed with the trigger disabled', async () => {
    await createMember(gw, merchantId, 'viewer');
    const before = await rows();
    const target = before[Math.floor(before.length / 2)]!;
    await gw.database.transaction(async (query) => {
      await query("SET LOCAL session_replication_role = 'replica'");
      await query(`UPDATE portal_audit_log SET email = 'someone-else@shop.example' WHERE seq = $1`, [target.seq]);
    });
    const answer = await verify();
    expect(answer.exitCode).toBe(1);
    expect(JSON.parse(answer.stdout)).toMatchObject({ ok: false, broken_seq: Number(target.seq) });
    const human = await runCommand(['audit', 'verify'], gw.gateway.deps);
    expect(human.stdout).toContain(`broken at row ${target.seq}: its content does not match its hash`);
    // Put back, so the other tests see an intact chain.
    await gw.database.transaction(async (query) => {
      await query("SET LOCAL session_replication_role = 'replica'");
      await query(`UPDATE portal_audit_log SET email = $2 WHERE seq = $1`, [target.seq, target.email]);
    });
    expect((await verify()).exitCode).toBe(0);
  });

  it('names the row after one deleted by a superuser', async () => {
    await createMember(gw, merchantId, 'viewer');
    const all = await rows();
    const removed = all[1]!;
    const saved = (await gw.database.query(`SELECT * FROM portal_audit_log WHERE seq = $1`, [removed.seq]))[0]!;
    await gw.database.transaction(async (query) => {
      await query("SET LOCAL session_replication_role = 'replica'");
      await query(`DELETE FROM portal_audit_log WHERE seq = $1`, [removed.seq]);
    });
    const answer = JSON.parse((await verify()).stdout);
    expect(answer).toMatchObject({ ok: false, broken_seq: Number(removed.seq) + 1 });
    const columns = Object.keys(saved);
    await gw.database.query(`INSERT INTO portal_audit_log (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`, columns.map((name) => saved[name]));
    expect((await verify()).exitCode).toBe(0);
  });

  it('finds rows removed from the end only against a head kept elsewhere (--expect-last)', async () => {
    await createMember(gw, merchantId, 'viewer');
    const intact = JSON.parse((await verify()).stdout) as { rows: number; last: string };
    expect(intact.last).toMatch(/^[0-9]+:[0-9a-f]{64}$/);
    expect(Number(intact.last.split(':')[0])).toBe(intact.rows);
    const human = await runCommand(['audit', 'verify'], gw.gateway.deps);
    expect(human.stdout).toContain(`last ${intact.last}`);
    const kept = intact.last;
    expect((await runCommand(['audit', 'verify', '--expect-last', kept], gw.gateway.deps)).exitCode).toBe(0);
    const saved = await gw.database.query<Record<string, unknown>>(`SELECT * FROM portal_audit_log WHERE seq = $1`, [intact.rows]);
    await gw.database.transaction(async (query) => {
      await query("SET LOCAL session_replication_role = 'replica'");
      await query(`DELETE FROM portal_audit_log WHERE seq = $1`, [intact.rows]);
    });
    // The shorter chain is whole: only the kept head shows a row is gone.
    expect((await verify()).exitCode).toBe(0);
    const cut = await runCommand(['audit', 'verify', '--expect-last', kept, '--json'], gw.gateway.deps);
    expect(cut.exitCode).toBe(1);
    expect(JSON.parse(cut.stdout)).toMatchObject({ ok: false, broken_seq: intact.rows, reason: `row ${intact.rows} is missing: the log ends at row ${intact.rows - 1}` });
    const columns = Object.keys(saved[0]!);
    await gw.database.query(`INSERT INTO portal_audit_log (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`, columns.map((name) => saved[0]![name]));
    const forged = `${intact.rows}:${'0'.repeat(64)}`;
    expect(JSON.parse((await runCommand(['audit', 'verify', '--expect-last', forged, '--json'], gw.gateway.deps)).stdout)).toMatchObject({ ok: false, reason: 'its hash is not the one kept' });
    const bad = await runCommand(['audit', 'verify', '--expect-last', '12:abc'], gw.gateway.deps);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('is not <seq>:<hash>');
    expect((await runCommand(['audit', 'verify', '--expect-last', kept], gw.gateway.deps)).exitCode).toBe(0);
  });

  it('appends one row per action under N concurrent writers, with no gap or fork in the chain', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, () => createMember(gw, merchantId, 'viewer')));
    expect(results).toHaveLength(12);
    const all = await rows();
    expect(all.map((row) => Number(row.seq))).toEqual(all.map((_, i) => i + 1));
    expect((await verify()).exitCode).toBe(0);
  });

  it("shows the owner its own merchant's rows only, and exports them with formulas neutralised", async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    // A member whose address a spreadsheet would take for a formula signs in: the row's first cell.
    await signIn(gw, await createMember(gw, merchantId, 'viewer', { email: '=HYPERLINK("x")@shop.example' }));
    const stranger = await createMember(gw, otherMerchant, 'viewer');
    const client = await signIn(gw, owner);
    const page = await client.get('/portal/audit');
    expect(page.status).toBe(200);
    expect(page.body).toContain(owner.email);
    expect(page.body).not.toContain(stranger.email);
    expect(page.body).toContain('=HYPERLINK(&quot;x&quot;)@shop.example');
    const filtered = await client.get(`/portal/audit?email=${encodeURIComponent(owner.email)}`);
    expect(filtered.body).not.toContain('HYPERLINK');
    const csv = await client.get('/portal/audit/export');
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.body).toContain(`"'=HYPERLINK(""x"")@shop.example`);
    expect(csv.body).not.toContain(stranger.email);
    expect((await rows(`WHERE action = 'audit.export'`)).length).toBe(1);
  });

  it.each(['admin', 'operator', 'viewer'] as const)('refuses the audit log to a %s', async (role) => {
    const member = await createMember(gw, merchantId, role);
    const client = await signIn(gw, member);
    expect((await client.get('/portal/audit')).status).toBe(403);
    expect((await client.get('/portal/audit/export')).status).toBe(403);
  });
});

describe.runIf(TEST_DB === 'postgres')('the audit log on PostgreSQL, as a gateway role that is not a superuser', () => {
  const suffix = randomBytes(4).toString('hex');
  const role = `acquiro_gw_${suffix}`;
  const schema = `gw_${suffix}`;
  let admin: pg.Client;
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`CREATE ROLE ${role} LOGIN CREATEROLE`);
    await admin.query(`CREATE SCHEMA ${schema} AUTHORIZATION ${role}`);
  });
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.query(`DROP OWNED BY ${role}`);
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
  });

  it('runs the migrations, then may INSERT and SELECT but not UPDATE or DELETE, trigger or no trigger', async () => {
    const url = new URL(POSTGRES_URL);
    url.username = role;
    const database = await openDatabase({ url: url.href, searchPath: schema, poolSize: 2 });
    try {
      await migrate(database);
      const [owner] = await database.query<{ owner: string }>(`SELECT tableowner AS owner FROM pg_tables WHERE schemaname = $1 AND tablename = 'portal_audit_log'`, [schema]);
      expect(owner!.owner).toBe('acquiro_audit_owner');
      await database.query(`INSERT INTO portal_audit_log (seq, at, email, action, outcome, ip, prev_hash, hash) VALUES (1, now(), 'x', 'test', 'ok', 'cli', 'p', 'h')`);
      expect(await database.query('SELECT seq FROM portal_audit_log')).toHaveLength(1);
      await expect(database.query(`UPDATE portal_audit_log SET outcome = 'failed'`)).rejects.toThrow(/permission denied/);
      await expect(database.query('DELETE FROM portal_audit_log')).rejects.toThrow(/permission denied/);
      await expect(database.query('TRUNCATE portal_audit_log')).rejects.toThrow(/permission denied/);
      // Nor can it disable the trigger or give itself the owner's rights back. (As the schema's
      // owner it could still drop the whole table: docs/portal.md says how to run without that.)
      await expect(database.query('ALTER TABLE portal_audit_log DISABLE TRIGGER portal_audit_log_append_only')).rejects.toThrow(/must be owner/);
      await expect(database.query('SET ROLE acquiro_audit_owner')).rejects.toThrow(/permission denied/);
      const [member] = await database.query<{ member: boolean }>(`SELECT pg_has_role(current_user, 'acquiro_audit_owner', 'MEMBER') AS member`);
      expect(member!.member).toBe(false);
    } finally {
      await database.close();
    }
  });
});
