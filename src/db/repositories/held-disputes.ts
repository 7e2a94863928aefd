// Dispute reports the gateway could not place when their poll brought them (docs/chargebacks.md,
// "Reports held"). The acquirer hands each report out once, so one the core skips is kept here, in
// the transaction that moves the cursor past it, and offered again with each later poll of the feed
// that brought it. Only the worker holding that feed's cursor writes them (under its lock).
import { and, asc, eq, notInArray, or, sql } from 'drizzle-orm';
import type { DisputeReport } from '../../connectors/port.ts';
import type { Executor } from '../client.ts';
import type { DisputeFeed } from './disputes.ts';
import { heldDisputeReports, type HeldDisputeReportRow } from '../schema.ts';

/**
 * The feed's held reports that a poll offers again with its own: the longest untried first, so
 * that each is tried in its turn however many stay held (a try moves it to the back). `adopting`:
 * the keys of the connector's feeds polled now, when this poll also takes the held reports of its
 * connector's other feeds, those no account's credentials name any more (rotated keys): they
 * would otherwise never be offered again.
 */
export async function heldReports(db: Executor, feed: DisputeFeed, limit: number, adopting?: readonly string[]): Promise<DisputeReport[]> {
  const ofFeed = eq(heldDisputeReports.feed, feed.key);
  const rows = await db
    .select()
    .from(heldDisputeReports)
    .where(and(eq(heldDisputeReports.connector, feed.connector), adopting ? or(ofFeed, notInArray(heldDisputeReports.feed, [...adopting])) : ofFeed))
    .orderBy(asc(heldDisputeReports.triedAt), asc(heldDisputeReports.heldAt), asc(heldDisputeReports.connectorDisputeId), asc(heldDisputeReports.stage))
    .limit(limit);
  return rows.map(reportOf);
}

/** Holds a report the core skipped, or counts one more try of one held already, as the feed's that tried it. */
export async function holdReport(tx: Executor, feed: DisputeFeed, report: DisputeReport, skipReason: string, now: Date): Promise<void> {
  await tx
    .insert(heldDisputeReports)
    .values({
      connector: feed.connector,
      feed: feed.key,
      connectorDisputeId: report.disputeId,
      stage: report.stage,
      paymentReference: report.paymentReference,
      amount: report.amount.minor,
      currency: report.amount.currency,
      reasonCode: report.reasonCode,
      reason: report.reason ?? null,
      reportedAt: report.at,
      skipReason,
      heldAt: now,
      triedAt: now,
    })
    .onConflictDoUpdate({
      target: [heldDisputeReports.connector, heldDisputeReports.connectorDisputeId, heldDisputeReports.stage],
      // Tried by another feed than the one that held it (one adopted, heldReports): now that one's.
      set: { skipReason, attempts: sql`${heldDisputeReports.attempts} + 1`, triedAt: now, feed: feed.key },
    });
}

/** Lets go of a held report once it is placed (recorded, or found recorded already). */
export async function releaseReport(tx: Executor, connector: string, report: DisputeReport): Promise<void> {
  await tx
    .delete(heldDisputeReports)
    .where(and(eq(heldDisputeReports.connector, connector), eq(heldDisputeReports.connectorDisputeId, report.disputeId), eq(heldDisputeReports.stage, report.stage)));
}

/** Forgets the held reports of one dispute (both stages), settled with the acquirer; answers how many. */
export async function forgetHeldDispute(db: Executor, connector: string, disputeId: string): Promise<number> {
  const gone = await db
    .delete(heldDisputeReports)
    .where(and(eq(heldDisputeReports.connector, connector), eq(heldDisputeReports.connectorDisputeId, disputeId)))
    .returning({ stage: heldDisputeReports.stage });
  return gone.length;
}

/** Every held report, the longest held first (`acquiro disputes held`). */
export function listHeldReports(db: Executor): Promise<HeldDisputeReportRow[]> {
  return db.select().from(heldDisputeReports).orderBy(asc(heldDisputeReports.heldAt), asc(heldDisputeReports.connector), asc(heldDisputeReports.connectorDisputeId));
}

function reportOf(row: HeldDisputeReportRow): DisputeReport {
  return {
    disputeId: row.connectorDisputeId,
    paymentReference: row.paymentReference,
    stage: row.stage,
    amount: { minor: row.amount, currency: row.currency },
    reasonCode: row.reasonCode,
    ...(row.reason === null ? {} : { reason: row.reason }),
    at: row.reportedAt,
  };
}
