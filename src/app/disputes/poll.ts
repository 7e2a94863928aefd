// The poll-disputes task: asks each connector in use that reports disputes by polling
// (`disputes` on the port) for the reports of each of its feeds (feeds.ts: the connector's one
// feed, or one per merchant connection's credentials) after the feed's stored cursor, and records
// them with recordDispute. The feed's cursor row is leased first (DISPUTE_POLLS or
// DISPUTE_FEED_POLLS, committed before the acquirer is asked), so two workers never poll one feed
// at once; the reports are written in transactions of at most REPORTS_PER_TRANSACTION, the new
// cursor with the last, each only while the lease is still this worker's (and renewing it). A
// worker killed after polling, or whose transaction failed, leaves the cursor where it was: once
// its lease runs out, the next poll starts from there again and records each report once (a
// report seen twice changes nothing). The acquirer hands a report out once, so one the core cannot
// place yet (its payment's outcome still unknown, so no reference) is held in the transaction that
// records its part, and offered again with each later poll of its feed, until it is placed
// (held-disputes.ts).
import { randomUUID } from 'node:crypto';
import type { Connector, DisputeReport } from '../../connectors/port.ts';
import { advanceCursor, connectorsInUse, ensureCursor, leaseCursor, lockOwnCursor, paymentIdsByReference, renewCursorLease } from '../../db/repositories/disputes.ts';
import { heldReports, holdReport, releaseReport } from '../../db/repositories/held-disputes.ts';
import { callConnector } from '../batch/calls-in-flight.ts';
import type { Deps } from '../context.ts';
import { feedsOf, type PolledFeed } from './feeds.ts';
import { recordDisputeIn, type DisputeRecorded } from './record.ts';

/** Held reports offered again with one poll, the longest untried first; the rest wait for the next polls. */
const HELD_PER_POLL = 100;
/** Reports recorded in one transaction (its payments locked until it commits). */
export const REPORTS_PER_TRANSACTION = 100;

/** A report and whether it was held from an earlier poll. */
interface Offered {
  readonly report: DisputeReport;
  readonly held: boolean;
}

/** One round; answers how many reports changed something (a dispute opened or reversed). */
export async function pollDisputes(deps: Deps, perTransaction = REPORTS_PER_TRANSACTION): Promise<number> {
  let recorded = 0;
  for (const name of await connectorsInUse(deps.database.db)) {
    const connector = deps.connectors.get(name);
    if (!connector?.disputes) continue;
    const poll = connector.disputes.bind(connector);
    const { feeds, unopened } = await feedsOf(deps, name, connector);
    for (const { accountId, error } of unopened) {
      deps.log.error({ accountId, connector: name, err: error }, "the account's connector credentials could not be opened: its dispute feed is not polled");
    }
    // The first feed's poll also offers the held reports of feeds no longer polled (heldReports).
    const current = feeds.map(({ feed }) => feed.key);
    for (const [i, feed] of feeds.entries()) recorded += await pollFeed(deps, feed, poll, perTransaction, i === 0 ? current : undefined);
  }
  return recorded;
}

async function pollFeed(
  deps: Deps,
  { feed, credentials }: PolledFeed,
  poll: NonNullable<Connector['disputes']>,
  perTransaction: number,
  adopting?: readonly string[],
): Promise<number> {
  const db = deps.database.db;
  const { connector } = feed;
  // The feed's name (a MAC, never the credentials) says which merchant connection a line is about.
  const logged = feed.key === '' ? { connector } : { connector, feed: feed.key };
  await ensureCursor(db, feed);
  const token = randomUUID();
  const leased = await leaseCursor(db, deps, feed, deps.config.processor.leaseMs, token);
  if (!leased) return 0; // another worker is polling it
  // Under the deadline; no answer is asked again when the lease runs out.
  const answer = await callConnector(deps, (signal) => poll({ cursor: leased.cursor, signal, credentials }));
  if (!answer.ok) {
    deps.log.warn({ ...logged, error: answer.error.kind }, 'dispute poll got no answer: asked again when its lease runs out');
    return 0;
  }
  // Held reports go before the poll's own: they came first (an opening held before its reversal).
  const kept = await heldReports(db, feed, HELD_PER_POLL, adopting);
  const offered = [...kept.map((report) => ({ report, held: true })), ...answer.value.reports.map((report) => ({ report, held: false }))];
  // Recorded in their payments' id order, the order the refund batch's statements lock several
  // payments in (its claim and its lock, ORDER BY p.id): in the acquirer's order, this transaction
  // could hold one payment while such a statement held the next, each waiting for the other.
  // Reports of one payment keep their order (an `opened` before its `reversed`).
  const reports = await inPaymentOrder(deps, connector, offered);
  const now = deps.wallClock.now();
  const outcomes: DisputeRecorded[] = [];
  // In transactions of a bounded size, each renewing the lease, the last moving the cursor: a
  // backlog of thousands (a feed the gateway fell behind on) neither holds thousands of payments'
  // locks for as long as it takes, nor outlives the lease and is polled again from the start by
  // another worker, for ever. A transaction that fails keeps the cursor where it was: the next
  // poll brings the reports again and those already recorded change nothing.
  for (let start = 0; start === 0 || start < reports.length; start += perTransaction) {
    const part = reports.slice(start, start + perTransaction);
    const last = start + perTransaction >= reports.length;
    const done = await db.transaction(async (tx): Promise<DisputeRecorded[] | null> => {
      if (!(await lockOwnCursor(tx, feed, token))) return null;
      const recorded: DisputeRecorded[] = [];
      for (const { report, held } of part) {
        const outcome = await recordDisputeIn(tx, deps, { connector, report });
        if (outcome.outcome === 'skipped') await holdReport(tx, feed, report, outcome.reason, now);
        else if (held) await releaseReport(tx, connector, report);
        recorded.push(outcome);
      }
      if (last) await advanceCursor(tx, feed, answer.value.cursor, now);
      else await renewCursorLease(tx, feed, token, new Date(deps.wallClock.now().getTime() + deps.config.processor.leaseMs));
      return recorded;
    });
    if (done === null) {
      deps.log.warn({ ...logged, recorded: outcomes.length }, 'dispute poll outlived its lease: another worker polls again, nothing more recorded');
      break;
    }
    outcomes.push(...done);
  }
  outcomes.forEach((outcome, i) => {
    // Identifiers only: the acquirer's dispute id says which report to look for at the acquirer.
    const { report, held } = reports[i]!;
    const named = { ...logged, disputeId: report.disputeId, stage: report.stage };
    if (outcome.outcome === 'skipped' && !held) deps.log.warn({ ...named, reason: outcome.reason }, 'dispute report held: offered again with each poll');
    else if (outcome.outcome !== 'skipped' && held) deps.log.info({ ...named, outcome: outcome.outcome }, 'held dispute report placed');
  });
  return outcomes.filter((outcome) => outcome.outcome === 'opened' || outcome.outcome === 'reversed').length;
}

/** The reports sorted by their payment's id (stable; a report of no known payment last, as it came). */
async function inPaymentOrder(deps: Deps, connector: string, offered: readonly Offered[]): Promise<Offered[]> {
  const ids = await paymentIdsByReference(deps.database.db, connector, offered.map(({ report }) => report.paymentReference));
  const keyOf = ({ report }: Offered) => ids.get(report.paymentReference) ?? '\uffff';
  return offered
    .map((item, index) => ({ item, index, key: keyOf(item) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.index - b.index))
    .map(({ item }) => item);
}
