// The sandbox acquirer's disputes. A payment with a dispute test card (cards.ts) is approved as any
// other, with a reference that says so (`…_dispute`, `…_dispute_won`), so a capture needs no card
// to know it. Once captured (at authorisation for a sale, or by /v1/capture), the simulator
// remembers it, dated by the injected clock, and reports the dispute `opened` a day later, for the
// captured amount; the `…_dispute_won` one is also `reversed` two days after the capture. A real
// acquirer remembers its disputes across its restarts and whichever of our processes asks: this
// memory is a table of its own (simulator_disputes), empty in live mode; without a database (the
// connector contract's unit tests), the process's memory.
//
// The feed is acknowledged, as many acquirers' are: a poll hands out every report due by now and
// not yet delivered, under a new poll id that is the cursor it answers; a report counts as
// delivered once a later poll presents that cursor (the core stores a cursor only with the
// reports it came with recorded). A report handed out to a poll whose cursor never came back (the
// worker died) is handed out again. So no report is lost whatever clock dated its capture: a
// process that had not yet heard of `acquiro clock advance` may date a capture before a time
// another process already polled (a cursor of business time would skip it), and a report seen
// twice is recorded once by the core.
import { randomUUID } from 'node:crypto';
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
  /** Takes the reports handed out under `cursor` as delivered, then hands out those due by `now` and not delivered under `poll`. */
  handOut(cursor: string | null, poll: string, now: Date): Promise<DisputeReport[]>;
  /** The reference of a dispute card's payment it remembers as captured, if it does. */
  capturedReference(paymentId: string): Promise<string | undefined>;
}

/** Whether the reference answered for a payment marks a dispute card's payment. */
export function isDisputed(reference: string): boolean {
  return reference.endsWith(DISPUTE_SUFFIX) || reference.endsWith(DISPUTE_WON_SUFFIX);
}

/** One poll: the reports due and not yet delivered, in date order, and the poll's id as the next cursor. */
export async function pollDisputes(memory: DisputeMemory, cursor: string | null, now: Date): Promise<DisputeReports> {
  const poll = `simpoll_${randomUUID()}`;
  return { reports: inDateOrder(await memory.handOut(cursor, poll, now)), cursor: poll };
}

/** When the stage is reported: opened a day after the capture, reversed two days after. */
const DAYS_AFTER_CAPTURE = { opened: 1, reversed: 2 } as const satisfies Record<DisputeReport['stage'], number>;
const stageAt = (payment: Remembered, stage: DisputeReport['stage']) => new Date(payment.capturedAt.getTime() + DAYS_AFTER_CAPTURE[stage] * DAY_MS);
/** The latest capture whose `stage` is due by `now`: the one rule both memories apply. */
const capturedBy = (stage: DisputeReport['stage'], now: Date) => new Date(now.getTime() - DAYS_AFTER_CAPTURE[stage] * DAY_MS);

function reportOf(payment: Remembered, stage: DisputeReport['stage']): DisputeReport {
  const cause = payment.reverses ? NOT_RECEIVED : FRAUD;
  return { disputeId: `simdp_${payment.paymentId}`, paymentReference: payment.reference, amount: payment.amount, ...cause, stage, at: stageAt(payment, stage) };
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
    capturedReference: async (paymentId) => {
      const [row] = await database.query<{ reference: string }>('SELECT reference FROM simulator_disputes WHERE payment_id = $1', [paymentId]);
      return row?.reference;
    },
    handOut: async (cursor, poll, now) => {
      if (cursor !== null) {
        await database.query(
          `UPDATE simulator_disputes SET opened_acked = opened_acked OR coalesce(opened_poll = $1, false), reversed_acked = reversed_acked OR coalesce(reversed_poll = $1, false)
            WHERE (opened_poll = $1 AND NOT opened_acked) OR (reverses AND reversed_poll = $1 AND NOT reversed_acked)`,
          [cursor],
        );
      }
      const rows = await database.query<{ payment_id: string; reference: string; amount: string | number; currency: string; reverses: boolean; captured_at: string | Date; opens: boolean; closes: boolean }>(
        `WITH due AS (
           SELECT payment_id, NOT opened_acked AS opens, (reverses AND NOT reversed_acked AND captured_at <= $3::timestamptz) AS closes
             FROM simulator_disputes
            WHERE (NOT opened_acked OR (reverses AND NOT reversed_acked)) AND captured_at <= $2::timestamptz
         )
         UPDATE simulator_disputes s
            SET opened_poll = CASE WHEN due.opens THEN $1 ELSE s.opened_poll END,
                reversed_poll = CASE WHEN due.closes THEN $1 ELSE s.reversed_poll END
           FROM due WHERE s.payment_id = due.payment_id AND (due.opens OR due.closes)
         RETURNING s.payment_id, s.reference, s.amount, s.currency, s.reverses, s.captured_at, due.opens, due.closes`,
        [poll, capturedBy('opened', now).toISOString(), capturedBy('reversed', now).toISOString()],
      );
      return rows.flatMap((row) => {
        const payment: Remembered = {
          paymentId: row.payment_id,
          reference: row.reference,
          amount: { minor: Number(row.amount), currency: row.currency },
          reverses: row.reverses,
          capturedAt: new Date(row.captured_at),
        };
        return [...(row.opens ? [reportOf(payment, 'opened')] : []), ...(row.closes ? [reportOf(payment, 'reversed')] : [])];
      });
    },
  };
}

function disputesInMemory(): DisputeMemory {
  const remembered = new Map<string, Remembered & { opened: Delivery; reversed: Delivery }>();
  return {
    captured: async (paymentId, reference, amount, at) => {
      if (remembered.has(paymentId)) return;
      const reverses = reference.endsWith(DISPUTE_WON_SUFFIX);
      remembered.set(paymentId, { paymentId, reference, amount, reverses, capturedAt: at, opened: { poll: null, acked: false }, reversed: { poll: null, acked: false } });
    },
    capturedReference: async (paymentId) => remembered.get(paymentId)?.reference,
    handOut: async (cursor, poll, now) => {
      const reports: DisputeReport[] = [];
      for (const payment of remembered.values()) {
        for (const stage of ['opened', 'reversed'] as const) {
          const delivery = payment[stage];
          if (cursor !== null && delivery.poll === cursor) delivery.acked = true;
          const due = (stage === 'opened' || payment.reverses) && payment.capturedAt <= capturedBy(stage, now);
          if (due && !delivery.acked) {
            delivery.poll = poll;
            reports.push(reportOf(payment, stage));
          }
        }
      }
      return reports;
    },
  };
}

interface Delivery {
  poll: string | null;
  acked: boolean;
}
