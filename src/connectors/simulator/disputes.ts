// The sandbox acquirer's disputes. A payment with a dispute test card (cards.ts) is approved as any
// other, with a reference that says so (`…_dispute`, `…_dispute_won`), so a capture needs no card
// to know it. Once captured (at authorisation for a sale, or by /v1/capture), the simulator
// remembers it, dated by the injected clock, and reports the dispute `opened` a day later, for the
// captured amount; the `…_dispute_won` one is also `reversed` two days after the capture. A real
// acquirer remembers its disputes across its restarts and whichever of our processes asks: this
// memory is a table of its own (simulator_disputes), empty in live mode; without a database (the
// connector contract's unit tests), the process's memory.
//
// The cursor is business time: a poll answers the reports dated after the cursor and up to now,
// and now as the next cursor. A capture is always dated now, so its reports (a day later or more)
// are never behind a cursor already handed out.
import type { Database } from '../../db/client.ts';
import type { Money } from '../../domain/money.ts';
import type { DisputeReport, DisputeReports } from '../port.ts';

const DAY_MS = 86_400_000;
export const DISPUTE_SUFFIX = '_dispute';
export const DISPUTE_WON_SUFFIX = '_dispute_won';

const FRAUD = { reasonCode: '10.4', reason: 'Other fraud: card-absent environment' } as const;
const NOT_RECEIVED = { reasonCode: '13.1', reason: 'Merchandise or services not received' } as const;

interface Remembered {
  readonly paymentId: string;
  readonly reference: string;
  readonly amount: Money;
  readonly reverses: boolean;
  readonly capturedAt: Date;
}

export interface DisputeMemory {
  /** A dispute card's payment captured `at` (once: a second capture call changes nothing). */
  captured(paymentId: string, reference: string, amount: Money, at: Date): Promise<void>;
  /** The reports dated after `after` and at or before `upTo`, in date order. */
  reportsBetween(after: Date, upTo: Date): Promise<DisputeReport[]>;
}

/** Whether the reference answered for a payment marks a dispute card's payment. */
export function isDisputed(reference: string): boolean {
  return reference.endsWith(DISPUTE_SUFFIX) || reference.endsWith(DISPUTE_WON_SUFFIX);
}

/** One poll: the reports after the cursor, and `now` as the next cursor. */
export async function pollDisputes(memory: DisputeMemory, cursor: string | null, now: Date): Promise<DisputeReports> {
  const stated = cursor ? new Date(cursor) : new Date(0);
  const after = Number.isNaN(stated.getTime()) ? new Date(0) : stated;
  // Never backwards: another process's clock may have run a little ahead of this one's.
  const upTo = after > now ? after : now;
  return { reports: await memory.reportsBetween(after, upTo), cursor: upTo.toISOString() };
}

function reportsOf(payment: Remembered, after: Date, upTo: Date): DisputeReport[] {
  const within = (at: Date) => at > after && at <= upTo;
  const cause = payment.reverses ? NOT_RECEIVED : FRAUD;
  const base = { disputeId: `simdp_${payment.paymentId}`, paymentReference: payment.reference, amount: payment.amount, ...cause };
  const opened = new Date(payment.capturedAt.getTime() + DAY_MS);
  const reversed = new Date(payment.capturedAt.getTime() + 2 * DAY_MS);
  return [
    ...(within(opened) ? [{ ...base, stage: 'opened' as const, at: opened }] : []),
    ...(payment.reverses && within(reversed) ? [{ ...base, stage: 'reversed' as const, at: reversed }] : []),
  ];
}

function inDateOrder(reports: DisputeReport[]): DisputeReport[] {
  return reports.sort((a, b) => a.at.getTime() - b.at.getTime() || (a.stage === b.stage ? 0 : a.stage === 'opened' ? -1 : 1));
}

export function disputesIn(database: Database | undefined): DisputeMemory {
  if (!database) return disputesInMemory();
  return {
    captured: async (paymentId, reference, amount, at) => {
      await database.query(
        `INSERT INTO simulator_disputes (payment_id, reference, amount, currency, reverses, captured_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (payment_id) DO NOTHING`,
        [paymentId, reference, amount.minor, amount.currency, reference.endsWith(DISPUTE_WON_SUFFIX), at.toISOString()],
      );
    },
    reportsBetween: async (after, upTo) => {
      // Captured within two days before the window's start, or since: their reports may fall in it.
      const rows = await database.query<{ payment_id: string; reference: string; amount: string | number; currency: string; reverses: boolean; captured_at: string | Date }>(
        `SELECT payment_id, reference, amount, currency, reverses, captured_at FROM simulator_disputes
          WHERE captured_at > $1::timestamptz AND captured_at <= $2::timestamptz`,
        [new Date(after.getTime() - 2 * DAY_MS).toISOString(), new Date(upTo.getTime() - DAY_MS).toISOString()],
      );
      const remembered = rows.map((row) => ({
        paymentId: row.payment_id,
        reference: row.reference,
        amount: { minor: Number(row.amount), currency: row.currency },
        reverses: row.reverses,
        capturedAt: new Date(row.captured_at),
      }));
      return inDateOrder(remembered.flatMap((payment) => reportsOf(payment, after, upTo)));
    },
  };
}

function disputesInMemory(): DisputeMemory {
  const remembered = new Map<string, Remembered>();
  return {
    captured: async (paymentId, reference, amount, at) => {
      if (!remembered.has(paymentId)) remembered.set(paymentId, { paymentId, reference, amount, reverses: reference.endsWith(DISPUTE_WON_SUFFIX), capturedAt: at });
    },
    reportsBetween: async (after, upTo) => inDateOrder([...remembered.values()].flatMap((payment) => reportsOf(payment, after, upTo))),
  };
}
