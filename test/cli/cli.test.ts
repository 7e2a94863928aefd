// The `acquiro` command as operators use it: on the database a server uses, with or without that
// server running, never corrupting an embedded data directory (docs/notifications.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign } from '../../src/domain/signature.ts';
import { cardPayment } from '../support/fixtures.ts';
import { existsSync } from 'node:fs';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../support/gateway.ts';
import { moduleLog } from '../support/loaded-modules.ts';
import { acquiro, initialisedDataDir, migratedDataDir, startServer, tempDataDir, type RunningServer } from '../support/processes.ts';

let db: TestDatabase | undefined;
let env: Record<string, string>;
// One server on the tests' database, started by the first test that needs one (after what must
// happen without it) and kept for the rest; it stops cleanly at the end.
let running: RunningServer | undefined;
const server = async () => (running ??= await startServer(env));

beforeAll(async () => {
  if (TEST_DB === 'postgres') {
    db = await openTestDatabase(2);
    env = db.env;
  } else {
    // An empty database, not migrated (the first test's commands migrate it); a directory that does
    // not exist yet is the migrate test's.
    env = { ACQUIRO_DATA_DIR: await initialisedDataDir() };
  }
});
afterAll(async () => {
  if (running) expect(await running.stop()).toBe(0);
  await db?.drop();
});

const json = (text: string) => JSON.parse(text) as Record<string, string>;

describe('acquiro migrate', () => {
  // The command's own opening of the database migrated it first, so the command found nothing left
  // to apply and said "the database is up to date" of a database it had just created.
  it('names the migrations it applied to an empty database, then says it is up to date', async () => {
    const own = TEST_DB === 'postgres' ? await openTestDatabase(2) : undefined;
    try {
      const fresh = own ? own.env : { ACQUIRO_DATA_DIR: tempDataDir() };
      const first = await acquiro(['migrate', '--json'], fresh);
      expect([first.code, first.stderr]).toEqual([0, '']);
      const { applied } = JSON.parse(first.stdout) as { applied: string[] };
      expect(applied[0]).toBe('0001_core');
      expect(applied).toEqual([...applied].sort());
      const again = await acquiro(['migrate'], fresh);
      expect([again.code, again.stdout]).toEqual([0, 'the database is up to date\n']);
    } finally {
      await own?.drop();
    }
  });
});

describe('acquiro without a running server', () => {
  it('migrates an empty database, creates a merchant and prints its credentials as JSON', async () => {
    const run = await acquiro(['merchants', 'create', '--name', 'Shop', '--capture-mode', 'manual', '--json'], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(json(run.stdout)).toEqual({
      merchant_id: expect.stringMatching(/^M\d+$/),
      account_id: expect.stringMatching(/^A\d+$/),
      secret_key: expect.stringMatching(/^sk_test_/),
    });
    // Without --capture-mode, approved card payments are captured at once (auto).
    const plain = await acquiro(['merchants', 'create', '--name', 'Plain shop', '--json'], env);
    const list = await acquiro(['merchants', 'list', '--json'], env);
    expect(JSON.parse(list.stdout)).toContainEqual(expect.objectContaining({ merchant_id: json(run.stdout).merchant_id, capture_mode: 'manual' }));
    expect(JSON.parse(list.stdout)).toContainEqual(expect.objectContaining({ merchant_id: json(plain.stdout).merchant_id, capture_mode: 'auto' }));
  });

  // On PostgreSQL the command's host and the database's are apart. (On the embedded database a
  // command runs inside the server that owns the data directory, or is itself the database's host.)
  it.runIf(TEST_DB === 'postgres')("starts a rotated key's grace period on the database's clock, not the command host's", async () => {
    const created = json((await acquiro(['merchants', 'create', '--name', 'Skewed', '--json'], env)).stdout);
    const ids = ['--merchant-id', created.merchant_id!, '--account-id', created.account_id!];
    const rotated = json((await acquiro(['keys', 'rotate', ...ids, '--json'], { ...env, ...hostClockAhead(2 * 3_600_000) })).stdout);
    const expiresAt = new Date(rotated.previous_key_expires_at!).getTime();
    expect(Math.abs(expiresAt - (Date.now() + 24 * 3_600_000))).toBeLessThan(60_000);
  });

  it('revokes the previous keys for every process at once, whatever the clock of the host it runs on', async () => {
    const created = json((await acquiro(['merchants', 'create', '--name', 'Leaked', '--json'], env)).stdout);
    const ids = ['--merchant-id', created.merchant_id!, '--account-id', created.account_id!];
    const rotated = json((await acquiro(['keys', 'rotate', ...ids, '--json'], env)).stdout);
    // Revoked from a host whose clock runs two hours ahead of the gateway's.
    const revoked = await acquiro(['keys', 'revoke', ...ids, '--json'], { ...env, ...hostClockAhead(2 * 3_600_000) });
    expect([revoked.code, JSON.parse(revoked.stdout)]).toEqual([0, { merchant_id: created.merchant_id, account_id: created.account_id, revoked: 1 }]);

    // A server started after the revocation (the tests' server, kept for the commands beside it below).
    const { url } = await server();
    const pay = async (secret: string) => {
      const body = cardPayment({ merchant_id: created.merchant_id!, account_id: created.account_id! });
      const response = await fetch(`${url}/v1/authorise`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, encryption_data: sign(body as never, secret) }),
      });
      return response.status;
    };
    expect(await pay(created.secret_key!)).toBe(401);
    expect(await pay(rotated.secret_key!)).toBe(200);
  });
});

/** The environment of a command run on a host whose clock is `ms` ahead (test/support/host-clock-skew.ts). */
function hostClockAhead(ms: number): Record<string, string> {
  return { NODE_OPTIONS: `--import=${new URL('../support/host-clock-skew.ts', import.meta.url).pathname}`, ACQUIRO_TEST_HOST_CLOCK_SKEW_MS: String(ms) };
}

// Neither opens the project's database, so they run once.
describe.runIf(TEST_DB === 'pglite')('acquiro before any database', () => {
  it('refuses bad arguments with a message and a non-zero exit, before opening a database', async () => {
    // A PostgreSQL where nothing listens, and a data directory that cannot be made: a refusal touches neither.
    const nowhere = `${tempDataDir()}/never-created`;
    const databases: Record<string, string>[] = [{ DATABASE_URL: 'postgresql://acquiro@127.0.0.1:1/acquiro' }, { ACQUIRO_DATA_DIR: nowhere }];
    for (const database of databases) {
      const [mode, cidr, clock] = await Promise.all([
        acquiro(['merchants', 'create', '--name', 'X', '--capture-mode', 'sometimes'], database),
        acquiro(['ips', 'add', '--merchant-id', 'M1', '--account-id', 'A1', '--cidr', 'nowhere'], database),
        acquiro(['clock', 'advance'], database),
      ]);
      expect([mode.code, mode.stderr]).toEqual([2, expect.stringMatching(/^error: option '--capture-mode <mode>' argument 'sometimes' is invalid/)]);
      expect([cidr.code, cidr.stderr]).toEqual([2, 'error: --cidr nowhere is not an IP address or CIDR block\n']);
      expect([clock.code, clock.stderr]).toEqual([2, 'error: say how far: --days N or --hours N (positive whole numbers)\n']);
      // Values whose shape alone is wrong were judged only after the database was opened (and an
      // empty one created and migrated), with exit 1; an empty name made a nameless merchant.
      const [rate, pair, retries, name] = await Promise.all([
        acquiro(['fx', 'set', '--from', 'USD', '--to', 'EUR', '--rate', '0.9.2'], database),
        acquiro(['fx', 'set', '--from', 'USD', '--to', 'USD', '--rate', '1'], database),
        acquiro(['accounts', 'dunning', 'set', '--merchant-id', 'M1', '--account-id', 'A1', '--retry-days', '7,3'], database),
        acquiro(['merchants', 'create', '--name', ' '], database),
      ]);
      expect([rate.code, rate.stderr]).toEqual([2, 'error: --rate 0.9.2 is not a positive decimal such as 0.9213\n']);
      expect([pair.code, pair.stderr]).toEqual([2, 'error: --from and --to are both USD: a rate is between two different currencies\n']);
      expect([retries.code, retries.stderr]).toEqual([2, 'error: --retry-days 7,3 must be up to 10 ascending whole days from 1 to 366, such as 1,3,7\n']);
      expect([name.code, name.stderr]).toEqual([2, 'error: --name must not be empty\n']);
      // Out of the column's range: the database's failed INSERT, its statement and parameters, was printed.
      const [limit, fee] = await Promise.all([
        acquiro(['merchants', 'create', '--name', 'X', '--rate-limit', '99999999999'], database),
        acquiro(['accounts', 'create', '--merchant-id', 'M1', '--fee-bps', '10001'], database),
      ]);
      expect([limit.code, limit.stderr]).toEqual([2, 'error: --rate-limit must be a whole number from 1 to 9999999\n']);
      expect([fee.code, fee.stderr]).toEqual([2, 'error: --fee-bps must be a whole number from 0 to 10000\n']);
      // A name shown on the hosted page has a length a page can show: 100 characters.
      const [merchantName, accountName] = await Promise.all([
        acquiro(['merchants', 'create', '--name', 'x'.repeat(101)], database),
        acquiro(['accounts', 'create', '--merchant-id', 'M1', '--name', '店'.repeat(101)], database),
      ]);
      expect([merchantName.code, merchantName.stderr]).toEqual([2, 'error: --name must be at most 100 characters\n']);
      expect([accountName.code, accountName.stderr]).toEqual([2, 'error: --name must be at most 100 characters\n']);
    }
    expect(existsSync(nowhere)).toBe(false);
  });

  it('stops a live start without PostgreSQL or vault keys, naming the variable', async () => {
    const run = await acquiro(['merchants', 'list'], { ACQUIRO_MODE: 'live', ACQUIRO_DATA_DIR: tempDataDir() });
    expect([run.code, run.stderr]).toEqual([78, 'acquiro: DATABASE_URL is required in live mode: the embedded database is for the sandbox only\n']);
  });

  it('prints every command without opening a database', async () => {
    const run = await acquiro(['--help'], { ACQUIRO_DATA_DIR: '/nonexistent/never-created' });
    expect(run.code).toBe(0);
    for (const command of ['merchants', 'accounts', 'keys', 'ips', 'risk', 'blocklist', 'migrate', 'serve']) expect(run.stdout).toContain(command);
    const rotate = await acquiro(['keys', 'rotate', '--help'], { ACQUIRO_DATA_DIR: '/nonexistent/never-created' });
    expect(rotate.stdout).toMatch(/ACQUIRO_KEY_GRACE_HOURS/);
  });
});

describe('acquiro beside a running server', () => {
  beforeAll(() => server());

  it('works through the server, and what it creates can pay at once', async () => {
    const { url } = await server();
    const [one, two] = await Promise.all([
      acquiro(['merchants', 'create', '--name', 'Live one', '--json'], env),
      acquiro(['merchants', 'create', '--name', 'Live two', '--json'], env),
    ]);
    expect([one.code, two.code]).toEqual([0, 0]);
    if (TEST_DB === 'pglite') {
      // Run inside the server that owns the data directory: this process loads no use case, no database.
      const log = moduleLog();
      const listed = await acquiro(['merchants', 'list', '--json'], { ...env, ...log.env });
      expect(JSON.parse(listed.stdout)).toContainEqual(expect.objectContaining({ merchant_id: json(one.stdout).merchant_id }));
      expect(log.loaded()).toContain('src/db/ownership.ts');
      // (Every use case reads and writes through drizzle-orm; TypeBox, some 680 modules, is the HTTP requests'.)
      expect(log.loaded().filter((path) => /^(src\/gateway\.ts|src\/db\/client\.ts|node_modules\/(drizzle-orm|@electric-sql|typebox)\/)/.test(path))).toEqual([]);
    }
    const credentials = json(one.stdout);
    const body = cardPayment({ merchant_id: credentials.merchant_id!, account_id: credentials.account_id! });
    const response = await fetch(`${url}/v1/authorise`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, encryption_data: sign(body as never, credentials.secret_key!) }),
    });
    expect(await response.text()).toContain('<result_info>0000:Success</result_info>');
  });

  it.runIf(TEST_DB === 'pglite')('refuses a second server on the same data directory, and keeps the first one whole', async () => {
    const first = await server();
    const second = await startServer(env).then(
      (s) => s.stop().then(() => 'started'),
      (error: Error) => error.message,
    );
    expect(second).toMatch(/is in use by another acquiro process/);
    expect((await fetch(`${first.url}/health`)).status).toBe(200);
    expect((await acquiro(['merchants', 'list', '--json'], env)).code).toBe(0);
  });

  // Query IPs and keys as without a server (on PostgreSQL a command opens the database either way;
  // on the embedded one it runs inside the server, for a fraction of the CPU of opening it).
  it('registers, lists and removes query IPs', async () => {
    const created = json((await acquiro(['merchants', 'create', '--name', 'Ips', '--json'], env)).stdout);
    const ids = ['--merchant-id', created.merchant_id!, '--account-id', created.account_id!];
    expect((await acquiro(['ips', 'add', ...ids, '--cidr', '127.0.0.1/32'], env)).stdout).toBe('added 127.0.0.1/32\n');
    expect((await acquiro(['ips', 'add', ...ids, '--cidr', '10.1.2.3'], env)).stdout).toBe('added 10.1.2.3/32\n');
    const listed = JSON.parse((await acquiro(['ips', 'list', ...ids, '--json'], env)).stdout) as { cidr: string }[];
    expect(listed.map((r) => r.cidr)).toEqual(['10.1.2.3/32', '127.0.0.1/32']);
    expect((await acquiro(['ips', 'remove', ...ids, '--cidr', '10.1.2.3/32'], env)).stdout).toBe('removed 10.1.2.3/32\n');
  });

  it("refuses an account that is not the merchant's", async () => {
    const account = await acquiro(['ips', 'add', '--merchant-id', 'M1', '--account-id', 'A1', '--cidr', '127.0.0.1'], env);
    expect([account.code, account.stderr]).toEqual([1, 'error: no account A1 under merchant M1\n']);
  });

  it('rotates a key and prints until when the old one works', async () => {
    const created = json((await acquiro(['merchants', 'create', '--name', 'Keys', '--json'], env)).stdout);
    const rotated = json((await acquiro(['keys', 'rotate', '--merchant-id', created.merchant_id!, '--account-id', created.account_id!, '--json'], env)).stdout);
    expect(rotated.secret_key).not.toBe(created.secret_key);
    expect(new Date(rotated.previous_key_expires_at!).getTime()).toBeGreaterThan(Date.now() + 23 * 3_600_000);
  });

  it('prints a demo merchant on the first start of an empty database only', async () => {
    const other = TEST_DB === 'postgres' ? await openTestDatabase(2) : undefined;
    const fresh = other?.env ?? { ACQUIRO_DATA_DIR: await migratedDataDir() };
    try {
      const first = await startServer(fresh);
      await first.stop();
      expect(first.output()).toMatch(/merchant_id M\d+\n {2}account_id {2}A\d+\n {2}secret_key {2}sk_test_/);
      const second = await startServer(fresh);
      await second.stop();
      expect(second.output()).not.toContain('demo merchant');
    } finally {
      await other?.drop();
    }
  });
});
