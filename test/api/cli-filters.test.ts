// The list commands' filters by merchant and account, through `acquiro`: a filter that names no
// merchant, no account, or another merchant's account is a mistake (a typo, the wrong
// environment), refused with exit 1 naming it, never listed as "nothing matches" (exit 0), which
// an operator would take for "no payment" (docs/operations.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import type { SignedClient } from '../support/client.ts';
import { cardPayment } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let mine: SignedClient;
let theirs: SignedClient;

beforeAll(async () => {
  gw = await startTestGateway();
  [mine, theirs] = [await gw.merchant(), await gw.merchant()];
  expect((await mine.post('/v1/authorise', cardPayment(mine.ids))).status).toBe(200);
  expect((await theirs.post('/v1/authorise', cardPayment(theirs.ids))).status).toBe(200);
});
afterAll(() => gw?.close());

const acquiro = (...argv: string[]) => runCommand(argv, gw.gateway.deps);

describe('acquiro payments list', () => {
  it('lists what a merchant and its account filter name', async () => {
    const run = await acquiro('payments', 'list', '--merchant-id', mine.ids.merchant_id, '--account-id', mine.ids.account_id, '--json');
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout).map((p: { account_id: string }) => p.account_id)).toEqual([mine.ids.account_id]);
  });

  it.each([
    ['an unknown merchant', () => ['--merchant-id', 'M999999'], () => 'no merchant M999999'],
    ['an unknown account', () => ['--account-id', 'A999999'], () => 'no account A999999'],
    [
      'an account of another merchant',
      () => ['--merchant-id', mine.ids.merchant_id, '--account-id', theirs.ids.account_id],
      () => `no account ${theirs.ids.account_id} under merchant ${mine.ids.merchant_id}`,
    ],
  ])('refuses %s: exit 1, the message naming it, nothing on stdout (--json too)', async (_case, filter, message) => {
    for (const json of [[], ['--json']]) {
      const run = await acquiro('payments', 'list', ...filter(), ...json);
      expect([run.exitCode, run.stdout, run.stderr]).toEqual([1, '', `error: ${message()}\n`]);
    }
  });
});

describe('acquiro blocklist list', () => {
  it("lists an account's entries and the gateway-wide ones", async () => {
    expect((await acquiro('blocklist', 'add', '--kind', 'email', '--value', 'fraud@example.com', '--merchant-id', mine.ids.merchant_id, '--account-id', mine.ids.account_id)).exitCode).toBe(0);
    expect((await acquiro('blocklist', 'add', '--kind', 'country', '--value', 'KP')).exitCode).toBe(0);
    const run = await acquiro('blocklist', 'list', '--account-id', mine.ids.account_id, '--json');
    expect(JSON.parse(run.stdout).map((e: { value: string }) => e.value)).toEqual(['KP', 'fraud@example.com']);
  });

  // It listed the gateway-wide entries alone, as if the account had none of its own.
  it('refuses an unknown account: exit 1, naming it, nothing on stdout (--json too)', async () => {
    for (const json of [[], ['--json']]) {
      const run = await acquiro('blocklist', 'list', '--account-id', 'A999999', ...json);
      expect([run.exitCode, run.stdout, run.stderr]).toEqual([1, '', 'error: no account A999999\n']);
    }
  });
});

describe('acquiro users list', () => {
  it("lists a merchant's members", async () => {
    expect((await acquiro('users', 'create', '--merchant-id', mine.ids.merchant_id, '--email', 'ana@shop.example', '--role', 'viewer')).exitCode).toBe(0);
    const run = await acquiro('users', 'list', '--merchant-id', mine.ids.merchant_id, '--json');
    expect(JSON.parse(run.stdout).members.map((m: { email: string }) => m.email)).toEqual(['ana@shop.example']);
  });

  // docs/portal.md: an unknown merchant exits 1. It listed no member, exit 0.
  it('refuses an unknown merchant: exit 1, naming it, nothing on stdout (--json too)', async () => {
    for (const json of [[], ['--json']]) {
      const run = await acquiro('users', 'list', '--merchant-id', 'M999999', ...json);
      expect([run.exitCode, run.stdout, run.stderr]).toEqual([1, '', 'error: no merchant M999999\n']);
    }
  });
});
