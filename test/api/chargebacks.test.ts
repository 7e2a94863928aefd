// Chargebacks, end to end: a payment with a sandbox dispute card is approved and captured; a day
// later on the test clock the simulator reports the dispute, and the poll-disputes task records
// it once: a dispute row, the merchant's balance debited by its amount, one chargeback.opened
// notification with the payment's fields and the dispute's. The reversing card's dispute comes back
// a day after that (chargeback.reversed, the balance restored). Repeated polls, two workers at
// once, a report of no known payment, a recording that fails and a worker killed after its poll
// all leave each dispute recorded once; another merchant sees none of it.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connectors, Deps } from '../../src/app/context.ts';
import { pollDisputes } from '../../src/app/disputes/poll.ts';
import { recordDispute } from '../../src/app/disputes/record.ts';
import { resolveUnknownPayments, UNKNOWN_AFTER_MS } from '../../src/app/payments/resolve-unknown.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { err, ok, type AuthoriseOutcome, type AuthoriseRequest, type Connector, type DisputeReport, type DisputeReports, type DisputesRequest, type Result } from '../../src/connectors/port.ts';
import { createSimulator } from '../../src/connectors/simulator/index.ts';
import type { Database } from '../../src/db/client.ts';
import { DISPUTE_POLLS } from '../../src/db/repositories/disputes.ts';
import { lease, leaseDue } from '../../src/db/repositories/leases.ts';
import type { SignedClient } from '../support/client.ts';
import { cardPayment } from '../support/fixtures.ts';
import { FakeClock, startTestGateway, TEST_DB, type TestGateway } from '../support/gateway.ts';
import { capture, eventTypes, expectLedgerBalanced, pay, paymentRow, refund, type Txn } from '../support/lifecycle.ts';
import { refuseEventsBy, type OutboxRefusal } from '../support/outbox-refusal.ts';

const DAY = 86_400_000;
const DISPUTED = '4000000000000267';
const DISPUTED_WON = '4000000000002685';
const NOTIFY_URL = 'https://shop.example/notify';

const clock = new FakeClock('2026-11-23T09:00:00Z');
// The sandbox simulator on the test's database and clock, made once the gateway has its database;
// a test may put its own dispute answer in front of it (`script.disputes`).
let simulator: Connector;
const script: {
  disputes?: (request: DisputesRequest, real: () => Promise<Result<DisputeReports>>) => Promise<Result<DisputeReports>>;
  authorise?: (request: AuthoriseRequest, real: () => Promise<Result<AuthoriseOutcome>>) => Promise<Result<AuthoriseOutcome>>;
} = {};
const connectors: Connectors = {
  get: (name) => {
    if (name !== 'simulator') return undefined;
    const real = simulator;
    return {
      ...real,
      disputes: (request) => (script.disputes ? script.disputes(request, () => real.disputes!(request)) : real.disputes!(request)),
      authorise: (request) => (script.authorise ? script.authorise(request, () => real.authorise(request)) : real.authorise(request)),
    };
  },
};

let gw: TestGateway;
let shop: SignedClient;
let other: SignedClient;
let manual: SignedClient;
let second: Database;
let refusal: OutboxRefusal;
let paymentRefusal: OutboxRefusal;

beforeAll(async () => {
  gw = await startTestGateway({ clock, connectors });
  simulator = createSimulator({ baseUrl: 'http://gateway.test', database: gw.database, now: () => clock.now() });
  shop = await gw.merchant();
  other = await gw.merchant();
  manual = await gw.merchant({ captureMode: 'manual' });
  second = await gw.anotherConnection();
  refusal = await refuseEventsBy(gw.database, 'type');
  paymentRefusal = await refuseEventsBy(gw.database, 'payment_id');
});
afterAll(async () => {
  await second?.close();
  await gw?.close();
});

const deps = (): Deps => gw.gateway.deps;
/** A worker `ms` later on the wall clock (leases), on the test's business time. */
const later = (ms: number): Deps => ({ ...deps(), wallClock: { now: () => new Date(clock.now().getTime() + ms) } });
const leaseMs = () => deps().config.processor.leaseMs;
const ids = (client: SignedClient) => ['--merchant-id', client.ids.merchant_id, '--account-id', client.ids.account_id];
const pending = async (client: SignedClient): Promise<string | undefined> => {
  const shown = await runCommand(['balance', 'show', ...ids(client), '--json'], deps());
  return (JSON.parse(shown.stdout) as { currency: string; pending: string }[]).find((b) => b.currency === 'USD')?.pending;
};
const disputesOf = (paymentId: string) =>
  gw.database.query<{ id: string; status: string; amount: number; reason_code: string; connector_dispute_id: string; merchant_id: string }>(
    'SELECT id, status, amount::int AS amount, reason_code, connector_dispute_id, merchant_id FROM disputes WHERE payment_id = $1 ORDER BY created_at',
    [paymentId],
  );
const chargebacks = async (paymentId: string) =>
  (
    await gw.database.query<{ type: string; account_id: string; notify_url: string | null; payload: Record<string, string> }>(
      `SELECT type, account_id, notify_url, payload FROM events WHERE payment_id = $1 AND type LIKE 'chargeback.%' ORDER BY created_at, id`,
      [paymentId],
    )
  ).map((row) => ({ ...row }));
const chargebackJournals = (paymentId: string) =>
  gw.database.query<{ kind: string; book: string; amount: number }>(
    `SELECT kind, book, amount::int AS amount FROM ledger_entries WHERE payment_id = $1 AND kind LIKE 'chargeback%' ORDER BY kind, book`,
    [paymentId],
  );
async function expectLedgerCheckClean(): Promise<void> {
  const check = await runCommand(['ledger', 'check'], deps());
  expect(check.exitCode, check.stdout + check.stderr).toBe(0);
  await expectLedgerBalanced(gw);
}
/** Polls until nothing is left to record (earlier tests' disputes fall due as the clock moves on). */
async function drain(): Promise<void> {
  while ((await pollDisputes(later(leaseMs() + 1))) > 0);
}

describe('a payment with the dispute card', () => {
  it('is approved and captured; a day later the poll records one dispute, debits the balance and notifies chargeback.opened', async () => {
    const txn = await pay(shop, { card: DISPUTED, notify_url: NOTIFY_URL });
    expect(await pending(shop)).toBe('10.00');

    clock.advance(DAY - 60_000);
    expect(await pollDisputes(deps())).toBe(0);
    expect(await disputesOf(txn.transaction_id)).toEqual([]);

    clock.advance(60_000);
    expect(await pollDisputes(deps())).toBe(1);
    const [dispute] = await disputesOf(txn.transaction_id);
    expect(dispute).toMatchObject({ status: 'open', amount: 1000, reason_code: '10.4', merchant_id: shop.ids.merchant_id });
    expect(dispute!.id).toMatch(/^DP[0-9A-Z]{26}$/);
    expect(await pending(shop)).toBe('0.00');
    expect(await chargebackJournals(txn.transaction_id)).toEqual([
      { kind: 'chargeback', book: 'merchant_balance', amount: 1000 },
      { kind: 'chargeback', book: 'processor_receivable', amount: -1000 },
    ]);

    const events = await chargebacks(txn.transaction_id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'chargeback.opened', account_id: shop.ids.account_id, notify_url: NOTIFY_URL });
    expect(events[0]!.payload).toMatchObject({
      notify_type: 'chargeback.opened',
      merchant_id: shop.ids.merchant_id,
      account_id: shop.ids.account_id,
      transaction_id: txn.transaction_id,
      order_no: txn.order_no,
      amount: '10.00',
      currency: 'USD',
      captured_amount: '10.00',
      card: '400000******0267',
      chargeback_id: dispute!.id,
      chargeback_amount: '10.00',
      chargeback_reason_code: '10.4',
      chargeback_reason: 'Other fraud: card-absent environment',
      chargeback_status: 'open',
    });
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.captured', 'chargeback.opened']);
    await expectLedgerCheckClean();

    // Asked again, alone and by two workers at once: nothing new.
    expect(await pollDisputes(deps())).toBe(0);
    expect(await Promise.all([pollDisputes(deps()), pollDisputes({ ...deps(), database: second })])).toEqual([0, 0]);
    expect(await disputesOf(txn.transaction_id)).toHaveLength(1);
    expect(await chargebacks(txn.transaction_id)).toHaveLength(1);
    expect(await pending(shop)).toBe('0.00');
  });

  it('is checked by acquiro ledger check: a chargeback the open disputes do not account for is named', async () => {
    await drain();
    const txn = await pay(shop, { card: DISPUTED });
    clock.advance(DAY);
    expect(await pollDisputes(deps())).toBe(1);
    await expectLedgerCheckClean();
    // Broken on purpose, and mended again: the dispute row says less than its journal took back,
    // then (as if reversed without its journal) nothing.
    for (const [breakIt, mendIt] of [
      [`UPDATE disputes SET amount = amount - 1 WHERE payment_id = $1`, `UPDATE disputes SET amount = amount + 1 WHERE payment_id = $1`],
      [`UPDATE disputes SET status = 'reversed' WHERE payment_id = $1`, `UPDATE disputes SET status = 'open' WHERE payment_id = $1`],
    ] as const) {
      await gw.database.query(breakIt, [txn.transaction_id]);
      try {
        const check = await runCommand(['ledger', 'check', '--json'], deps());
        expect(check.exitCode).toBe(1);
        expect(JSON.parse(check.stdout).violations).toContainEqual(expect.objectContaining({ id: txn.transaction_id, problem: 'chargeback' }));
      } finally {
        await gw.database.query(mendIt, [txn.transaction_id]);
      }
      await expectLedgerCheckClean();
    }
  });

  it('is disputed once when two workers poll at once as it falls due', async () => {
    await drain();
    const txn = await pay(shop, { card: DISPUTED });
    clock.advance(DAY);
    const rounds = await Promise.all([pollDisputes(deps()), pollDisputes({ ...deps(), database: second })]);
    expect(rounds[0] + rounds[1]).toBe(1);
    expect(await disputesOf(txn.transaction_id)).toHaveLength(1);
    expect(await chargebacks(txn.transaction_id)).toHaveLength(1);
    await expectLedgerCheckClean();
  });

  it('authorised, then captured by /v1/capture, is disputed a day after the capture', async () => {
    await drain();
    const txn = await pay(manual, { card: DISPUTED });
    clock.advance(DAY);
    await drain();
    expect(await disputesOf(txn.transaction_id)).toEqual([]);
    await capture(manual, txn);
    clock.advance(DAY);
    await drain();
    expect(await disputesOf(txn.transaction_id)).toEqual([expect.objectContaining({ status: 'open', amount: 1000 })]);
    expect(await pending(manual)).toBe('0.00');
    await expectLedgerCheckClean();
  });

  it('is disputed though a process whose clock ran ahead (an advance it heard first) polled past its capture', async () => {
    await drain();
    const ahead = createSimulator({ baseUrl: 'http://gateway.test', database: gw.database, now: () => new Date(clock.now().getTime() + 2 * DAY) });
    script.disputes = (request) => ahead.disputes!(request);
    try {
      await drain();
    } finally {
      delete script.disputes;
    }
    // Captured now, by the gateway's clock: its dispute falls due a day later, before the time already polled.
    const txn = await pay(shop, { card: DISPUTED });
    clock.advance(DAY);
    await drain();
    expect(await disputesOf(txn.transaction_id)).toEqual([expect.objectContaining({ status: 'open', amount: 1000 })]);
    await expectLedgerCheckClean();
  });
});

/** A sale the sandbox charges whose answer is lost on the way back, as when the gateway that asked is killed before it records the approval: pending. */
async function payUnheard(card: string): Promise<string> {
  script.authorise = async (_request, real) => {
    await real();
    return err({ kind: 'timeout', message: 'the answer was lost on its way back' });
  };
  let answer: Awaited<ReturnType<SignedClient['post']>>;
  try {
    answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { card }));
  } finally {
    delete script.authorise;
  }
  expect(answer.body.order_status).toBe('2');
  return answer.body.transaction_id as string;
}

/** The unknown-outcome sweeper, once the payment is due to be asked about: the sandbox answers "captured". */
async function sweepUnknown(id: string): Promise<void> {
  clock.advance(UNKNOWN_AFTER_MS + 1_000);
  expect(await resolveUnknownPayments(deps())).toBeGreaterThanOrEqual(1);
  const [payment] = await gw.database.query<{ status: string; captured: number; reference: string }>(
    'SELECT status, captured_amount::int AS captured, connector_reference AS reference FROM payments WHERE id = $1',
    [id],
  );
  expect(payment).toEqual({ status: 'captured', captured: 1000, reference: expect.stringMatching(new RegExp(`^sim_${id}_dispute`)) });
}

describe('a dispute card’s sale whose approval the gateway never heard', () => {
  it('is settled captured by the sweeper, as the sandbox remembers charging it, and its dispute is recorded against it', async () => {
    await drain();
    const id = await payUnheard(DISPUTED);
    await sweepUnknown(id);

    clock.advance(DAY);
    await drain();
    expect(await disputesOf(id)).toMatchObject([{ status: 'open', amount: 1000, reason_code: '10.4' }]);
    expect(await eventTypes(gw, id)).toEqual(['payment.captured', 'chargeback.opened']);
    await expectLedgerCheckClean();
  });
});

describe('a report that comes while its payment still waits for the sweeper', () => {
  const heldRows = (id: string) =>
    gw.database.query<{ stage: string; skip_reason: string; attempts: number }>(
      'SELECT stage, skip_reason, attempts FROM held_dispute_reports WHERE payment_reference LIKE $1 ORDER BY stage',
      [`sim_${id}_dispute%`],
    );
  const heldGauge = async () => {
    const text = (await gw.gateway.server.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
    return Number(/^acquiro_dispute_reports_held\{[^}]*\} (\d+)$/m.exec(text)?.[1]);
  };

  it('is held, offered again with each poll, and recorded once by the first poll after the sweeper; a poll that fails keeps it held', async () => {
    await drain();
    const id = await payUnheard(DISPUTED);
    const gauge = await heldGauge();
    // A day on, the acquirer reports the dispute; the gateway holds the payment with no reference yet.
    clock.advance(DAY);
    await pollDisputes(later(leaseMs() + 1));
    expect(await disputesOf(id)).toEqual([]);
    expect(await heldRows(id)).toEqual([{ stage: 'opened', skip_reason: 'unknown_payment', attempts: 1 }]);
    expect(await heldGauge()).toBe(gauge + 1);
    const listed = await runCommand(['disputes', 'held', '--json'], deps());
    expect(JSON.parse(listed.stdout)).toContainEqual(
      expect.objectContaining({ connector: 'simulator', stage: 'opened', payment_reference: `sim_${id}_dispute`, amount: '10.00', reason: 'unknown_payment', attempts: 1 }),
    );
    const table = await runCommand(['disputes', 'held'], deps());
    expect(table.stdout).toMatch(new RegExp(`simdp_${id}.*opened.*sim_${id}_dispute.*10\\.00.*unknown_payment`));
    expect(gw.logs.text).toMatch(/"stage":"opened","reason":"unknown_payment".*dispute report held/);
    // The acquirer does not hand it out again; the gateway offers it with each of its polls.
    await pollDisputes(later(2 * leaseMs() + 2));
    expect(await heldRows(id)).toEqual([{ stage: 'opened', skip_reason: 'unknown_payment', attempts: 2 }]);

    await sweepUnknown(id);
    // The recording fails (the notification cannot be written): nothing is recorded, the report stays held.
    await refusal.refuse('chargeback.opened');
    try {
      await expect(pollDisputes(later(3 * leaseMs() + 3))).rejects.toThrow();
    } finally {
      await refusal.clear();
    }
    expect(await disputesOf(id)).toEqual([]);
    expect(await heldRows(id)).toHaveLength(1);

    // Two workers once the failed one's lease has run out: one records it.
    const recorded = await Promise.all([pollDisputes(later(5 * leaseMs() + 5)), pollDisputes(later(5 * leaseMs() + 5))]);
    expect(recorded.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    expect(await disputesOf(id)).toMatchObject([{ status: 'open', amount: 1000, reason_code: '10.4' }]);
    expect(await eventTypes(gw, id)).toEqual(['payment.captured', 'chargeback.opened']);
    expect(await heldRows(id)).toEqual([]);
    expect(await heldGauge()).toBe(gauge);
    expect(gw.logs.text).toMatch(/"stage":"opened","outcome":"opened".*held dispute report placed/);
    await drain();
    expect(await disputesOf(id)).toHaveLength(1);
    await expectLedgerCheckClean();
  });

  it('is tried in its turn however many others stay held', async () => {
    await drain();
    // 100 reports no poll can place (no payment has their reference), held and tried before it.
    await gw.database.query(
      `INSERT INTO held_dispute_reports (connector, connector_dispute_id, stage, payment_reference, amount, currency, reason_code, reported_at, skip_reason, held_at, tried_at)
       SELECT 'simulator', 'acq-stale-' || n, 'opened', 'sim_T-stale-' || n, 100, 'USD', '10.4', $1, 'unknown_payment', $1, $1 FROM generate_series(1, 100) n`,
      [new Date(clock.now().getTime() - DAY)],
    );
    try {
      const id = await payUnheard(DISPUTED);
      clock.advance(DAY);
      await pollDisputes(later(leaseMs() + 1));
      expect(await heldRows(id)).toHaveLength(1);
      await sweepUnknown(id);
      // The first poll tries the 100 tried longest ago; the next one tries it.
      await pollDisputes(later(2 * leaseMs() + 2));
      await pollDisputes(later(3 * leaseMs() + 3));
      expect(await disputesOf(id)).toMatchObject([{ status: 'open', amount: 1000 }]);
      expect(await heldRows(id)).toEqual([]);
      expect(await gw.database.query(`SELECT count(*)::int AS n FROM held_dispute_reports WHERE connector_dispute_id LIKE 'acq-stale-%' AND attempts > 1`)).toEqual([{ n: 100 }]);
    } finally {
      await gw.database.query(`DELETE FROM held_dispute_reports WHERE connector_dispute_id LIKE 'acq-stale-%'`);
    }
    await expectLedgerCheckClean();
  });

  it('held opened and reversed together are recorded in their order by one poll', async () => {
    await drain();
    const id = await payUnheard(DISPUTED_WON);
    clock.advance(3 * DAY);
    await pollDisputes(later(leaseMs() + 1));
    expect((await heldRows(id)).map((row) => [row.stage, row.skip_reason])).toEqual([
      ['opened', 'unknown_payment'],
      ['reversed', 'unknown_payment'],
    ]);
    await sweepUnknown(id);
    expect(await pollDisputes(later(2 * leaseMs() + 2))).toBeGreaterThanOrEqual(2);
    expect(await disputesOf(id)).toMatchObject([{ status: 'reversed', amount: 1000 }]);
    expect((await chargebacks(id)).map((e) => e.type)).toEqual(['chargeback.opened', 'chargeback.reversed']);
    expect(await heldRows(id)).toEqual([]);
    await expectLedgerCheckClean();
  });
});

describe('the dispute card the merchant wins', () => {
  it('is opened a day after capture, then reversed the day after: the balance restored, two notifications', async () => {
    await drain();
    const before = await pending(shop);
    const txn = await pay(shop, { card: DISPUTED_WON, notify_url: NOTIFY_URL });
    clock.advance(DAY);
    expect(await pollDisputes(deps())).toBe(1);
    expect(await disputesOf(txn.transaction_id)).toEqual([expect.objectContaining({ status: 'open', reason_code: '13.1' })]);
    expect(await pending(shop)).toBe(before);

    clock.advance(DAY);
    expect(await pollDisputes(deps())).toBe(1);
    const [dispute] = await disputesOf(txn.transaction_id);
    expect(dispute).toMatchObject({ status: 'reversed', amount: 1000 });
    expect(await pending(shop)).toBe((Number(before) + 10).toFixed(2));
    const events = await chargebacks(txn.transaction_id);
    expect(events.map((e) => [e.type, e.payload.chargeback_status, e.payload.chargeback_id, e.payload.chargeback_amount])).toEqual([
      ['chargeback.opened', 'open', dispute!.id, '10.00'],
      ['chargeback.reversed', 'reversed', dispute!.id, '10.00'],
    ]);
    expect(await chargebackJournals(txn.transaction_id)).toEqual([
      { kind: 'chargeback', book: 'merchant_balance', amount: 1000 },
      { kind: 'chargeback', book: 'processor_receivable', amount: -1000 },
      { kind: 'chargeback_reversal', book: 'merchant_balance', amount: -1000 },
      { kind: 'chargeback_reversal', book: 'processor_receivable', amount: 1000 },
    ]);
    await expectLedgerCheckClean();

    clock.advance(DAY);
    expect(await pollDisputes(deps())).toBe(0);
    expect(await chargebacks(txn.transaction_id)).toHaveLength(2);
  });

  it('opened and reversed in one poll when the clock jumps past both', async () => {
    await drain();
    const txn = await pay(shop, { card: DISPUTED_WON });
    clock.advance(3 * DAY);
    expect(await pollDisputes(deps())).toBe(2);
    expect(await disputesOf(txn.transaction_id)).toEqual([expect.objectContaining({ status: 'reversed' })]);
    expect((await chargebacks(txn.transaction_id)).map((e) => e.type)).toEqual(['chargeback.opened', 'chargeback.reversed']);
    await expectLedgerCheckClean();
  });
});

describe('reports the gateway cannot place, or has seen', () => {
  const unknown: DisputeReport = {
    disputeId: 'acq-dp-unknown',
    paymentReference: 'sim_T-no-such-payment',
    stage: 'opened',
    amount: { minor: 500, currency: 'USD' },
    reasonCode: '10.4',
    at: new Date('2026-11-01T00:00:00Z'),
  };

  it('holds a report of no known payment, logs it once, and records the others of the poll', async () => {
    await drain();
    const txn = await pay(shop, { card: DISPUTED });
    clock.advance(DAY);
    script.disputes = async (_request, real) => {
      const answer = await real();
      return answer.ok ? ok({ ...answer.value, reports: [unknown, ...answer.value.reports] }) : answer;
    };
    try {
      expect(await pollDisputes(deps())).toBe(1);
    } finally {
      delete script.disputes;
    }
    expect(await disputesOf(txn.transaction_id)).toHaveLength(1);
    expect(await gw.database.query(`SELECT id FROM disputes WHERE connector_dispute_id = 'acq-dp-unknown'`)).toEqual([]);
    expect(gw.logs.text).toMatch(/"disputeId":"acq-dp-unknown","stage":"opened","reason":"unknown_payment".*dispute report held/);
    expect(gw.logs.text).not.toContain('sim_T-no-such-payment');
    // Offered again with the next poll, still of no known payment: one more try, not logged again.
    await pollDisputes(later(leaseMs() + 1));
    expect(await gw.database.query(`SELECT skip_reason, attempts FROM held_dispute_reports WHERE connector_dispute_id = 'acq-dp-unknown'`)).toEqual([
      { skip_reason: 'unknown_payment', attempts: 2 },
    ]);
    expect(gw.logs.text.match(/"disputeId":"acq-dp-unknown".*dispute report held/g)).toHaveLength(1);
    // Settled with the acquirer: the operator forgets it, and no poll offers it again.
    const forget = ['disputes', 'forget', '--connector', 'simulator', '--dispute-id', 'acq-dp-unknown'];
    expect((await runCommand(forget, deps())).stdout).toContain('forgot 1 held report(s) of dispute acq-dp-unknown');
    await pollDisputes(later(leaseMs() + 1));
    expect(await gw.database.query(`SELECT attempts FROM held_dispute_reports WHERE connector_dispute_id = 'acq-dp-unknown'`)).toEqual([]);
    const again = await runCommand(forget, deps());
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('no held report of dispute acq-dp-unknown on connector simulator');
    const unnamed = await runCommand(['disputes', 'forget', '--connector', 'simulator'], deps());
    expect(unnamed.exitCode).toBe(2);
    expect(unnamed.stderr).toContain('--dispute-id');
  });

  it('records a report given again (a connector that repeats itself, or the command run twice) once', async () => {
    await drain();
    const txn = await pay(shop);
    const [row] = await gw.database.query<{ connector_reference: string }>('SELECT connector_reference FROM payments WHERE id = $1', [txn.transaction_id]);
    const report: DisputeReport = {
      disputeId: `acq-${txn.transaction_id}`,
      paymentReference: row!.connector_reference,
      stage: 'opened',
      amount: { minor: 400, currency: 'USD' },
      reasonCode: '12.6',
      at: clock.now(),
    };
    script.disputes = async (request) => ok({ reports: [report, report], cursor: request.cursor ?? 'start' });
    try {
      expect(await pollDisputes(deps())).toBe(1);
      expect(await pollDisputes(deps())).toBe(0);
    } finally {
      delete script.disputes;
    }
    expect((await recordDispute(deps(), { connector: 'simulator', report })).outcome).toBe('unchanged');
    expect(await disputesOf(txn.transaction_id)).toEqual([expect.objectContaining({ amount: 400, reason_code: '12.6' })]);
    expect(await chargebacks(txn.transaction_id)).toHaveLength(1);
    // A reversal of a dispute never opened moves no money.
    const stray = await recordDispute(deps(), { connector: 'simulator', report: { ...report, disputeId: 'acq-never-opened', stage: 'reversed' } });
    expect(stray).toEqual({ outcome: 'skipped', reason: 'never_opened' });
    await expectLedgerCheckClean();
  });
  it('takes back at most what was captured over several disputes of one payment, counting only the open ones, also when two arrive at once', async () => {
    await drain();
    const txn = await pay(shop);
    const [row] = await gw.database.query<{ connector_reference: string }>('SELECT connector_reference FROM payments WHERE id = $1', [txn.transaction_id]);
    const report = (disputeId: string, minor: number, stage: DisputeReport['stage'] = 'opened'): DisputeReport => ({
      disputeId: `acq-${txn.transaction_id}-${disputeId}`,
      paymentReference: row!.connector_reference,
      stage,
      amount: { minor, currency: 'USD' },
      reasonCode: '13.1',
      at: clock.now(),
    });
    const record = (r: DisputeReport) => recordDispute(deps(), { connector: 'simulator', report: r });
    expect((await record(report('a', 600))).outcome).toBe('opened');
    // 6.00 of the 10.00 captured is taken back: 4.00 more fits once, whichever of two arrives first.
    const both = await Promise.all([record(report('b', 400)), record(report('c', 400))]);
    expect(both.map((answer) => answer.outcome).sort()).toEqual(['opened', 'skipped']);
    expect(both.find((answer) => answer.outcome === 'skipped')).toEqual({ outcome: 'skipped', reason: 'beyond_capture' });
    // The merchant wins the first: its 6.00 no longer counts, so 6.00 more may be taken, not 7.00.
    expect((await record(report('a', 600, 'reversed'))).outcome).toBe('reversed');
    expect((await record(report('d', 700))).outcome).toBe('skipped');
    expect((await record(report('e', 600))).outcome).toBe('opened');
    const open = (await disputesOf(txn.transaction_id)).filter((d) => d.status === 'open');
    expect(open.map((d) => d.amount)).toEqual([400, 600]);
    expect(await chargebacks(txn.transaction_id)).toHaveLength(4);
    await expectLedgerCheckClean();
  });
});

describe('a poll that does not finish', () => {
  it('whose recording fails records nothing and keeps the cursor: the next poll, once its lease runs out, records each report once', async () => {
    await drain();
    const txn = await pay(shop, { card: DISPUTED });
    const won = await pay(shop, { card: DISPUTED_WON });
    clock.advance(DAY);
    const cursors = await gw.database.query<{ cursor: string }>(`SELECT cursor FROM dispute_cursors WHERE connector = 'simulator'`);
    await refusal.refuse('chargeback.opened');
    try {
      await expect(pollDisputes(deps())).rejects.toThrow();
    } finally {
      await refusal.clear();
    }
    expect(await disputesOf(txn.transaction_id)).toEqual([]);
    expect(await disputesOf(won.transaction_id)).toEqual([]);
    expect(await gw.database.query(`SELECT cursor FROM dispute_cursors WHERE connector = 'simulator'`)).toEqual(cursors);
    // The failed worker's lease still holds the connector.
    expect(await pollDisputes(deps())).toBe(0);

    // At least these two (another test's payment may fall due in the same day).
    expect(await pollDisputes(later(leaseMs() + 1))).toBeGreaterThanOrEqual(2);
    for (const t of [txn, won]) {
      expect(await disputesOf(t.transaction_id)).toHaveLength(1);
      expect(await chargebacks(t.transaction_id)).toHaveLength(1);
    }
    await expectLedgerCheckClean();
  });

  it('records a backlog in parts: a part that fails leaves the parts before it recorded and the cursor where it was; the next poll records the rest, each once', async () => {
    await drain();
    const paid = [];
    for (let i = 0; i < 3; i++) paid.push(await pay(shop, { card: DISPUTED }));
    // Reports are recorded in their payments' id order: the last of these fails (its notification cannot be written).
    const [first, second, failing] = paid.map((t) => t.transaction_id).sort();
    clock.advance(DAY);
    const cursors = await gw.database.query<{ cursor: string }>(`SELECT cursor FROM dispute_cursors WHERE connector = 'simulator'`);
    await paymentRefusal.refuse(failing!);
    try {
      // One report a transaction (REPORTS_PER_TRANSACTION is 100; a backlog of thousands is what it is for).
      await expect(pollDisputes(deps(), 1)).rejects.toThrow();
    } finally {
      await paymentRefusal.clear();
    }
    expect(await disputesOf(first!)).toHaveLength(1);
    expect(await disputesOf(second!)).toHaveLength(1);
    expect(await disputesOf(failing!)).toEqual([]);
    expect(await gw.database.query(`SELECT cursor FROM dispute_cursors WHERE connector = 'simulator'`)).toEqual(cursors);

    // The acquirer hands all three out again: the two recorded change nothing, the third is recorded.
    expect(await pollDisputes(later(leaseMs() + 1), 1)).toBeGreaterThanOrEqual(1);
    for (const id of [first!, second!, failing!]) {
      expect(await disputesOf(id)).toHaveLength(1);
      expect(await chargebacks(id)).toHaveLength(1);
    }
    expect(await gw.database.query(`SELECT cursor FROM dispute_cursors WHERE connector = 'simulator'`)).not.toEqual(cursors);
    await expectLedgerCheckClean();
  });

  it('killed after polling: another worker re-polls from the old cursor once the lease runs out, and records once', async () => {
    await drain();
    const txn = await pay(shop, { card: DISPUTED });
    clock.advance(DAY);
    // A worker that leased the cursor, polled and died before recording.
    const held = await leaseDue(gw.database.db, DISPUTE_POLLS, lease(deps(), leaseMs(), 'dead-worker'), 1, { scope: 'simulator' });
    expect(held).toHaveLength(1);
    expect(await pollDisputes(deps())).toBe(0);
    expect(await disputesOf(txn.transaction_id)).toEqual([]);

    expect(await pollDisputes(later(leaseMs() + 1))).toBeGreaterThanOrEqual(1);
    expect(await disputesOf(txn.transaction_id)).toHaveLength(1);
    expect(await chargebacks(txn.transaction_id)).toHaveLength(1);
    expect(await pollDisputes(later(leaseMs() + 1))).toBe(0);
    expect(await disputesOf(txn.transaction_id)).toHaveLength(1);
    await expectLedgerCheckClean();
  });
});

// One connection on PostgreSQL (PGlite has no second one to hold a lock with).
describe.runIf(TEST_DB === 'postgres')('a poll beside a statement that locks several payments', () => {
  it('records in payment id order, as refund batches lock, so the two wait for each other instead of deadlocking', async () => {
    await drain();
    const made = [await pay(shop), await pay(shop)];
    const rows = await gw.database.query<{ id: string; connector_reference: string }>(
      'SELECT id, connector_reference FROM payments WHERE id = ANY ($1::text[]) ORDER BY id',
      [made.map((txn) => txn.transaction_id)],
    );
    const [first, next] = rows;
    const report = (row: { id: string; connector_reference: string }): DisputeReport => ({
      disputeId: `acq-order-${row.id}`,
      paymentReference: row.connector_reference,
      stage: 'opened',
      amount: { minor: 100, currency: 'USD' },
      reasonCode: '10.4',
      at: clock.now(),
    });
    // The acquirer reports the later id first.
    script.disputes = async (request) => ok({ reports: [report(next!), report(first!)], cursor: request.cursor ?? 'start' });
    let polled: Promise<number> | undefined;
    try {
      // Another transaction holds the first payment, as a refund wave's claim would, and wants the next one.
      await second.transaction(async (query) => {
        await query('SELECT id FROM payments WHERE id = $1 FOR UPDATE', [first!.id]);
        polled = pollDisputes(deps());
        await new Promise((resolve) => setTimeout(resolve, 300)); // the poll now waits for the first payment
        await query("SET LOCAL lock_timeout = '3s'");
        await query('SELECT id FROM payments WHERE id = $1 FOR UPDATE', [next!.id]);
      });
      expect(await polled).toBe(2);
    } finally {
      await polled?.catch(() => {});
      delete script.disputes;
    }
    for (const row of rows) expect(await disputesOf(row.id)).toHaveLength(1);
    await expectLedgerCheckClean();
  });
});

// The acquirer took the disputed amount back to the shopper: refunding it as well would pay the
// shopper twice and debit the merchant twice. A refund counts an open dispute as refunded already;
// a reversed one (the merchant won it) gives the amount back to refund.
/** The acquirer's report of a dispute of `minor` opened on `txn` now, as its poll would hand it over. */
async function openedReport(txn: Txn, tag: string, minor: number): Promise<DisputeReport> {
  const [row] = await gw.database.query<{ connector_reference: string }>('SELECT connector_reference FROM payments WHERE id = $1', [txn.transaction_id]);
  return { disputeId: `acq-${tag}-${txn.transaction_id}`, paymentReference: row!.connector_reference, stage: 'opened', amount: { minor, currency: 'USD' }, reasonCode: '13.1', at: clock.now() };
}

describe('a refund of a payment with an open chargeback', () => {
  it('is refused beyond what the dispute left, and allowed again once the dispute is reversed', async () => {
    await drain();
    const txn = await pay(shop, { card: DISPUTED_WON });
    clock.advance(DAY);
    await drain();
    const [dispute] = await disputesOf(txn.transaction_id);
    expect(dispute).toMatchObject({ status: 'open', amount: 1000 });

    const refused = await refund(shop, txn, '0.01');
    expect(refused.refund_status).toBe('0');
    expect(refused.refund_message).toBe('V5010:nothing left to refund: 10.00 captured, all of it refunded, being refunded or taken back by an open chargeback (10.00)');
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'captured', refunded: 0 });

    clock.advance(DAY);
    await drain();
    expect((await disputesOf(txn.transaction_id))[0]).toMatchObject({ status: 'reversed' });
    expect((await refund(shop, txn, '10.00')).refund_status).toBe('1');
    await expectLedgerCheckClean();
  });

  it('is bounded as docs/states.md says: its /v1/refund row counts the open chargebacks with the refunds', () => {
    const states = readFileSync(new URL('../../docs/states.md', import.meta.url), 'utf8');
    const row = states.split('\n').find((line) => line.startsWith('| `/v1/refund` |'));
    expect(row).toBeDefined();
    expect(row).toMatch(/refund_amount ≤ captured − \(refunds done \+ pending\) − open chargebacks/);
  });

  it('of part of the payment leaves the rest refundable, never more', async () => {
    await drain();
    const txn = await pay(shop);
    const report = await openedReport(txn, 'part', 600);
    expect(await recordDispute(deps(), { connector: 'simulator', report })).toMatchObject({ outcome: 'opened' });

    expect((await refund(shop, txn, '4.01')).refund_message).toBe('V5010:refund_amount 4.01 exceeds the 4.00 left to refund of 10.00 captured (6.00 taken back by an open chargeback)');
    expect((await refund(shop, txn, '4.00')).refund_status).toBe('1');
    expect((await refund(shop, txn, '0.01')).refund_status).toBe('0');
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'partially_refunded', refunded: 400 });
    await expectLedgerCheckClean();
  });
});

// A chargeback recorded while a refund's claim waits for the payment's lock: the claim must count
// it (PostgreSQL only: the embedded engine runs one statement at a time, so nothing waits).
describe.runIf(TEST_DB === 'postgres')('a refund whose claim waits while a chargeback is recorded', () => {
  it('counts the chargeback recorded just before it: nothing is refunded beyond what it left', async () => {
    await drain();
    const txn = await pay(shop);
    const report = await openedReport(txn, 'wait', 1000);
    let recorded: Promise<unknown> | undefined;
    let refunded: Promise<Record<string, string>> | undefined;
    // Another transaction holds the payment; the chargeback's recording queues for it first, then the refund's claim.
    await second.transaction(async (query) => {
      await query('SELECT id FROM payments WHERE id = $1 FOR UPDATE', [txn.transaction_id]);
      recorded = recordDispute(deps(), { connector: 'simulator', report });
      await new Promise((resolve) => setTimeout(resolve, 300));
      refunded = refund(shop, txn, '10.00');
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    expect(await recorded).toMatchObject({ outcome: 'opened' });
    const answer = await refunded!;
    expect(answer.refund_status).toBe('0');
    expect(answer.error_message).toMatch(/^5010:/);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'captured', refunded: 0 });
    const [reserved] = await gw.database.query<{ n: number }>('SELECT refund_reserved::int AS n FROM payments WHERE id = $1', [txn.transaction_id]);
    expect(reserved!.n).toBe(0);
    await expectLedgerCheckClean();
  });
});

describe('another merchant', () => {
  it('sees none of it: no event, no dispute, no movement of its balance', async () => {
    await drain();
    const own: Txn = await pay(other);
    expect(await pending(other)).toBe('10.00');
    expect(await gw.database.query(`SELECT id FROM events WHERE account_id = $1 AND type LIKE 'chargeback.%'`, [other.ids.account_id])).toEqual([]);
    expect(await gw.database.query('SELECT id FROM disputes WHERE account_id = $1 OR merchant_id = $2', [other.ids.account_id, other.ids.merchant_id])).toEqual([]);
    expect(await eventTypes(gw, own.transaction_id)).toEqual(['payment.captured']);
    const disputed = await gw.database.query<{ account_id: string }>('SELECT DISTINCT account_id FROM disputes');
    expect(disputed.map((d) => d.account_id).sort()).toEqual([shop.ids.account_id, manual.ids.account_id].sort());
  });
});
