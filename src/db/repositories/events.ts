import { newEventId } from '../../domain/ids.ts';
import { PLATFORM_ACCOUNT_ID, PLATFORM_BOOKS } from '../../domain/ledger.ts';
import type { Executor, RawQuery } from '../client.ts';
import { events } from '../schema.ts';
import { journalRows, type Journal } from './ledger.ts';

export interface NewEvent {
  readonly accountId: string;
  readonly type: string;
  readonly paymentId?: string;
  readonly payload: Record<string, unknown>;
  readonly notifyUrl?: string | null;
}

/** Records an event in the caller's transaction: it exists if and only if the change commits. */
export async function recordEvent(tx: Executor, event: NewEvent): Promise<string> {
  const id = newEventId();
  await tx.insert(events).values({
    id,
    accountId: event.accountId,
    type: event.type,
    paymentId: event.paymentId ?? null,
    payload: event.payload,
    notifyUrl: event.notifyUrl ?? null,
    // Nothing to deliver without a notify_url: recorded all the same, never picked by the workers.
    deliveryStatus: event.notifyUrl ? 'pending' : 'no_target',
  });
  return id;
}

// The journal and event steps of a raw unit of work in one constant statement (prepared once per
// connection): every entry of every journal (rows from journalRows, booked to the platform account
// for PLATFORM_BOOKS) and every event. A data-modifying WITH runs whether or not it is read.
const JOURNALS_AND_EVENTS_SQL = `WITH entries AS (
    INSERT INTO ledger_entries (journal_id, account_id, book, kind, currency, amount, payment_id, reference_id, booked_at)
    SELECT e.journal_id, CASE WHEN e.book = ANY ($10::text[]) THEN $11 ELSE e.account_id END, e.book, e.kind, e.currency, e.amount,
           e.payment_id, e.reference_id, e.booked_at
      FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::timestamptz[])
        AS e(journal_id, account_id, book, kind, currency, amount, payment_id, reference_id, booked_at)
    RETURNING 1
  )
  INSERT INTO events (id, account_id, type, payment_id, payload, notify_url, delivery_status)
  SELECT * FROM unnest($12::text[], $13::text[], $14::text[], $15::text[], $16::jsonb[], $17::text[], $18::text[])`;

/** Writes balanced journals and records events with one raw statement, in the caller's transaction. */
export async function recordJournalsAndEvents(query: RawQuery, journals: readonly Journal[], events: readonly NewEvent[]): Promise<void> {
  const rows = journals.flatMap((journal) => journalRows(journal.kind, journal.entries, journal.key).map((row) => ({ ...row, journal })));
  if (rows.length === 0 && events.length === 0) return;
  await query(
    JOURNALS_AND_EVENTS_SQL,
    [
      rows.map((r) => r.journalId),
      rows.map((r) => r.journal.accountId),
      rows.map((r) => r.book),
      rows.map((r) => r.kind),
      rows.map((r) => r.journal.currency),
      rows.map((r) => r.amount),
      rows.map((r) => r.journal.paymentId ?? null),
      rows.map((r) => r.journal.referenceId ?? null),
      rows.map((r) => r.journal.at.toISOString()),
      [...PLATFORM_BOOKS],
      PLATFORM_ACCOUNT_ID,
      events.map(() => newEventId()),
      events.map((e) => e.accountId),
      events.map((e) => e.type),
      events.map((e) => e.paymentId ?? null),
      events.map((e) => JSON.stringify(e.payload)),
      events.map((e) => e.notifyUrl ?? null),
      // Nothing to deliver without a notify_url: recorded all the same, never picked by the workers.
      events.map((e) => (e.notifyUrl ? 'pending' : 'no_target')),
    ],
    'record_journals_and_events',
  );
}
