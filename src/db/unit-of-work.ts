// The one way a status change is written off the authorisation hot path: a unit of work. It
// opens a transaction and runs five steps, in this order, each a function the caller gives:
//   lock    — lock the row(s) it decides on (SELECT … FOR UPDATE), so the decision sees the
//             latest committed state and no other writer moves them meanwhile;
//   check   — decide from the locked rows: the state machine's Transition(s) (PAYMENT_MACHINE,
//             OPERATION_MACHINE, REFUND_MACHINE), or an answer without a change (already done);
//   change  — write the rows through the repositories, which take only a Transition;
//   journal — the balanced journals of the movement, written by the one journal writer;
//   event   — the merchant's event(s), recorded in the outbox (events) of the same transaction.
// Everything commits together or not at all: a failure at any step (the event's insert
// included) rolls back the state change and its journals.
//
// The other shape is the authorisation hot path (payments.ts claimPayment/writeOutcome): two
// constant prepared statements with a version check instead of a row lock, measured faster; it
// writes the same things (state through a Transition, journal rows from journalRows, the event)
// in one statement each. docs/architecture.md, "Writing a change".
import type { Database, RawQuery, Tx } from './client.ts';
import { recordEvent, recordJournalsAndEvents, type NewEvent } from './repositories/events.ts';
import { postJournal, type Journal } from './repositories/ledger.ts';

/** What `check` decided: a change to write, or an answer without writing anything. */
export type Decision<Change, Answer> = { readonly change: Change } | { readonly answer: Answer };

/** The five steps, on whatever the transaction runs statements with (`On`: a Drizzle Tx or a RawQuery). */
export interface UnitOfWorkSteps<On, Locked, Change, Written> {
  /** Locks and reads the rows the decision is made on. */
  lock(on: On): Promise<Locked>;
  /** Decides from the locked rows, making every state move with the state machine. */
  check(locked: Locked): Decision<Change, Written>;
  /** Writes the decided change (the rows' new states and columns). */
  change(on: On, change: Change): Promise<Written>;
  /** The journals the change books (none: an empty list). */
  journal?(change: Change, written: Written): readonly Journal[];
  /** The event the change notifies, if any (a change of several rows: their events, in order). */
  event?(change: Change, written: Written): NewEvent | readonly NewEvent[] | undefined;
}

const eventsOf = (event: NewEvent | readonly NewEvent[] | undefined): readonly NewEvent[] =>
  event === undefined ? [] : Array.isArray(event) ? event : [event as NewEvent];

export type UnitOfWork<Locked, Change, Written> = UnitOfWorkSteps<Tx, Locked, Change, Written>;

/** Runs one unit of work in its own transaction and answers what it wrote (or `check`'s answer). */
export async function runUnitOfWork<Locked, Change, Written>(database: Pick<Database, 'db'>, work: UnitOfWork<Locked, Change, Written>): Promise<Written> {
  return database.db.transaction((tx) => runUnitOfWorkIn(tx, work));
}

/**
 * The five steps inside a transaction the caller holds, which commits them with whatever else it
 * writes (the dispute poll: its reports and the connector's cursor together), or none of it.
 */
export async function runUnitOfWorkIn<Locked, Change, Written>(tx: Tx, work: UnitOfWork<Locked, Change, Written>): Promise<Written> {
  const decision = work.check(await work.lock(tx));
  if ('answer' in decision) return decision.answer;
  const written = await work.change(tx, decision.change);
  for (const journal of work.journal?.(decision.change, written) ?? []) await postJournal(tx, journal);
  for (const event of eventsOf(work.event?.(decision.change, written))) await recordEvent(tx, event);
  return written;
}

/**
 * The same five steps on raw statements (Database.transaction), for a unit of work run many times
 * a request (a refund batch settles each order): lock and change are constant prepared statements
 * the caller gives; the journal and event steps are written together in one statement
 * (recordJournalsAndEvents). Same order, same all-or-nothing transaction.
 */
export type RawUnitOfWork<Locked, Change, Written> = UnitOfWorkSteps<RawQuery, Locked, Change, Written>;

/** Runs one raw unit of work in its own transaction and answers what it wrote (or `check`'s answer). */
export async function runRawUnitOfWork<Locked, Change, Written>(
  database: Pick<Database, 'transaction'>,
  work: RawUnitOfWork<Locked, Change, Written>,
): Promise<Written> {
  return database.transaction(async (query) => {
    const decision = work.check(await work.lock(query));
    if ('answer' in decision) return decision.answer;
    const written = await work.change(query, decision.change);
    await recordJournalsAndEvents(query, work.journal?.(decision.change, written) ?? [], eventsOf(work.event?.(decision.change, written)));
    return written;
  });
}
