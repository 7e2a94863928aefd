// Payouts of a merchant or account an operator disabled (`acquiro merchants disable`): held by the
// rail task, never sent while disabled, their reservation kept; sent once on the first round after
// the enable. Held payouts never keep other accounts' due payouts out of a round, and a disable
// committed between the lease and the send still holds the payout. docs/payouts.md, "Held while
// disabled".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drivePayouts } from '../../src/app/payouts/rail.ts';
import { runCommand } from '../../src/cli/commands.ts';
import type { Connector, PayoutPort } from '../../src/connectors/port.ts';
import { createSimulator } from '../../src/connectors/simulator/index.ts';
import type { SignedClient } from '../support/client.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectLedgerBalanced } from '../support/lifecycle.ts';
import { accountArgs, balanceOf, payoutBody, topUp } from '../support/payouts.ts';

let gw: TestGateway;
const START = '2026-11-22T10:15:00Z';
const clock = new FakeClock(START);

// The sandbox rail, with its sends counted per payout and a hook run while one is being sent.
const simulator = createSimulator({ baseUrl: 'http://gateway.test' });
const sends = new Map<string, number>();
let whileSending: ((payoutId: string) => Promise<void>) | undefined;
const rail: PayoutPort = {
  name: 'simulator',
  async createPayout(request) {
    sends.set(request.payoutId, (sends.get(request.payoutId) ?? 0) + 1);
    await whileSending?.(request.payoutId);
    return simulator.payouts!.createPayout(request);
  },
  payoutStatus: (request) => simulator.payouts!.payoutStatus(request),
};
const connector: Connector = { ...simulator, payouts: rail };

beforeAll(async () => {
  gw = await startTestGateway({ clock, connectors: { get: (name) => (name === 'simulator' ? connector : undefined) } });
});
afterAll(() => gw?.close());

const acquiro = (...argv: string[]) => runCommand(argv, gw.gateway.deps);
const idsOf = (client: SignedClient, level: 'merchant' | 'account') => (level === 'merchant' ? ['--merchant-id', client.ids.merchant_id] : accountArgs(client));
async function operator(verb: 'disable' | 'enable', ids: readonly string[]): Promise<void> {
  expect((await acquiro('merchants', verb, ...ids)).exitCode).toBe(0);
}
const statusOf = async (client: SignedClient, id: string) => JSON.parse((await acquiro('payouts', 'show', ...accountArgs(client), '--transaction-id', id, '--json')).stdout).status;
/** `acquiro payouts list` as id → [status, held] (ids made in one millisecond list in any order). */
const listed = async (client: SignedClient) =>
  Object.fromEntries(
    (JSON.parse((await acquiro('payouts', 'list', ...accountArgs(client), '--json')).stdout) as { transaction_id: string; status: string; held: boolean }[]).map((p) => [p.transaction_id, [p.status, p.held]]),
  );

async function funded(): Promise<SignedClient> {
  const shop = await gw.merchant();
  await topUp(gw, shop, 'USD', '1000.00');
  return shop;
}

async function payout(client: SignedClient, fields: Record<string, unknown> = {}): Promise<string> {
  const answer = await client.post('/v1/payout', payoutBody(client, fields));
  expect(answer.status).toBe(200);
  return answer.body.transaction_id as string;
}

/** Moves the clock by `seconds` in steps of 5 s, running the rail task at each step. */
async function runFor(seconds: number): Promise<void> {
  for (let t = 0; t < seconds; t += 5) {
    clock.advance(5_000);
    await drivePayouts(gw.gateway.deps);
  }
}

describe('a disabled merchant or account', () => {
  it.each(['merchant', 'account'] as const)('holds its payouts while the %s is disabled, reserved, and sends each once on the first round after the enable', async (level) => {
    clock.set(START);
    const shop = await funded();
    const today = await payout(shop);
    const scheduled = await payout(shop, { payment_date: '2026-11-24' });
    await operator('disable', idsOf(shop, level));

    // Its payment date passes while disabled: neither payout reaches the rail.
    clock.set('2026-11-25T09:00:00Z');
    await runFor(60);
    expect([sends.get(today), sends.get(scheduled)]).toEqual([undefined, undefined]);
    expect(await listed(shop)).toEqual({ [scheduled]: ['SCHEDULED', true], [today]: ['PROCESSING', true] });
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '797.00', reserved: '203.00' });

    await operator('enable', idsOf(shop, level));
    await drivePayouts(gw.gateway.deps);
    expect([sends.get(today), sends.get(scheduled)]).toEqual([1, 1]);
    await runFor(30);
    expect(await listed(shop)).toEqual({ [scheduled]: ['COMPLETED', false], [today]: ['COMPLETED', false] });
    expect([sends.get(today), sends.get(scheduled)]).toEqual([1, 1]);
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '797.00', reserved: '0.00' });
    await expectLedgerBalanced(gw);
  });

  it("never keeps another account's due payout out of a round, however many are held; an operator may still cancel a held one", async () => {
    clock.set(START);
    const [frozen, other] = [await funded(), await funded()];
    // The held payouts fall due first, more of them than a round takes.
    const held = [];
    for (let i = 0; i < 3; i++) held.push(await payout(frozen, { payment_date: '2026-11-23' }));
    const due = await payout(other, { payment_date: '2026-11-24' });
    await operator('disable', idsOf(frozen, 'account'));

    clock.set('2026-11-24T00:00:01Z');
    await drivePayouts(gw.gateway.deps, 2);
    expect(sends.get(due)).toBe(1);
    expect(held.map((id) => sends.get(id))).toEqual([undefined, undefined, undefined]);

    const cancelled = await acquiro('payouts', 'cancel', ...accountArgs(frozen), '--transaction-id', held[0]!, '--json');
    expect([cancelled.exitCode, JSON.parse(cancelled.stdout).status]).toEqual([0, 'CANCELLED']);
    // Cancelled past its payment_date, and notified as any cancel is (docs/notifications.md, payout.cancelled).
    const events = await gw.database.query<{ type: string; payload: Record<string, unknown> }>(`SELECT type, payload FROM events WHERE payload->>'transaction_id' = $1 ORDER BY id`, [held[0]!]);
    expect(events.map((e) => [e.type, e.payload.status, e.payload.payment_date])).toEqual([['payout.cancelled', 'CANCELLED', '2026-11-23']]);
    // Three reserved at 101.50 each, one released.
    expect(await balanceOf(gw, frozen, 'USD')).toEqual({ available: '797.00', reserved: '203.00' });
    await expectLedgerBalanced(gw);
  });

  it('holds a payout leased in the round in which the disable commits, before it is sent', async () => {
    clock.set(START);
    const [first, frozen] = [await funded(), await funded()];
    const sentFirst = await payout(first);
    clock.advance(1_000);
    const leasedWithIt = await payout(frozen);
    // Both are leased in one round; while the first is with the rail, the operator disables the second's merchant.
    whileSending = async (id) => {
      if (id === sentFirst) await operator('disable', idsOf(frozen, 'merchant'));
    };
    try {
      clock.advance(1_000);
      await drivePayouts(gw.gateway.deps);
    } finally {
      whileSending = undefined;
    }
    expect([sends.get(sentFirst), sends.get(leasedWithIt)]).toEqual([1, undefined]);
    expect(await statusOf(frozen, leasedWithIt)).toBe('PROCESSING');
    expect(gw.logs.text.split('\n').some((line) => line.includes(leasedWithIt) && line.includes('payout held'))).toBe(true);

    await operator('enable', idsOf(frozen, 'merchant'));
    await runFor(60);
    expect(sends.get(leasedWithIt)).toBe(1);
    expect(await statusOf(frozen, leasedWithIt)).toBe('COMPLETED');
    await expectLedgerBalanced(gw);
  });
});
