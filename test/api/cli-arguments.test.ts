// Refusals of a command's arguments name the option they are about, so an operator sees which of
// several to fix (docs/operations.md): exit 2 for a bad value, 1 for what the database does not hold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let merchantId: string;
beforeAll(async () => {
  gw = await startTestGateway();
  merchantId = (await gw.merchant()).credentials.merchant_id;
});
afterAll(() => gw?.close());

const acquiro = (...argv: string[]) => runCommand(argv, gw.gateway.deps);
const members = async () => (await gw.database.query<{ n: number }>('SELECT count(*)::int AS n FROM portal_users'))[0]!.n;

describe('acquiro users', () => {
  it.each([
    [['create', '--email', 'not-an-address', '--role', 'viewer'], 2, /^error: --email not-an-address: enter an e-mail address/],
    [['create', '--email', 'ana@shop.example', '--role', 'god'], 2, /^error: --role god: the role is one of owner, admin, operator, viewer\n$/],
  ])('users %j names the option it refuses, exit %i, nothing created', async (args, exitCode, message) => {
    const before = await members();
    const run = await acquiro('users', ...args.slice(0, 1), '--merchant-id', merchantId, ...args.slice(1));
    expect([run.exitCode, run.stdout]).toEqual([exitCode, '']);
    expect(run.stderr).toMatch(message);
    expect(await members()).toBe(before);
  });

  it('names the password read with --password-stdin, never the password', async () => {
    const run = await runCommand(['users', 'create', '--merchant-id', merchantId, '--email', 'bo@shop.example', '--role', 'viewer', '--password-stdin'], gw.gateway.deps, {
      stdin: async () => 'shortpw\n',
    });
    expect([run.exitCode, run.stdout]).toEqual([2, '']);
    expect(run.stderr).toMatch(/^error: --password-stdin: a password has at least 12 characters/);
    expect(run.stderr).not.toContain('shortpw');
  });

  it.each([
    [['reset', '--email', 'nobody@shop.example'], 'error: no member with --email nobody@shop.example\n'],
    [['disable', '--user-id', 'PU00000000000000000000000000'], 'error: no member with --user-id PU00000000000000000000000000\n'],
    [['role', '--user-id', 'PU00000000000000000000000000', '--role', 'viewer'], 'error: no member with --user-id PU00000000000000000000000000\n'],
  ])('users %j names the member it did not find, exit 1', async (args, message) => {
    const run = await acquiro('users', ...args);
    expect([run.exitCode, run.stdout, run.stderr]).toEqual([1, '', message]);
  });
});

describe('acquiro users disable|reset|role naming a member twice', () => {
  // --user-id won and --email was ignored: `disable --user-id <one> --email <another>` disabled the
  // first, whichever the operator meant.
  it.each([[['disable']], [['reset']], [['role', '--role', 'viewer']]])('users %j refuses --user-id with --email: exit 2, nobody changed', async (args) => {
    const first = await runCommand(['users', 'create', '--merchant-id', merchantId, '--email', `one.${args[0]}@shop.example`, '--role', 'operator', '--json'], gw.gateway.deps);
    const second = await runCommand(['users', 'create', '--merchant-id', merchantId, '--email', `two.${args[0]}@shop.example`, '--role', 'operator', '--json'], gw.gateway.deps);
    const one = JSON.parse(first.stdout) as { user_id: string };
    const rows = async () => [
      await gw.database.query('SELECT id, role, status, updated_at FROM portal_users ORDER BY id'),
      await gw.database.query('SELECT count(*)::int AS n FROM portal_links'),
    ];
    const before = await rows();
    expect(second.exitCode).toBe(0);
    const run = await acquiro('users', ...args.slice(0, 1), '--user-id', one.user_id, '--email', `two.${args[0]}@shop.example`, ...args.slice(1));
    expect([run.exitCode, run.stdout]).toEqual([2, '']);
    expect(run.stderr).toMatch(/^error: option '--(user-id|email) <[a-z]+>' cannot be used with option '--(email|user-id) <[a-z]+>'\n$/);
    expect(await rows()).toEqual(before);
  });
});

describe('a group of commands named without one of them', () => {
  // It printed the group's help on stderr with exit 1, the code of a refusal by the database's
  // content, though nothing was asked of the database: a usage error is 2.
  it.each([[['merchants']], [['accounts', 'fees']], [['help', 'no-such-command']]])('acquiro %j prints the help on stderr, exit 2', async (argv) => {
    const run = await acquiro(...argv);
    expect([run.exitCode, run.stdout]).toEqual([2, '']);
    expect(run.stderr).toMatch(/^Usage: acquiro /);
  });

  it('acquiro help merchants prints the help on stdout, exit 0', async () => {
    const run = await acquiro('help', 'merchants');
    expect([run.exitCode, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toMatch(/^Usage: acquiro merchants /);
  });
});

describe('help as the docs say it', () => {
  // The allow-list admits the refund search too (docs/api/refund-search.md); the help named the query alone.
  it('acquiro ips --help names both operations its addresses may call', async () => {
    for (const argv of [['--help'], ['ips', '--help']]) {
      const run = await acquiro(...argv);
      expect(run.stdout.replace(/\s+/g, ' ')).toContain('IP addresses allowed to call the query and refund search operations');
    }
  });
});

describe('acquiro sign', () => {
  // --signature-only won and --canonical was ignored: a script asking for one of them got the other.
  it('refuses --signature-only with --canonical: exit 2, nothing printed', async () => {
    process.env.ACQUIRO_SECRET_KEY = 'sk_test_4f3c2b1a'; // sign reads the key from the environment
    const run = await runCommand(['sign', '--signature-only', '--canonical'], gw.gateway.deps, { stdin: async () => '{"order_no":"X"}' }).finally(() => {
      delete process.env.ACQUIRO_SECRET_KEY;
    });
    expect([run.exitCode, run.stdout]).toEqual([2, '']);
    expect(run.stderr).toMatch(/^error: option '--(signature-only|canonical)' cannot be used with option '--(canonical|signature-only)'\n$/);
  });
});

describe('acquiro blocklist add', () => {
  // A value no payment can carry is an invalid argument (exit 2, docs/operations.md), refused before
  // the database is opened; it was refused by the use case with exit 1, the code of a refusal by
  // the database's content, and the BIN's message did not name --value.
  it.each([
    ['email', 'not-an-address', 'error: --value not-an-address is not an email address\n'],
    ['bin', '41x', 'error: --value 41x is not a BIN: 6 to 8 digits\n'],
    ['country', 'XX', 'error: --value XX is not an ISO 3166 two-letter country code\n'],
    ['ip', '203.0.113.300', 'error: --value 203.0.113.300 is not an IPv4 or IPv6 address\n'],
  ])('refuses a %s of %s: exit 2, naming --value, nothing stored', async (kind, value, message) => {
    const entries = async () => (await gw.database.query<{ n: number }>('SELECT count(*)::int AS n FROM risk_blocklist'))[0]!.n;
    const before = await entries();
    const run = await acquiro('blocklist', 'add', '--kind', kind, '--value', value);
    expect([run.exitCode, run.stdout, run.stderr]).toEqual([2, '', message]);
    expect(await entries()).toBe(before);
    expect((await runCommand(['blocklist', 'add', '--kind', kind, '--value', value], async () => Promise.reject(new Error('opened the database')))).exitCode).toBe(2);
  });
});
