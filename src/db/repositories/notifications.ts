// Delivery state of the outbox (`events`) and the attempt log. A claim leases events to one worker
// (locked_until, lease_token) and opens their attempt rows in one short transaction; the HTTP
// call happens outside it; the outcome is recorded only while the lease is still the caller's.
import { and, asc, desc, eq, inArray, isNull, lt, sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Executor, type Tx } from '../client.ts';
import { leaseDue, QUEUES, type Lease } from './leases.ts';
import { accountKeys, accounts, events, notificationAttempts, type AttemptOutcome, type DeliveryStatus } from '../schema.ts';

export interface Claim {
  readonly id: string;
  readonly accountId: string;
  readonly type: string;
  readonly payload: Record<string, unknown>;
  readonly notifyUrl: string;
  readonly attempt: number;
  /** Failed attempts of the current schedule before this one. */
  readonly failures: number;
  readonly attemptId: number;
  readonly token: string;
  readonly notifyTime: number;
  readonly startedAt: Date;
}

export type { Lease } from './leases.ts';

type ClaimedRow = { id: string; account_id: string; type: string; payload: Record<string, unknown>; notify_url: string; attempts: number; failures: number };

const RETURNING = sql`RETURNING e.id, e.account_id, e.type, e.payload, e.notify_url, e.attempts, e.failures`;

/**
 * Leases up to `limit` due events; rows another worker holds are skipped, never waited for. At most
 * `perAccount` events of one account are leased at once, by all workers together (its attempts in
 * flight and replays counted), so one merchant's hanging receiver holds that many, never the queue.
 */
export function claimDue(db: Executor, lease: Lease, notifyTime: number, limit: number, perAccount = limit): Promise<Claim[]> {
  return db.transaction(async (tx) => {
    const rows = await leaseDue<ClaimedRow>(tx, QUEUES.dueNotifications, lease, limit, { perGroup: { column: 'account_id', limit: perAccount } });
    return openAttempts(tx, rows, lease, notifyTime, 'schedule');
  });
}

/**
 * Leases one event for a replay, whatever its status, and restarts its schedule. Null when it
 * does not exist, has no notify_url, or another attempt holds it right now. The event is pending
 * (and due) while the replay holds it: if the replaying process dies, a worker sends it once the
 * lease runs out, rather than leaving a failed event failed and unsent.
 */
export function claimForReplay(db: Executor, id: string, lease: Lease, notifyTime: number): Promise<Claim | null> {
  return db.transaction(async (tx) => {
    const rows = await rowsOf<ClaimedRow>(
      tx,
      sql`UPDATE events e SET attempts = e.attempts + 1, failures = 0, delivery_status = 'pending', next_attempt_at = NULL,
            locked_until = ${lease.until.toISOString()}::timestamptz, lease_token = ${lease.token}
          WHERE e.id = ${id} AND e.notify_url IS NOT NULL AND (e.locked_until IS NULL OR e.locked_until <= ${lease.now.toISOString()}::timestamptz)
          ${RETURNING}`,
    );
    const [claim] = await openAttempts(tx, rows, lease, notifyTime, 'replay');
    return claim ?? null;
  });
}

/** `notifyTime` is the wall clock's (Unix seconds), and so are the lease and startedAt (the retry schedule counts from it). */
async function openAttempts(tx: Tx, rows: ClaimedRow[], lease: Lease, notifyTime: number, trigger: 'schedule' | 'replay'): Promise<Claim[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  // An attempt still `sending` belonged to a worker whose lease ran out: it never reported.
  await tx
    .update(notificationAttempts)
    .set({ outcome: 'abandoned' })
    .where(and(inArray(notificationAttempts.eventId, ids), eq(notificationAttempts.outcome, 'sending')));
  const opened = await tx
    .insert(notificationAttempts)
    .values(rows.map((row) => ({ eventId: row.id, attempt: row.attempts, trigger, notifyTime, startedAt: lease.now })))
    .returning({ id: notificationAttempts.id, eventId: notificationAttempts.eventId });
  const attemptIds = new Map(opened.map((row) => [row.eventId, row.id]));
  return rows.map((row) => ({
    id: row.id,
    accountId: row.account_id,
    type: row.type,
    payload: row.payload,
    notifyUrl: row.notify_url,
    attempt: row.attempts,
    failures: row.failures,
    attemptId: attemptIds.get(row.id)!,
    token: lease.token,
    notifyTime,
    startedAt: lease.now,
  }));
}

export interface AttemptRecord {
  readonly outcome: Exclude<AttemptOutcome, 'sending' | 'abandoned'>;
  readonly httpStatus?: number;
  readonly latencyMs?: number;
  readonly error?: string;
  readonly responseExcerpt?: string;
  /** The event after this attempt. */
  readonly status: Exclude<DeliveryStatus, 'no_target'>;
  readonly failures: number;
  readonly nextAttemptAt: Date | null;
  readonly deliveredAt?: Date;
}

/** Records the attempt; the event moves only if the lease is still `claim`'s. Answers whether it did. */
export function recordAttempt(db: Executor, claim: Claim, record: AttemptRecord): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx
      .update(notificationAttempts)
      .set({
        outcome: record.outcome,
        httpStatus: record.httpStatus ?? null,
        latencyMs: record.latencyMs ?? null,
        error: record.error ?? null,
        responseExcerpt: record.responseExcerpt ?? null,
      })
      .where(eq(notificationAttempts.id, claim.attemptId));
    const moved = await tx
      .update(events)
      .set({
        deliveryStatus: record.status,
        failures: record.failures,
        nextAttemptAt: record.nextAttemptAt,
        lockedUntil: null,
        leaseToken: null,
        ...(record.deliveredAt ? { deliveredAt: record.deliveredAt } : {}),
      })
      .where(and(eq(events.id, claim.id), eq(events.leaseToken, claim.token)))
      .returning({ id: events.id });
    return moved.length > 0;
  });
}

/** The sealed current key of an account (rotated keys sign nothing new). */
export async function currentKey(db: Executor, accountId: string): Promise<{ id: string; secretCiphertext: string; vaultKeyId: string } | undefined> {
  const [key] = await db
    .select({ id: accountKeys.id, secretCiphertext: accountKeys.secretCiphertext, vaultKeyId: accountKeys.vaultKeyId })
    .from(accountKeys)
    .where(and(eq(accountKeys.accountId, accountId), isNull(accountKeys.expiresAt)))
    .orderBy(desc(accountKeys.createdAt))
    .limit(1);
  return key;
}

export interface NotificationFilter {
  readonly merchantId?: string;
  readonly accountId?: string;
  readonly status?: DeliveryStatus;
  readonly limit: number;
  /** Only events older than this notify_id (paging backwards). */
  readonly before?: string;
}

const summary = {
  notify_id: events.id,
  notify_type: events.type,
  merchant_id: accounts.merchantId,
  account_id: events.accountId,
  transaction_id: events.paymentId,
  status: events.deliveryStatus,
  attempts: events.attempts,
  next_attempt_at: events.nextAttemptAt,
  delivered_at: events.deliveredAt,
  created_at: events.createdAt,
  notify_url: events.notifyUrl,
};

export type NotificationSummary = Awaited<ReturnType<typeof listNotifications>>[number];

/** Newest first. */
export function listNotifications(db: Executor, filter: NotificationFilter) {
  const conditions: SQL[] = [];
  if (filter.merchantId) conditions.push(eq(accounts.merchantId, filter.merchantId));
  if (filter.accountId) conditions.push(eq(events.accountId, filter.accountId));
  if (filter.status) conditions.push(eq(events.deliveryStatus, filter.status));
  if (filter.before) conditions.push(lt(events.id, filter.before));
  return db
    .select(summary)
    .from(events)
    .innerJoin(accounts, eq(accounts.id, events.accountId))
    .where(and(...conditions))
    .orderBy(desc(events.id))
    .limit(filter.limit);
}

export async function findNotification(db: Executor, id: string) {
  const [event] = await db
    .select({ ...summary, payload: events.payload })
    .from(events)
    .innerJoin(accounts, eq(accounts.id, events.accountId))
    .where(eq(events.id, id));
  if (!event) return undefined;
  const attempts = await db
    .select({
      attempt: notificationAttempts.attempt,
      trigger: notificationAttempts.trigger,
      started_at: notificationAttempts.startedAt,
      notify_time: notificationAttempts.notifyTime,
      outcome: notificationAttempts.outcome,
      http_status: notificationAttempts.httpStatus,
      latency_ms: notificationAttempts.latencyMs,
      error: notificationAttempts.error,
      response_excerpt: notificationAttempts.responseExcerpt,
    })
    .from(notificationAttempts)
    .where(eq(notificationAttempts.eventId, id))
    .orderBy(asc(notificationAttempts.attempt));
  return { ...event, attempts };
}
