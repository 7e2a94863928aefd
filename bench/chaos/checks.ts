// After the chaos: the sweepers finish what the killed processes left waiting on the processor,
// then the database is compared with what clients were told (the book). Each finding is one line.
import type { Deps } from '../../src/app/context.ts';
import type { Database } from '../../src/db/client.ts';
import { PERIODIC_TASKS } from '../../src/jobs/tasks.ts';
import type { Book } from './actors.ts';

/** Far enough ahead that every lease a killed worker held has run out; 10 rounds stay short of any expiry day. */
const SWEEP_AHEAD_MS = 10 * 60_000;

export interface Waiting {
  readonly payments: number;
  readonly operations: number;
  readonly refunds: number;
  readonly payouts: number;
  /** Subscription charges at the processor, and cycles (or retries) due and not yet taken. */
  readonly subscriptions: number;
  /**
   * Disputes (and their reversals) the sandbox acquirer reports by now that no poll has recorded
   * yet. The chaos run's clock jumps days at a time, so a report may come while its payment, whose
   * approval a killed gateway never heard, still waits for the sweeper with no reference: the poll
   * holds it and records it once the sweeper has given the payment its reference (docs/chargebacks.md,
   * "Reports held").
   */
  readonly disputes: number;
}

/** The sandbox's due dispute reports ($1: business time) not recorded, with what the gateway holds of their payments. */
const UNRECORDED_DISPUTES = `SELECT s.payment_id, s.reference, s.captured_at, p.status, p.connector_reference, p.captured_amount::text AS captured, d.status AS dispute,
         (SELECT string_agg(h.stage || ':' || h.skip_reason, ',') FROM held_dispute_reports h WHERE h.payment_reference = s.reference) AS held
    FROM simulator_disputes s
    LEFT JOIN payments p ON p.id = s.payment_id
    LEFT JOIN disputes d ON d.payment_id = s.payment_id
   WHERE (s.captured_at + interval '1 day' <= $1 AND d.id IS NULL)
      OR (s.reverses AND s.captured_at + interval '2 days' <= $1 AND d.status IS DISTINCT FROM 'reversed')`;

/** What waits on the processor (or, for subscriptions, is due by business time `now`). */
export async function waitingOnProcessor(database: Database, now: Date): Promise<Waiting> {
  const [row] = await database.query<Waiting>(
    `SELECT (SELECT count(*)::int FROM payments WHERE status = 'processing') AS payments,
            (SELECT count(*)::int FROM payment_operations WHERE status = 'pending') AS operations,
            (SELECT count(*)::int FROM refunds WHERE status = 'pending') AS refunds,
            (SELECT count(*)::int FROM payouts WHERE status = 'PROCESSING') AS payouts,
            (SELECT count(*)::int FROM subscription_charges WHERE status = 'pending')
              + (SELECT count(*)::int FROM subscriptions WHERE status = 'Active' AND next_charge_at <= $1) AS subscriptions,
            (SELECT count(*)::int FROM (${UNRECORDED_DISPUTES}) u) AS disputes`,
    [now],
  );
  return row!;
}

export const total = (waiting: Waiting) => waiting.payments + waiting.operations + waiting.refunds + waiting.payouts + waiting.subscriptions + waiting.disputes;

/**
 * Runs every periodic task of the workers, in this process, on a clock moved past every lease
 * and recheck time (10 minutes further each round), until nothing waits on the processor (or 10 rounds). The same code `acquiro
 * worker` runs; only the wait for leases of killed workers to run out is skipped.
 */
export async function sweep(now: Deps): Promise<number> {
  // Each round a step further: a task that asks again in a few seconds (the payout rail) finds it due.
  let ahead = 0;
  // Both clocks move: leases and re-check timers run on the wall clock, due dates on business time.
  const deps: Deps = {
    ...now,
    clock: { now: () => new Date(now.clock.now().getTime() + ahead) },
    wallClock: { now: () => new Date(now.wallClock.now().getTime() + ahead) },
  };
  const database = deps.database;
  const waiting = async () => total(await waitingOnProcessor(database, deps.clock.now()));
  const before = await waiting();
  for (let round = 0; round < 10 && (await waiting()) > 0; round++) {
    ahead += SWEEP_AHEAD_MS;
    for (const task of PERIODIC_TASKS) await task.run(deps);
  }
  return before - (await waiting());
}

/** Every way the database disagrees with the book, or holds one effect twice. */
export async function findAnomalies(database: Database, book: Book, now: Date): Promise<string[]> {
  const found: string[] = [];
  const waiting = await waitingOnProcessor(database, now);
  if (total(waiting) > 0) found.push(`still waiting on the processor after the sweep: ${JSON.stringify(waiting)}`);
  // Which disputes, and what the gateway holds of their payments: enough to tell one cause from another.
  if (waiting.disputes > 0) for (const row of await database.query(UNRECORDED_DISPUTES, [now])) found.push(`a dispute the sandbox reports is not recorded: ${JSON.stringify(row)}`);

  // Double charges or captures: the processor receivable captures booked for a payment beyond its
  // amount (a won chargeback books it again, as the acquirer pays the amount back: not a capture).
  for (const row of await database.query<{ id: string; amount: string; booked: string; captured: string }>(
    `SELECT p.id, p.amount::text, p.captured_amount::text AS captured,
            coalesce(sum(e.amount) FILTER (WHERE e.book = 'processor_receivable' AND e.kind = 'capture' AND e.amount > 0), 0)::text AS booked
       FROM payments p LEFT JOIN ledger_entries e ON e.payment_id = p.id
      GROUP BY p.id HAVING coalesce(sum(e.amount) FILTER (WHERE e.book = 'processor_receivable' AND e.kind = 'capture' AND e.amount > 0), 0) > p.amount
          OR count(DISTINCT e.journal_id) FILTER (WHERE e.kind = 'capture') > 1`,
  )) {
    found.push(`payment ${row.id} of ${row.amount} booked as captured ${row.booked} (row says ${row.captured}): a double capture`);
  }
  for (const row of await database.query<{ n: number }>(`SELECT count(*)::int AS n FROM payment_operations WHERE kind = 'capture' AND status = 'succeeded' GROUP BY payment_id HAVING count(*) > 1`)) {
    found.push(`a payment captured ${row.n} times`);
  }

  // Double refunds: more refunds of a payment than distinct Idempotency-Keys its refunds were sent with.
  const refundCounts = await database.query<{ payment_id: string; n: number }>(`SELECT payment_id, count(*)::int AS n FROM refunds GROUP BY payment_id`);
  for (const { payment_id, n } of refundCounts) {
    const keys = book.refundKeys.get(payment_id)?.size ?? 0;
    if (n > keys) found.push(`payment ${payment_id} has ${n} refunds from ${keys} Idempotency-Keys: a double refund`);
  }

  // Double payouts: one request_id, one payout.
  for (const row of await database.query<{ request_id: string; n: number }>(`SELECT request_id, count(*)::int AS n FROM payouts GROUP BY account_id, request_id HAVING count(*) > 1`)) {
    found.push(`payout request_id ${row.request_id} paid ${row.n} times`);
  }

  // Subscriptions: each cycle charged once at most, by one charge and one payment.
  for (const row of await database.query<{ subscription_id: string; cycle: number; n: number }>(
    `SELECT subscription_id, cycle, count(*)::int AS n FROM subscription_charges WHERE status = 'succeeded' GROUP BY 1, 2 HAVING count(*) > 1`,
  )) {
    found.push(`subscription ${row.subscription_id} cycle ${row.cycle} charged ${row.n} times`);
  }
  for (const row of await database.query<{ subscription_id: string; cycle: string; n: number }>(
    `SELECT s.id AS subscription_id, substring(p.order_no from ' R([0-9]+)-') AS cycle, count(*)::int AS n
       FROM subscriptions s JOIN payments p ON p.account_id = s.account_id AND p.order_no LIKE s.order_no_base || ' R%'
      WHERE p.status IN ('authorised', 'captured', 'partially_refunded', 'refunded') GROUP BY 1, 2 HAVING count(*) > 1`,
  )) {
    found.push(`subscription ${row.subscription_id} cycle ${row.cycle} paid by ${row.n} payments`);
  }
  // Every due cycle charged, or in dunning as documented: an Active subscription has a succeeded
  // charge for each cycle before its next one and nothing due by now (a declined cycle's retry is
  // due later, before the next cycle); an Unpaid one stopped after its last retry.
  for (const row of await database.query<{ id: string; status: string; next_cycle: number; paid: number; due: boolean }>(
    `SELECT s.id, s.status, s.next_cycle,
            (SELECT count(DISTINCT c.cycle)::int FROM subscription_charges c WHERE c.subscription_id = s.id AND c.status = 'succeeded') AS paid,
            coalesce(s.next_charge_at <= $1, false) AS due
       FROM subscriptions s WHERE s.status IN ('Active', 'Unpaid')`,
    [now],
  )) {
    if (row.status === 'Active' && (row.due || row.paid !== row.next_cycle - 2)) {
      found.push(`subscription ${row.id}: ${row.paid} cycles charged before cycle ${row.next_cycle}${row.due ? ', a charge due and not taken' : ''}`);
    }
  }
  const subscribed = new Set(
    (await database.query<{ id: string }>(`SELECT id FROM subscriptions WHERE id = ANY($1)`, [[...book.subscriptions.keys()]])).map((row) => row.id),
  );
  for (const [id, orderNo] of book.subscriptions) if (!subscribed.has(id)) found.push(`subscription ${id} (payment ${orderNo}) acknowledged, not stored`);

  // Chargebacks: one dispute a payment (the sandbox reports one), within its capture, its balance
  // debited once, and credited back once if reversed.
  for (const row of await database.query<{ payment_id: string; n: number; amount: string; captured: string; debits: number; credits: number; reversed: number }>(
    `SELECT d.payment_id, count(*)::int AS n, sum(d.amount)::text AS amount, p.captured_amount::text AS captured,
            (SELECT count(DISTINCT e.journal_id)::int FROM ledger_entries e WHERE e.payment_id = d.payment_id AND e.kind = 'chargeback') AS debits,
            (SELECT count(DISTINCT e.journal_id)::int FROM ledger_entries e WHERE e.payment_id = d.payment_id AND e.kind = 'chargeback_reversal') AS credits,
            count(*) FILTER (WHERE d.status = 'reversed')::int AS reversed
       FROM disputes d JOIN payments p ON p.id = d.payment_id
      GROUP BY d.payment_id, p.captured_amount`,
  )) {
    if (row.n !== 1 || BigInt(row.amount) > BigInt(row.captured) || row.debits !== 1 || row.credits !== row.reversed) {
      found.push(`payment ${row.payment_id}: ${row.n} disputes of ${row.amount} (captured ${row.captured}), ${row.debits} chargeback and ${row.credits} reversal journals`);
    }
  }

  // Acknowledged writes lost: every success a client was told of is in the database as such.
  const paid = new Map(
    (await database.query<{ order_no: string; id: string; status: string }>(`SELECT order_no, id, status FROM payments WHERE order_no = ANY($1)`, [[...book.payments.keys()]])).map(
      (row) => [row.order_no, row],
    ),
  );
  for (const [orderNo, transactionId] of book.payments) {
    const row = paid.get(orderNo);
    if (!row || row.id !== transactionId || !['authorised', 'captured', 'partially_refunded', 'refunded'].includes(row.status)) {
      found.push(`payment ${orderNo} acknowledged as ${transactionId} success, stored as ${row ? `${row.id} ${row.status}` : 'nothing'}`);
    }
  }
  const captured = new Set(
    (await database.query<{ id: string }>(`SELECT id FROM payments WHERE id = ANY($1) AND captured_amount = amount`, [[...book.captures]])).map((row) => row.id),
  );
  for (const id of book.captures) if (!captured.has(id)) found.push(`capture of ${id} acknowledged, not stored`);
  const refunded = new Set(
    (await database.query<{ id: string }>(`SELECT id FROM refunds WHERE id = ANY($1) AND status = 'succeeded'`, [[...book.refunds.keys()]])).map((row) => row.id),
  );
  for (const [id, transactionId] of book.refunds) if (!refunded.has(id)) found.push(`refund ${id} of ${transactionId} acknowledged, not stored as succeeded`);
  const paidOut = new Map(
    (await database.query<{ request_id: string; id: string }>(`SELECT request_id, id FROM payouts WHERE request_id = ANY($1) AND status IN ('PROCESSING', 'COMPLETED')`, [[...book.payouts.keys()]])).map(
      (row) => [row.request_id, row.id],
    ),
  );
  for (const [requestId, id] of book.payouts) if (paidOut.get(requestId) !== id) found.push(`payout ${id} (request_id ${requestId}) acknowledged, not stored as accepted`);
  return found;
}
