// Disputes (chargebacks) and where each feed's next poll for them starts. A dispute row is
// written only from its machine's Entry or Transition (DISPUTE_MACHINE), where the row still is in
// the move's `from` state. The cursor row of a feed is leased by the worker polling it (leaseDue
// on DISPUTE_POLLS or DISPUTE_FEED_POLLS), and moved on only by the transaction that records the
// reports the poll brought, and only while that worker still holds it.
import { and, asc, eq, inArray, isNotNull, sql, type SQL } from 'drizzle-orm';
import type { DisputeStatus } from '../../domain/disputes.ts';
import type { Entry, Transition } from '../../domain/state-machine.ts';
import { rowsOf, type Executor } from '../client.ts';
import { accounts, disputeCursors, disputeFeeds, disputes, payments, type AccountRow, type DisputeRow, type PaymentRow } from '../schema.ts';
import { lease, leaseDue, type LeaseClocks, type LeaseQueue } from './leases.ts';

/**
 * Where a dispute feed's cursor lives (migration 0035): a connector's one feed in `dispute_cursors`,
 * by connector; a merchant connection's (`disputesBy: 'credentials'`) in `dispute_feeds`, by the
 * MAC that names its credentials. `key` is '' for the connector's one feed.
 */
export interface DisputeFeed {
  readonly connector: string;
  readonly key: string;
}

/**
 * One row per feed, due at once (next_poll_at NULL) unless a worker's lease holds it: the task's
 * own interval paces the polls. Kept out of QUEUES on purpose: a cursor is always due, and
 * /metrics reads QUEUES as backlogs that should drain.
 */
export const DISPUTE_POLLS = {
  table: 'dispute_cursors',
  keyColumn: 'connector',
  holds: 'true',
  dueColumn: 'next_poll_at',
  dueOn: 'wall',
  leaseColumn: 'next_poll_at',
  tokenColumn: 'lease_token',
  countsAttempts: false,
  scopeColumn: 'connector',
} as const satisfies LeaseQueue;

export const DISPUTE_FEED_POLLS = { ...DISPUTE_POLLS, table: 'dispute_feeds', keyColumn: 'id', scopeColumn: 'id' } as const satisfies LeaseQueue;

/** The feed's queue and the key of its row there. */
function rowOf(feed: DisputeFeed): { queue: LeaseQueue; table: SQL; key: SQL; id: string } {
  const queue = feed.key === '' ? DISPUTE_POLLS : DISPUTE_FEED_POLLS;
  return { queue, table: sql.raw(queue.table), key: sql.raw(queue.keyColumn), id: feed.key === '' ? feed.connector : feed.key };
}

/** The ids of the connector's payments with these references (a reference no payment has is left out). */
export async function paymentIdsByReference(db: Executor, connector: string, references: readonly string[]): Promise<Map<string, string>> {
  if (references.length === 0) return new Map();
  const rows = await db
    .select({ id: payments.id, reference: payments.connectorReference })
    .from(payments)
    .where(and(eq(payments.connector, connector), inArray(payments.connectorReference, [...new Set(references)])));
  return new Map(rows.map((row) => [row.reference!, row.id]));
}

/** The connectors some account takes payments on: the ones whose disputes concern us. */
export async function connectorsInUse(db: Executor): Promise<string[]> {
  const rows = await db.selectDistinct({ connector: accounts.connector }).from(accounts);
  return rows.map((row) => row.connector).sort();
}

/** The accounts routed to `connector` that store credentials (sealed, as stored): each names the feed its credentials open to. */
export async function accountsWithCredentials(db: Executor, connector: string): Promise<AccountRow[]> {
  return db
    .select()
    .from(accounts)
    .where(and(eq(accounts.connector, connector), isNotNull(accounts.connectorCredentials)))
    .orderBy(asc(accounts.id));
}

/** The feed's cursor row, made on its first poll (no cursor: from the first report). */
export async function ensureCursor(db: Executor, feed: DisputeFeed): Promise<void> {
  if (feed.key === '') await db.insert(disputeCursors).values({ connector: feed.connector }).onConflictDoNothing();
  else await db.insert(disputeFeeds).values({ id: feed.key, connector: feed.connector }).onConflictDoNothing();
}

/** The connector's merchant-connection feeds that have a cursor row, by id: those polled at least once. */
export async function feedRows(db: Executor, connector: string): Promise<{ id: string; polledAt: Date | null }[]> {
  return db.select({ id: disputeFeeds.id, polledAt: disputeFeeds.polledAt }).from(disputeFeeds).where(eq(disputeFeeds.connector, connector)).orderBy(asc(disputeFeeds.id));
}

/** The feed's cursor row as it stands (null before its first poll). */
export async function cursorOf(db: Executor, feed: DisputeFeed): Promise<{ polledAt: Date | null; nextPollAt: Date | null } | null> {
  const { table, key, id } = rowOf(feed);
  const [row] = await rowsOf<{ polled_at: Date | string | null; next_poll_at: Date | string | null }>(db, sql`SELECT polled_at, next_poll_at FROM ${table} WHERE ${key} = ${id}`);
  const date = (value: Date | string | null) => (value === null ? null : new Date(value));
  return row ? { polledAt: date(row.polled_at), nextPollAt: date(row.next_poll_at) } : null;
}

/** Leases the feed's cursor for `leaseMs` of wall time; null when another worker holds it. */
export async function leaseCursor(db: Executor, clocks: LeaseClocks, feed: DisputeFeed, leaseMs: number, token: string): Promise<{ cursor: string | null } | null> {
  const { queue, id } = rowOf(feed);
  const [row] = await leaseDue<{ cursor: string | null }>(db, queue, lease(clocks, leaseMs, token), 1, { scope: id });
  return row ?? null;
}

/** Locks the cursor while `token` still holds it; false when the lease ran out and another took it. */
export async function lockOwnCursor(tx: Executor, feed: DisputeFeed, token: string): Promise<boolean> {
  const { table, key, id } = rowOf(feed);
  const rows = await rowsOf(tx, sql`SELECT 1 FROM ${table} WHERE ${key} = ${id} AND lease_token = ${token} FOR UPDATE`);
  return rows.length > 0;
}

/** Holds the lease `until` then, while `token` still holds it (a poll recording part by part). */
export async function renewCursorLease(tx: Executor, feed: DisputeFeed, token: string, until: Date): Promise<void> {
  const { table, key, id } = rowOf(feed);
  await tx.execute(sql`UPDATE ${table} SET next_poll_at = ${until.toISOString()}::timestamptz WHERE ${key} = ${id} AND lease_token = ${token}`);
}

/** Moves the cursor on and lets go of the lease (due again at once). */
export async function advanceCursor(tx: Executor, feed: DisputeFeed, cursor: string, polledAt: Date): Promise<void> {
  const { table, key, id } = rowOf(feed);
  await tx.execute(
    sql`UPDATE ${table} SET cursor = ${cursor}, next_poll_at = NULL, lease_token = NULL, polled_at = ${polledAt.toISOString()}::timestamptz WHERE ${key} = ${id}`,
  );
}

/** Locks the payment a report names by its reference at the processor; null when none has it. */
export async function lockPaymentByReference(tx: Executor, connector: string, reference: string): Promise<PaymentRow | null> {
  const [row] = await tx
    .select()
    .from(payments)
    .where(and(eq(payments.connector, connector), eq(payments.connectorReference, reference)))
    .limit(1)
    .for('update');
  return row ?? null;
}

/** The dispute the acquirer calls `connectorDisputeId`; read under its payment's lock. */
export async function findDispute(tx: Executor, connector: string, connectorDisputeId: string): Promise<DisputeRow | null> {
  const [row] = await tx.select().from(disputes).where(and(eq(disputes.connector, connector), eq(disputes.connectorDisputeId, connectorDisputeId)));
  return row ?? null;
}

/** What the payment's open disputes hold back in all (reversed ones gave theirs back); read under its lock. */
export async function openDisputedAmount(tx: Executor, paymentId: string): Promise<number> {
  const [row] = await tx
    .select({ amount: sql<string>`coalesce(sum(${disputes.amount}), 0)` })
    .from(disputes)
    .where(and(eq(disputes.paymentId, paymentId), eq(disputes.status, 'open')));
  return Number(row!.amount);
}

export async function insertDispute(tx: Executor, entry: Entry<DisputeStatus>, row: Omit<DisputeRow, 'status'>): Promise<DisputeRow> {
  const [inserted] = await tx.insert(disputes).values({ ...row, status: entry.to }).returning();
  return inserted!;
}

export async function transitionDispute(tx: Executor, id: string, move: Transition<DisputeStatus>, changes: Partial<Pick<DisputeRow, 'reversedAt'>>): Promise<DisputeRow> {
  const [row] = await tx
    .update(disputes)
    .set({ ...changes, status: move.to })
    .where(and(eq(disputes.id, id), eq(disputes.status, move.from)))
    .returning();
  if (!row) throw new Error(`dispute ${id} is no longer ${move.from}: lock its payment before moving it`);
  return row;
}

