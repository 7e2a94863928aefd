// A payout's life through the rail task on the injected clock: today's completes within 30 s,
// sandbox beneficiaries fail with each failure type or come back after completion, a scheduled
// one waits for its date or is cancelled by an operator, an unfunded one fails at once, a lost
// answer from the rail is asked about again and recorded once; each notified, each booked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverDueNotifications } from '../../src/app/notifications/deliver.ts';
import { drivePayouts, PAYOUT_LEASE_MS } from '../../src/app/payouts/rail.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { err, ok, type Connector, type PayoutPort } from '../../src/connectors/port.ts';
import { createSimulator } from '../../src/connectors/simulator/index.ts';
import { verify } from '../../src/domain/signature.ts';
import type { SignedClient } from '../support/client.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectLedgerBalanced } from '../support/lifecycle.ts';
import { accountArgs, balanceOf, payoutBody, topUp } from '../support/payouts.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

let gw: TestGateway;
let receiver: Receiver;
const clock = new FakeClock('2026-11-22T10:15:00Z');

// The sandbox rail, with its createPayout calls counted per payout and an answer that can be lost.
const simulator = createSimulator({ baseUrl: 'http://gateway.test' });
const creates = new Map<string, number>();
// What the rail was told of each payout's beneficiary.
const sentTo = new Map<string, Readonly<Record<string, unknown>>>();
let loseNextCreate = false;
// Runs before a createPayout call counts (a rail that takes its time).
let beforeCreate: ((payoutId: string) => Promise<void>) | undefined;
const rail: PayoutPort = {
  name: 'simulator',
  async createPayout(request) {
    await beforeCreate?.(request.payoutId);
    creates.set(request.payoutId, (creates.get(request.payoutId) ?? 0) + 1);
    sentTo.set(request.payoutId, request.beneficiary);
    const answer = await simulator.payouts!.createPayout(request);
    if (!loseNextCreate) return answer;
    loseNextCreate = false;
    return err({ kind: 'timeout', message: 'the answer was lost' });
  },
  async payoutStatus(request) {
    // A bank that sends a payout back later than the sandbox's "Sandbox Returned" does.
    const returnsAt = lateReturns.get(request.payoutId);
    if (returnsAt !== undefined && clock.now().getTime() >= returnsAt) return ok({ status: 'returned', reference: request.reference ?? '', failureReason: 'sent back late' });
    return simulator.payouts!.payoutStatus(request);
  },
};
const lateReturns = new Map<string, number>();
const connector: Connector = { ...simulator, payouts: rail };
// A connector that takes payments but has no payout rail.
const { payouts: _noRail, ...payments } = simulator;
const railless: Connector = { ...payments, name: 'norail' };

beforeAll(async () => {
  gw = await startTestGateway({ clock, connectors: { get: (name) => (name === 'simulator' ? connector : name === 'norail' ? railless : undefined) } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await gw?.close();
});

const acquiro = (...argv: string[]) => runCommand(argv, gw.gateway.deps);
const status = async (client: SignedClient, id: string) => JSON.parse((await acquiro('payouts', 'show', ...accountArgs(client), '--transaction-id', id, '--json')).stdout);
const eventsOf = (id: string) => gw.database.query<{ type: string; payload: Record<string, any> }>(`SELECT type, payload FROM events WHERE payload->>'transaction_id' = $1 ORDER BY id`, [id]);
const journalsOf = (id: string) => gw.database.query<{ kind: string }>(`SELECT DISTINCT kind FROM ledger_entries WHERE reference_id = $1 ORDER BY kind`, [id]);

/** Moves the clock by `seconds` in steps of 5 s, running the rail task at each step. */
async function runFor(seconds: number): Promise<void> {
  for (let t = 0; t < seconds; t += 5) {
    clock.advance(5_000);
    await drivePayouts(gw.gateway.deps);
  }
}

async function funded(amount = '1000.00'): Promise<SignedClient> {
  const shop = await gw.merchant();
  await topUp(gw, shop, 'USD', amount);
  return shop;
}

const named = (accountName: string) => ({ beneficiary: { entity_type: 'PERSONAL', first_name: 'Ada', last_name: 'Lovelace', bank_details: { account_name: accountName, bank_country_code: 'US', account_currency: 'USD', account_number: '123456789', bank_code: '026009593' } } });

describe('the sandbox rail', () => {
  it("completes today's payout within 30 s, pays the reservation out with our fee, and notifies payout.completed with the answer's fields", async () => {
    const shop = await funded();
    const created = await shop.post('/v1/payout', payoutBody(shop, { notify_url: `${receiver.url}/payouts` }));
    expect(created.body.status).toBe('PROCESSING');
    await runFor(30);
    const done = await status(shop, created.body.transaction_id);
    expect(done).toMatchObject({ status: 'COMPLETED', failure_type: '', amount_payer_pays: 10_150, fee_amount: 150 });
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '898.50', reserved: '0.00' });
    expect(await journalsOf(created.body.transaction_id)).toEqual([{ kind: 'payout' }, { kind: 'payout_reserve' }]);
    const [fee] = await gw.database.query<{ amount: string }>(`SELECT (-amount)::text AS amount FROM ledger_entries WHERE reference_id = $1 AND book = 'fee_revenue' AND account_id = 'platform'`, [created.body.transaction_id]);
    expect(fee!.amount).toBe('150');

    await deliverDueNotifications(gw.gateway.deps);
    const notified = receiver.received.filter((r) => r.body.transaction_id === created.body.transaction_id);
    expect(notified).toHaveLength(1);
    const { notify_id: _id, notify_time: _time, encryption_data: _sig, notify_type, ...fields } = notified[0]!.body;
    expect(notify_type).toBe('payout.completed');
    expect(verify(notified[0]!.body, shop.secret)).toBe(true);
    const { encryption_data: _answerSig, ...answerFields } = (await shop.post('/v1/payout', payoutBody(shop, { request_id: created.body.request_id, notify_url: `${receiver.url}/payouts`, reference: created.body.reference }))).body;
    expect(Object.keys(fields).sort()).toEqual(Object.keys(answerFields).sort().filter((k) => !['return_message', 'return_status'].includes(k)));
    expect(fields).toMatchObject({ status: 'COMPLETED', amount_payer_pays: 10_150, amount_beneficiary_receives: 10_000, request_id: created.body.request_id });
    await expectLedgerBalanced(gw);
  });

  it("gives the rail the beneficiary's bank code and the clearing system, though the answer leaves bank_code out", async () => {
    const shop = await funded();
    await topUp(gw, shop, 'GBP', '1000.00');
    const ach = await shop.post('/v1/payout', payoutBody(shop));
    const gb = { account_name: 'Ada Lovelace', bank_country_code: 'GB', account_currency: 'GBP', account_number: '31926819', bank_code: '60-16-13' };
    const fps = await shop.post('/v1/payout', payoutBody(shop, { payment_currency: 'GBP', beneficiary: { ...named('Ada Lovelace').beneficiary, bank_details: gb } }));
    for (const answer of [ach, fps]) {
      expect(answer.status, answer.raw).toBe(200);
      expect(answer.body.beneficiary.bank_details).not.toHaveProperty('bank_code');
    }
    await runFor(10);
    expect(sentTo.get(ach.body.transaction_id)).toMatchObject({ bank_details: { account_number: '123456789', bank_code: '026009593', local_clearing_system: 'ACH' } });
    expect(sentTo.get(fps.body.transaction_id)).toMatchObject({ bank_details: { account_number: '31926819', bank_code: '60-16-13', local_clearing_system: 'FASTER_PAYMENTS' } });
    // Nor does any later view of the payout show it.
    expect((await status(shop, ach.body.transaction_id)).beneficiary.bank_details).not.toHaveProperty('bank_code');
    const [event] = (await eventsOf(ach.body.transaction_id)).map((e) => e.payload);
    expect(event!.beneficiary.bank_details).not.toHaveProperty('bank_code');
  });

  it.each([
    ['Sandbox Account Closed', 'ACCOUNT_CLOSED'],
    ['Sandbox Invalid Account', 'INVALID_ACCOUNT'],
    ['Sandbox Name Mismatch', 'BENEFICIARY_NAME_MISMATCH'],
    ['Sandbox Compliance Reject', 'COMPLIANCE_REJECTED'],
    ['Sandbox Bank Reject', 'REJECTED_BY_BANK'],
  ])('fails a payout to "%s" with %s, releases the reservation and notifies payout.failed', async (accountName, failureType) => {
    const shop = await funded();
    const created = await shop.post('/v1/payout', payoutBody(shop, named(accountName)));
    await runFor(30);
    const failed = await status(shop, created.body.transaction_id);
    expect(failed).toMatchObject({ status: 'FAILED', failure_type: failureType });
    expect(failed.failure_reason).not.toBe('');
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '1000.00', reserved: '0.00' });
    expect(await journalsOf(created.body.transaction_id)).toEqual([{ kind: 'payout_release' }, { kind: 'payout_reserve' }]);
    const events = await eventsOf(created.body.transaction_id);
    expect(events.map((e) => e.type)).toEqual(['payout.failed']);
    expect(events[0]!.payload).toMatchObject({ notify_type: 'payout.failed', status: 'FAILED', failure_type: failureType });
    await expectLedgerBalanced(gw);
  });

  it('returns a completed payout to "Sandbox Returned": the transfer credited back at the original rate, the fee kept, payout.returned notified', async () => {
    const shop = await funded();
    const created = await shop.post('/v1/payout', payoutBody(shop, named('Sandbox Returned')));
    await runFor(15);
    expect((await status(shop, created.body.transaction_id)).status).toBe('COMPLETED');
    await runFor(35);
    const returned = await status(shop, created.body.transaction_id);
    expect(returned).toMatchObject({ status: 'RETURNED', failure_type: 'RETURNED_BY_BANK' });
    // 1000.00 − (100.00 + 1.50 fee) + 100.00 returned.
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '998.50', reserved: '0.00' });
    expect((await eventsOf(created.body.transaction_id)).map((e) => e.type)).toEqual(['payout.completed', 'payout.returned']);
    await expectLedgerBalanced(gw);
  });
});

describe('last_updated_at', () => {
  it('is when the payout last changed: the rail task asking about it (for its outcome, then for a return) changes nothing', async () => {
    const shop = await funded();
    const created = await shop.post('/v1/payout', payoutBody(shop, { notify_url: `${receiver.url}/payouts` }));
    const id = created.body.transaction_id as string;
    const start = clock.now().getTime();
    try {
      await runFor(30);
      const completed = await status(shop, id);
      expect(completed.status).toBe('COMPLETED');
      const [event] = (await eventsOf(id)).map((e) => e.payload);
      expect(event!.last_updated_at).toBe(completed.last_updated_at);
      // The return checks: 30 s after completion, then hourly.
      for (let hour = 1; hour <= 3; hour++) {
        clock.set(new Date(start + hour * 3_600_000 + 60_000).toISOString());
        await drivePayouts(gw.gateway.deps);
      }
      const [row] = await gw.database.query<{ attempts: number }>('SELECT attempts FROM payouts WHERE id = $1', [id]);
      expect(row!.attempts).toBeGreaterThan(4);
      const later = await status(shop, id);
      expect(later).toMatchObject({ status: 'COMPLETED', last_updated_at: completed.last_updated_at });
      const repeat = await shop.post('/v1/payout', payoutBody(shop, { request_id: created.body.request_id, notify_url: `${receiver.url}/payouts`, reference: created.body.reference }));
      expect(repeat.body.last_updated_at).toBe(completed.last_updated_at);
    } finally {
      clock.set('2026-11-22T10:15:00Z');
    }
  });
});

describe('returns', () => {
  it('are watched for 5 days after completion when a payout is paid after its payment_date (held while its merchant was disabled)', async () => {
    const shop = await funded();
    const ids = ['--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id];
    const created = await shop.post('/v1/payout', payoutBody(shop));
    const id = created.body.transaction_id as string;
    try {
      expect((await acquiro('merchants', 'disable', ...ids)).exitCode).toBe(0);
      await runFor(10);
      expect((await status(shop, id)).status).toBe('PROCESSING');
      clock.set('2026-11-29T10:15:00Z');
      expect((await acquiro('merchants', 'enable', ...ids)).exitCode).toBe(0);
      await runFor(15);
      expect((await status(shop, id)).status).toBe('COMPLETED');
      // Its bank sends it back two hours after it was paid, a week after its payment_date.
      lateReturns.set(id, clock.now().getTime() + 2 * 3_600_000);
      await runFor(60);
      for (let hour = 1; hour <= 3; hour++) {
        clock.advance(3_600_000);
        await drivePayouts(gw.gateway.deps);
      }
      expect(await status(shop, id)).toMatchObject({ status: 'RETURNED', failure_type: 'RETURNED_BY_BANK' });
      expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '998.50', reserved: '0.00' });
      await expectLedgerBalanced(gw);
    } finally {
      clock.set('2026-11-22T10:15:00Z');
    }
  });
});

describe('scheduled payouts', () => {
  it('waits for its payment_date on the clock, then is paid', async () => {
    const shop = await funded();
    const created = await shop.post('/v1/payout', payoutBody(shop, { payment_date: '2026-11-24' }));
    expect(created.body).toMatchObject({ status: 'SCHEDULED', payment_date: '2026-11-24' });
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '898.50', reserved: '101.50' });
    await runFor(60);
    expect((await status(shop, created.body.transaction_id)).status).toBe('SCHEDULED');
    clock.set('2026-11-24T00:00:01Z');
    await runFor(30);
    expect((await status(shop, created.body.transaction_id)).status).toBe('COMPLETED');
    clock.set('2026-11-22T10:15:00Z');
    await expectLedgerBalanced(gw);
  });

  it('is cancelled by an operator, its reservation released; a payout already processing is not', async () => {
    const shop = await funded();
    const scheduled = await shop.post('/v1/payout', payoutBody(shop, { payment_date: '2026-12-01' }));
    const today = await shop.post('/v1/payout', payoutBody(shop));
    const cancelled = await acquiro('payouts', 'cancel', ...accountArgs(shop), '--transaction-id', scheduled.body.transaction_id, '--json');
    expect([cancelled.exitCode, JSON.parse(cancelled.stdout).status]).toEqual([0, 'CANCELLED']);
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '898.50', reserved: '101.50' });
    const refused = await acquiro('payouts', 'cancel', ...accountArgs(shop), '--transaction-id', today.body.transaction_id);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(/PROCESSING: only a SCHEDULED payout can be cancelled/);
    const again = await acquiro('payouts', 'cancel', ...accountArgs(shop), '--transaction-id', scheduled.body.transaction_id);
    expect(again.exitCode).toBe(1);
    expect((await status(shop, scheduled.body.transaction_id)).status).toBe('CANCELLED');
    await expectLedgerBalanced(gw);
  });

  it("notifies the operator's cancel to the merchant as payout.cancelled, once, with the answer's fields", async () => {
    const shop = await funded();
    const scheduled = await shop.post('/v1/payout', payoutBody(shop, { payment_date: '2026-12-01', notify_url: `${receiver.url}/payouts` }));
    const id = scheduled.body.transaction_id as string;
    expect((await acquiro('payouts', 'cancel', ...accountArgs(shop), '--transaction-id', id)).exitCode).toBe(0);
    expect((await acquiro('payouts', 'cancel', ...accountArgs(shop), '--transaction-id', id)).exitCode).toBe(1);
    expect((await eventsOf(id)).map((e) => [e.type, e.payload.status])).toEqual([['payout.cancelled', 'CANCELLED']]);

    await deliverDueNotifications(gw.gateway.deps);
    const notified = receiver.received.filter((r) => r.body.transaction_id === id);
    expect(notified).toHaveLength(1);
    expect(verify(notified[0]!.body, shop.secret)).toBe(true);
    const { notify_id: _id, notify_time: _time, encryption_data: _sig, ...fields } = notified[0]!.body;
    const { encryption_data: _answerSig, ...answer } = (await shop.post('/v1/payout', payoutBody(shop, { request_id: scheduled.body.request_id, payment_date: '2026-12-01', notify_url: `${receiver.url}/payouts`, reference: scheduled.body.reference }))).body;
    expect(answer.status).toBe('CANCELLED');
    expect(fields).toEqual({ ...answer, notify_type: 'payout.cancelled' });
  });
});

describe('funding', () => {
  it('answers a payout the available balance cannot cover with 200 FAILED INSUFFICIENT_FUNDS, moves nothing, and notifies payout.failed', async () => {
    const shop = await funded('100.00');
    const answer = await shop.post('/v1/payout', payoutBody(shop));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'FAILED', failure_type: 'INSUFFICIENT_FUNDS', amount_payer_pays: 10_150 });
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '100.00', reserved: '0.00' });
    expect(await journalsOf(answer.body.transaction_id)).toEqual([]);
    expect((await eventsOf(answer.body.transaction_id)).map((e) => e.type)).toEqual(['payout.failed']);
    await runFor(30);
    expect((await status(shop, answer.body.transaction_id)).status).toBe('FAILED');
    await expectLedgerBalanced(gw);
  });
});

describe('a lost answer from the rail', () => {
  it('leaves the payout PROCESSING, asks again under the same key when the lease runs out, and records the outcome once', async () => {
    const shop = await funded();
    const created = await shop.post('/v1/payout', payoutBody(shop));
    const id = created.body.transaction_id;
    loseNextCreate = true;
    clock.advance(1_000);
    await drivePayouts(gw.gateway.deps);
    expect(creates.get(id)).toBe(1);
    expect((await status(shop, id)).status).toBe('PROCESSING');
    // Within the lease nobody asks again.
    await runFor(20);
    expect(creates.get(id)).toBe(1);
    await runFor(30);
    expect(creates.get(id)).toBe(2);
    expect((await status(shop, id)).status).toBe('COMPLETED');
    const [paid] = await gw.database.query<{ n: string }>(`SELECT count(DISTINCT journal_id)::text AS n FROM ledger_entries WHERE reference_id = $1 AND kind = 'payout'`, [id]);
    expect(paid!.n).toBe('1');
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '898.50', reserved: '0.00' });
    await expectLedgerBalanced(gw);
  });
});

describe('an account on a connector without a payout rail', () => {
  it('keeps its payout PROCESSING and reserved, then pays it once the account is routed to a connector that pays out', async () => {
    const shop = await funded();
    const route = async (name: string) => {
      const routed = await acquiro('accounts', 'connector', 'set', ...accountArgs(shop), '--connector', name);
      expect(routed.exitCode, routed.stderr).toBe(0);
      gw.gateway.server.directory.forget();
    };
    await route('norail');
    const id = (await shop.post('/v1/payout', payoutBody(shop))).body.transaction_id as string;
    await runFor(40);
    expect(creates.get(id)).toBeUndefined();
    expect((await status(shop, id)).status).toBe('PROCESSING');
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '898.50', reserved: '101.50' });

    // docs/payouts.md: route the account to a connector that pays out.
    await route('simulator');
    await runFor(40);
    expect(creates.get(id)).toBe(1);
    expect((await status(shop, id)).status).toBe('COMPLETED');
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '898.50', reserved: '0.00' });
    await expectLedgerBalanced(gw);
  });
});

describe('two workers', () => {
  it('never send one payout twice: each due payout is leased by one of them', async () => {
    const shop = await funded();
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await shop.post('/v1/payout', payoutBody(shop))).body.transaction_id as string);
    clock.advance(1_000);
    const other = { ...gw.gateway.deps, database: await gw.anotherConnection() };
    try {
      await Promise.all([drivePayouts(gw.gateway.deps), drivePayouts(other)]);
    } finally {
      await other.database.close();
    }
    expect(ids.map((id) => creates.get(id))).toEqual([1, 1, 1, 1, 1]);
    await runFor(15);
    for (const id of ids) expect((await status(shop, id)).status).toBe('COMPLETED');
    await expectLedgerBalanced(gw);
  });

  it('never send one payout twice to a slow rail: a round stops before a call that could outlast its lease', async () => {
    const shop = await funded();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await shop.post('/v1/payout', payoutBody(shop))).body.transaction_id as string);
    clock.advance(1_000);
    // Each call of these payouts takes 9 s of the 10 s a rail call may take. Once the first
    // round's lease (30 s) has run out, another worker runs a round of its own, meanwhile.
    const leaseEnds = clock.now().getTime() + PAYOUT_LEASE_MS;
    let otherWorker: Promise<number> | undefined;
    beforeCreate = async (payoutId) => {
      if (!ids.includes(payoutId)) return;
      clock.advance(9_000);
      if (!otherWorker && clock.now().getTime() > leaseEnds) await (otherWorker = drivePayouts(gw.gateway.deps));
    };
    try {
      await drivePayouts(gw.gateway.deps);
      // Three calls (27 s), then a fourth could have ended past the lease: left for later.
      expect(ids.map((id) => creates.get(id) ?? 0).sort()).toEqual([0, 0, 1, 1, 1]);
      expect(otherWorker).toBeUndefined();
      clock.advance(PAYOUT_LEASE_MS);
      await drivePayouts(gw.gateway.deps);
    } finally {
      beforeCreate = undefined;
    }
    expect(ids.map((id) => creates.get(id))).toEqual([1, 1, 1, 1, 1]);
    await runFor(15);
    for (const id of ids) expect((await status(shop, id)).status).toBe('COMPLETED');
    await expectLedgerBalanced(gw);
  });
});

describe('operator commands', () => {
  it('lists and shows an account\'s payouts, never another account\'s', async () => {
    const [shop, other] = [await funded(), await funded()];
    const created = await shop.post('/v1/payout', payoutBody(shop));
    const listed = JSON.parse((await acquiro('payouts', 'list', ...accountArgs(shop), '--json')).stdout);
    expect(listed).toEqual([expect.objectContaining({ transaction_id: created.body.transaction_id, status: 'PROCESSING', amount_payer_pays: '101.50' })]);
    expect(JSON.parse((await acquiro('payouts', 'list', ...accountArgs(other), '--json')).stdout)).toEqual([]);
    // A limit past what a list prints was sent to the database as it was (1e+23: its error).
    for (const limit of ['5000', '99999999999999999999999']) {
      const many = await acquiro('payouts', 'list', ...accountArgs(shop), '--limit', limit);
      expect([many.exitCode, many.stdout, many.stderr]).toEqual([2, '', 'error: --limit must be at most 1000\n']);
    }
    // A cursor that names none of the account's payouts would list from the newest again.
    for (const before of ['PO-not-a-payout', created.body.transaction_id]) {
      const paged = await acquiro('payouts', 'list', ...accountArgs(other), '--before', before);
      expect([paged.exitCode, paged.stdout, paged.stderr]).toEqual([1, '', `error: no payout ${before} on account ${other.ids.account_id}\n`]);
    }
    const foreign = await acquiro('payouts', 'show', ...accountArgs(other), '--transaction-id', created.body.transaction_id);
    expect(foreign.exitCode).toBe(1);
    expect(foreign.stderr).toMatch(/no payout/);
    const cancel = await acquiro('payouts', 'cancel', ...accountArgs(other), '--transaction-id', created.body.transaction_id);
    expect(cancel.exitCode).toBe(1);
    expect(cancel.stderr).toMatch(/no payout/);
  });

  it('sets an account\'s payout fee and a rate, which the next payout uses', async () => {
    const shop = await funded();
    const fee = await acquiro('accounts', 'payout-fees', 'set', ...accountArgs(shop), '--currency', 'USD', '--fixed', '0.25', '--percent', '1', '--swift', '20.00', '--json');
    expect(JSON.parse(fee.stdout).currencies).toEqual({ USD: { fixed: 25, bps: 100, swift: 2000 } });
    const rate = await acquiro('fx', 'set', '--from', 'USD', '--to', 'EUR', '--rate', '0.9', '--json');
    expect(JSON.parse(rate.stdout)).toMatchObject({ source_currency: 'USD', payment_currency: 'EUR', rate: '0.9' });
    const answer = await shop.post('/v1/payout', payoutBody(shop, {
      payment_method: 'SWIFT',
      payment_currency: 'EUR',
      source_currency: 'USD',
      source_amount: '90.00',
      payment_amount: undefined,
      swift_charge_option: 'PAYER',
      beneficiary: { entity_type: 'COMPANY', company_name: 'Acme GmbH', bank_details: { account_name: 'Acme GmbH', bank_country_code: 'DE', account_currency: 'EUR', iban: 'DE89370400440532013000', swift_code: 'DEUTDEFF' } },
    }));
    expect(answer.body).toMatchObject({ fx_rate: '0.9', payment_amount: '81.00', fee_amount: 25 + 90 + 2000, amount_payer_pays: 9_000 + 2_115, amount_beneficiary_receives: 8_100 });
    expect((await acquiro('fx', 'set', '--from', 'USD', '--to', 'EUR', '--rate', '-1')).exitCode).toBe(2);
    expect((await acquiro('fx', 'set', '--from', 'USD', '--to', 'EUR', '--rate', '0.92')).exitCode).toBe(0);
  });
});

describe('acquiro ledger check', () => {
  it('covers payouts: a payout whose books disagree with its status is a violation', async () => {
    const shop = await funded();
    const created = await shop.post('/v1/payout', payoutBody(shop));
    const ok = await acquiro('ledger', 'check');
    expect([ok.exitCode, ok.stdout]).toEqual([0, expect.stringMatching(/\d+ payouts match their books\n$/)]);
    await gw.database.query(`UPDATE payouts SET status = 'COMPLETED' WHERE id = $1`, [created.body.transaction_id]);
    try {
      const broken = await acquiro('ledger', 'check', '--json');
      expect(broken.exitCode).toBe(1);
      expect(JSON.parse(broken.stdout).violations).toContainEqual(expect.objectContaining({ id: created.body.transaction_id, problem: 'payout' }));
    } finally {
      await gw.database.query(`UPDATE payouts SET status = 'PROCESSING' WHERE id = $1`, [created.body.transaction_id]);
    }
    expect((await acquiro('ledger', 'check')).exitCode).toBe(0);
  });
});
