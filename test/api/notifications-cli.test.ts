// `acquiro notifications list|show|replay`, run in-process against the gateway's database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverDueNotifications } from '../../src/app/notifications/deliver.ts';
import { runCommand } from '../../src/cli/commands.ts';
import type { SignedClient } from '../support/client.ts';
import { cardPayment } from '../support/fixtures.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

let gw: TestGateway;
let shop: SignedClient;
let other: SignedClient;
let receiver: Receiver;
const clock = new FakeClock();
const ids = { delivered: '', failing: '', silent: '', theirs: '' };

const acquiro = (...argv: string[]) => runCommand(argv, gw.gateway.deps);
const json = async (...argv: string[]) => {
  const result = await acquiro(...argv, '--json');
  expect(result).toMatchObject({ exitCode: 0, stderr: '' });
  return JSON.parse(result.stdout);
};

async function pay(client: SignedClient, overrides: Record<string, unknown>): Promise<string> {
  const answer = await client.post('/v1/authorise', cardPayment(client.ids, overrides));
  const [event] = await gw.database.query<{ id: string }>('SELECT id FROM events WHERE payment_id = $1', [answer.body.transaction_id]);
  return event!.id;
}

beforeAll(async () => {
  gw = await startTestGateway({ clock });
  [shop, other] = [await gw.merchant(), await gw.merchant()];
  receiver = await startReceiver();
  receiver.reply((request) => (request.body.order_no.startsWith('FAIL') ? { status: 500, body: 'nope' } : 200));
  ids.delivered = await pay(shop, { notify_url: receiver.url });
  ids.failing = await pay(shop, { notify_url: receiver.url, order_no: 'FAIL-1', card: '4000000000000002' });
  ids.silent = await pay(shop, {});
  ids.theirs = await pay(other, { notify_url: receiver.url });
  await deliverDueNotifications(gw.gateway.deps);
});
afterAll(async () => {
  await receiver?.close();
  await gw?.close();
});

describe('notifications list', () => {
  it('lists a merchant’s events newest first with their delivery status, and no one else’s', async () => {
    const listed = await json('notifications', 'list', '--merchant-id', shop.ids.merchant_id);
    expect(listed.map((n: any) => [n.notify_id, n.notify_type, n.status, n.attempts])).toEqual([
      [ids.silent, 'payment.captured', 'no_target', 0],
      [ids.failing, 'payment.failed', 'pending', 1],
      [ids.delivered, 'payment.captured', 'delivered', 1],
    ]);
    expect(listed[1].next_attempt_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('filters by account, by status, and pages with --limit and --before', async () => {
    expect((await json('notifications', 'list', '--account-id', other.ids.account_id)).map((n: any) => n.notify_id)).toEqual([ids.theirs]);
    const failing = await json('notifications', 'list', '--status', 'pending', '--merchant-id', shop.ids.merchant_id);
    expect(failing.map((n: any) => n.notify_id)).toEqual([ids.failing]);
    const first = await json('notifications', 'list', '--merchant-id', shop.ids.merchant_id, '--limit', '1');
    const next = await json('notifications', 'list', '--merchant-id', shop.ids.merchant_id, '--limit', '1', '--before', first[0].notify_id);
    expect([first[0].notify_id, next[0].notify_id]).toEqual([ids.silent, ids.failing]);
  });

  it('prints a table for people', async () => {
    const { stdout, exitCode } = await acquiro('notifications', 'list', '--account-id', other.ids.account_id);
    expect(exitCode).toBe(0);
    expect(stdout).toMatch(/^notify_id\s+notify_type\s+account_id\s+transaction_id\s+status\s+attempts/);
    expect(stdout).toContain(ids.theirs);
  });

  it("refuses an account that is not the merchant's, an unknown one, and a --before that names no event", async () => {
    const mixed = await acquiro('notifications', 'list', '--merchant-id', shop.ids.merchant_id, '--account-id', other.ids.account_id);
    expect([mixed.exitCode, mixed.stdout, mixed.stderr]).toEqual([1, '', `error: no account ${other.ids.account_id} under merchant ${shop.ids.merchant_id}\n`]);
    const account = await acquiro('notifications', 'list', '--account-id', 'A999999');
    expect([account.exitCode, account.stderr]).toEqual([1, 'error: no account A999999\n']);
    const merchant = await acquiro('notifications', 'list', '--merchant-id', 'M999999');
    expect([merchant.exitCode, merchant.stderr]).toEqual([1, 'error: no merchant M999999\n']);
    // A mistyped cursor would otherwise list from the newest again, as if it were the next page.
    const before = await acquiro('notifications', 'list', '--merchant-id', shop.ids.merchant_id, '--before', 'EV-not-an-event');
    expect([before.exitCode, before.stdout, before.stderr]).toEqual([1, '', 'error: --before EV-not-an-event is no notification\n']);
  });

  it('refuses an unknown status or a bad limit', async () => {
    const status = await acquiro('notifications', 'list', '--status', 'lost');
    const limit = await acquiro('notifications', 'list', '--limit', '0');
    expect(status.exitCode).not.toBe(0);
    expect(status.stderr).toContain('Allowed choices are pending, delivered, failed, no_target');
    expect([limit.exitCode, limit.stderr]).toEqual([2, 'error: --limit must be a positive integer\n']);
    // Past the most a list prints, refused rather than cut down to a page the operator takes for all.
    const tooMany = await acquiro('notifications', 'list', '--limit', '5000');
    expect([tooMany.exitCode, tooMany.stdout, tooMany.stderr]).toEqual([2, '', 'error: --limit must be at most 1000\n']);
  });
});

describe('notifications show', () => {
  it('shows the recorded body and every attempt', async () => {
    const shown = await json('notifications', 'show', ids.failing);
    expect(shown).toMatchObject({ notify_id: ids.failing, status: 'pending', payload: { order_no: 'FAIL-1', result_info: '2001:Declined' } });
    expect(shown.attempts).toEqual([
      expect.objectContaining({ attempt: 1, trigger: 'schedule', outcome: 'failed', http_status: 500, response_excerpt: 'nope', started_at: clock.now().toISOString() }),
    ]);
    const human = await acquiro('notifications', 'show', ids.failing);
    expect(human.stdout).toMatch(/attempt\s+trigger\s+started_at\s+outcome\s+http_status\s+latency_ms\s+error/);
  });

  it('says so for an unknown notify_id', async () => {
    expect(await acquiro('notifications', 'show', 'EV00000000000000000000000000')).toEqual({
      stdout: '',
      stderr: 'error: no notification EV00000000000000000000000000\n',
      exitCode: 1,
    });
  });
});

describe('notifications replay', () => {
  it('sends the event again and reports the answer', async () => {
    const before = receiver.received.length;
    const replayed = await json('notifications', 'replay', ids.delivered);
    expect(replayed).toMatchObject({ notifyId: ids.delivered, attempt: 2, outcome: 'delivered', httpStatus: 200, status: 'delivered' });
    expect(receiver.received.slice(before).map((r) => r.body.notify_id)).toEqual([ids.delivered]);
  });

  it('exits 1 when the receiver still refuses, with the next attempt scheduled', async () => {
    const result = await acquiro('notifications', 'replay', ids.failing);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(new RegExp(`^${ids.failing} attempt 2: failed, HTTP 500 in \\d+ ms; next attempt at `));
    expect(result.stderr).toBe(`error: ${ids.failing} was not acknowledged\n`);
  });

  it('refuses an event with no notify_url and an unknown one', async () => {
    expect(await acquiro('notifications', 'replay', ids.silent)).toMatchObject({ exitCode: 1, stderr: `error: ${ids.silent} has no notify_url: there is nowhere to send it\n` });
    expect(await acquiro('notifications', 'replay', 'EV0')).toMatchObject({ exitCode: 1, stderr: 'error: no notification EV0\n' });
  });
});
