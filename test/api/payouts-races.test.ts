// /v1/payout under concurrency and across accounts: 20 identical requests make one payout and
// one reservation; a changed repeat is refused and the original stays; payouts racing for one
// balance never take it below zero, and what is reserved is the sum of the accepted payouts;
// another account's payout is neither found nor reachable; concurrent cancels of a scheduled
// payout release it once, and a cancel racing the rail's release on its date leaves one outcome.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drivePayouts } from '../../src/app/payouts/rail.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectLedgerBalanced } from '../support/lifecycle.ts';
import { accountArgs, balanceOf, payoutBody, payoutCount, topUp } from '../support/payouts.ts';

let gw: TestGateway;
const clock = new FakeClock('2026-11-22T10:15:00Z');

beforeAll(async () => {
  // Bursts of 20 and 30 requests make the gateway busy; an account that answered a moment before
  // (the previous test's) would count as competing and the burst would get its fair share (429s),
  // which the limits tests cover. Here the races alone are under test, as in races.test.ts.
  gw = await startTestGateway({ clock, env: { ACQUIRO_BUSY_IN_FLIGHT: '100000' } });
});
afterAll(() => gw?.close());

describe('request_id', () => {
  it('makes 20 concurrent identical requests one payout with one reservation, answered alike', async () => {
    const shop = await gw.merchant();
    await topUp(gw, shop, 'USD', '1000.00');
    const body = payoutBody(shop);
    const answers = await Promise.all(Array.from({ length: 20 }, () => shop.post('/v1/payout', body)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => a.body.transaction_id)).size).toBe(1);
    expect(await payoutCount(gw, shop)).toBe(1);
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '898.50', reserved: '101.50' });
    const [journals] = await gw.database.query<{ n: string }>(`SELECT count(DISTINCT journal_id)::text AS n FROM ledger_entries WHERE reference_id = $1`, [answers[0]!.body.transaction_id]);
    expect(journals!.n).toBe('1');
    await expectLedgerBalanced(gw);
  });

  it('refuses a repeat with changed fields (400 naming request_id), the original untouched', async () => {
    const shop = await gw.merchant();
    await topUp(gw, shop, 'USD', '1000.00');
    const body = payoutBody(shop);
    const first = await shop.post('/v1/payout', body);
    const changed = await shop.post('/v1/payout', { ...body, payment_amount: '200.00' });
    expect(changed.status).toBe(400);
    expect(changed.body.return_message).toMatch(/^4060:request_id .* was already used with different fields/);
    const repeat = await shop.post('/v1/payout', body);
    expect(repeat.body).toMatchObject({ transaction_id: first.body.transaction_id, payment_amount: '100.00', amount_payer_pays: 10_150 });
    expect(await payoutCount(gw, shop)).toBe(1);
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '898.50', reserved: '101.50' });
  });
});

describe('one balance', () => {
  it('is never overdrawn by 30 concurrent payouts: what is reserved is the sum of the accepted ones', async () => {
    const shop = await gw.merchant();
    await topUp(gw, shop, 'USD', '10.00');
    await runCommand(['accounts', 'payout-fees', 'set', ...accountArgs(shop), '--currency', 'USD', '--fixed', '0.10'], gw.gateway.deps);
    const answers = await Promise.all(Array.from({ length: 30 }, () => shop.post('/v1/payout', payoutBody(shop, { payment_amount: '0.90' }))));
    const accepted = answers.filter((a) => a.body.status === 'PROCESSING');
    const refused = answers.filter((a) => a.body.status === 'FAILED');
    expect(accepted).toHaveLength(10);
    expect(refused.every((a) => a.status === 200 && a.body.failure_type === 'INSUFFICIENT_FUNDS')).toBe(true);
    expect(accepted.length + refused.length).toBe(30);
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '0.00', reserved: '10.00' });
    const [reservations] = await gw.database.query<{ sum: string }>(
      `SELECT (-sum(amount))::text AS sum FROM ledger_entries WHERE account_id = $1 AND book = 'merchant_reserved' AND kind = 'payout_reserve'`,
      [shop.ids.account_id],
    );
    expect(Number(reservations!.sum)).toBe(accepted.reduce((sum, a) => sum + a.body.amount_payer_pays, 0));
    await expectLedgerBalanced(gw);
  });
});

describe('cancelling a scheduled payout', () => {
  const releases = async (id: string) =>
    Number((await gw.database.query<{ n: string }>(`SELECT count(DISTINCT journal_id)::text AS n FROM ledger_entries WHERE reference_id = $1 AND kind = 'payout_release'`, [id]))[0]!.n);

  it('10 concurrent cancels: one succeeds, the reservation is released once', async () => {
    const shop = await gw.merchant();
    await topUp(gw, shop, 'USD', '1000.00');
    const scheduled = await shop.post('/v1/payout', payoutBody(shop, { payment_date: '2026-12-01' }));
    expect(scheduled.body.status).toBe('SCHEDULED');
    const runs = await Promise.all(
      Array.from({ length: 10 }, () => runCommand(['payouts', 'cancel', ...accountArgs(shop), '--transaction-id', scheduled.body.transaction_id], gw.gateway.deps)),
    );
    expect(runs.filter((r) => r.exitCode === 0)).toHaveLength(1);
    expect(runs.filter((r) => r.exitCode !== 0).every((r) => /CANCELLED: only a SCHEDULED payout can be cancelled/.test(r.stderr))).toBe(true);
    expect(await releases(scheduled.body.transaction_id)).toBe(1);
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '1000.00', reserved: '0.00' });
    await expectLedgerBalanced(gw);
  });

  it('a cancel racing the release on its payment date: one of them wins, money moved once', async () => {
    const shop = await gw.merchant();
    await topUp(gw, shop, 'USD', '1000.00');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await shop.post('/v1/payout', payoutBody(shop, { payment_date: '2026-11-23' }))).body.transaction_id as string);
    clock.set('2026-11-23T00:00:01Z');
    try {
      const cancels = await Promise.all([
        drivePayouts(gw.gateway.deps),
        ...ids.map((id) => runCommand(['payouts', 'cancel', ...accountArgs(shop), '--transaction-id', id], gw.gateway.deps)),
      ]);
      const cancelled = cancels.slice(1).filter((r) => typeof r === 'object' && r.exitCode === 0).length;
      const [row] = await gw.database.query<{ cancelled: string; released: string }>(
        `SELECT count(*) FILTER (WHERE status = 'CANCELLED')::text AS cancelled, count(*) FILTER (WHERE status <> 'SCHEDULED' AND status <> 'CANCELLED')::text AS released FROM payouts WHERE account_id = $1`,
        [shop.ids.account_id],
      );
      expect(Number(row!.cancelled)).toBe(cancelled);
      expect(Number(row!.cancelled) + Number(row!.released)).toBe(5);
      for (const id of ids) expect(await releases(id)).toBeLessThanOrEqual(1);
      const held = (5 - cancelled) * 101.5;
      const balance = await balanceOf(gw, shop, 'USD');
      // Released payouts are PROCESSING (held) or already COMPLETED (paid out): never both released and paid.
      expect(Number(balance!.available)).toBe(1000 - held);
      await expectLedgerBalanced(gw);
    } finally {
      clock.set('2026-11-22T10:15:00Z');
    }
  });
});

describe('accounts', () => {
  it("keeps each account's request_ids and balances apart, and refuses a body signed for another account", async () => {
    const [mine, theirs] = [await gw.merchant(), await gw.merchant()];
    await topUp(gw, mine, 'USD', '1000.00');
    const body = payoutBody(mine);
    const first = await mine.post('/v1/payout', body);
    // The same request_id is theirs to use too, and pays from their own (empty) balance.
    const other = await theirs.post('/v1/payout', { ...body, ...theirs.ids });
    expect(other.status).toBe(200);
    expect(other.body).toMatchObject({ status: 'FAILED', failure_type: 'INSUFFICIENT_FUNDS' });
    expect(other.body.transaction_id).not.toBe(first.body.transaction_id);
    // Signed with my key but naming their account: refused before anything is read or stored.
    const forged = await mine.post('/v1/payout', { ...body, ...theirs.ids, request_id: crypto.randomUUID() });
    expect(forged.status).toBe(401);
    expect(await payoutCount(gw, theirs)).toBe(1);
    expect(await balanceOf(gw, mine, 'USD')).toEqual({ available: '898.50', reserved: '101.50' });
  });
});
