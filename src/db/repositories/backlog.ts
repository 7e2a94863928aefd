// What the background work has not done yet, for /metrics: one statement, read at scrape time.
// The notification queue's age since an event was written is measured on the database's own clock
// (created_at is written by it); each sweeper queue's backlog (QUEUES, the same predicates the
// sweepers lease with) is measured against business time, the time the sweepers compare with.
import type { Database } from '../client.ts';
import { QUEUES, type LeaseQueue } from './leases.ts';

export type QueueName = keyof typeof QUEUES;

export interface QueueBacklog {
  /** Rows the queue holds: due or not, leased or not. */
  readonly items: number;
  /** Rows due now that no worker holds: what the sweeper has yet to take. */
  readonly due: number;
  /** How long past its due time (a row due at once: its creation) the oldest of those has waited (seconds; 0 when none). */
  readonly oldestDueSeconds: number;
}

export interface Backlog {
  /** Events still to be delivered to a notify_url, and how long the oldest has waited (seconds). */
  readonly notificationsPending: number;
  readonly notificationsOldestSeconds: number;
  /** Payments whose authorisation outcome the processor has not told us yet. */
  readonly paymentsUnknown: number;
  /** Captures and cancels waiting on the processor. */
  readonly operationsPending: number;
  /** Refunds waiting on the processor. */
  readonly refundsPending: number;
  /** Dispute reports the gateway could not place yet (docs/chargebacks.md, "Reports held"). */
  readonly disputeReportsHeld: number;
  /** Each sweeper queue of src/jobs/tasks.ts. */
  readonly queues: Readonly<Record<QueueName, QueueBacklog>>;
}

/**
 * One queue's row: its predicate, due column and lease column as the sweeper leases with them.
 * `$1` is business time now; `$2` what counts as due (now, or now − the shortest authorisation
 * expiry for the expiring authorisations, whose due time is when their hold began, HOLD_START).
 */
function queueSelect(name: QueueName, queue: LeaseQueue): string {
  const dueBy = name === 'expiringAuthorisations' ? '$2::timestamptz' : '$1::timestamptz';
  const free = queue.leaseColumn === queue.dueColumn ? '' : ` AND (${queue.leaseColumn} IS NULL OR ${queue.leaseColumn} <= $1::timestamptz)`;
  const due = `(${queue.dueColumn} IS NULL OR ${queue.dueColumn} <= ${dueBy})${free}`;
  return `SELECT '${name}' AS queue, count(*)::int AS items, (count(*) FILTER (WHERE ${due}))::int AS due,
      COALESCE(extract(epoch FROM ${dueBy} - min(COALESCE(${queue.dueColumn}, created_at)) FILTER (WHERE ${due})), 0)::float8 AS oldest_due
    FROM ${queue.table} WHERE ${queue.holds}`;
}

const QUEUE_NAMES = Object.keys(QUEUES) as QueueName[];

// Built once from constant texts (the queues' own predicates), never from input.
const BACKLOG_SQL = `
SELECT
  (SELECT count(*) FROM events WHERE delivery_status = 'pending')::int AS notifications_pending,
  COALESCE((SELECT extract(epoch FROM now() - min(created_at)) FROM events WHERE delivery_status = 'pending'), 0)::float8 AS notifications_oldest,
  (SELECT count(*) FROM payments WHERE status = 'processing')::int AS payments_unknown,
  (SELECT count(*) FROM payment_operations WHERE status = 'pending')::int AS operations_pending,
  (SELECT count(*) FROM refunds WHERE status = 'pending')::int AS refunds_pending,
  (SELECT count(*) FROM held_dispute_reports)::int AS dispute_reports_held,
  (SELECT json_agg(q) FROM (${QUEUE_NAMES.map((name) => queueSelect(name, QUEUES[name])).join('\n    UNION ALL ')}) q) AS queues`;

interface BacklogRow {
  notifications_pending: number;
  notifications_oldest: number;
  payments_unknown: number;
  operations_pending: number;
  refunds_pending: number;
  dispute_reports_held: number;
  queues: { queue: QueueName; items: number; due: number; oldest_due: number }[] | string | null;
}

/** `now` is business time; `authorisationsDueBy` now less the shortest authorisation expiry. */
export async function readBacklog(database: Pick<Database, 'query'>, now: Date, authorisationsDueBy: Date): Promise<Backlog> {
  const [row] = await database.query<BacklogRow>(BACKLOG_SQL, [now.toISOString(), authorisationsDueBy.toISOString()], 'read_backlog');
  const listed = typeof row?.queues === 'string' ? (JSON.parse(row.queues) as Exclude<BacklogRow['queues'], string>) : row?.queues;
  const queues = Object.fromEntries(QUEUE_NAMES.map((name) => [name, { items: 0, due: 0, oldestDueSeconds: 0 }])) as Record<QueueName, QueueBacklog>;
  for (const q of listed ?? []) queues[q.queue] = { items: Number(q.items), due: Number(q.due), oldestDueSeconds: Math.max(0, Number(q.oldest_due)) };
  return {
    notificationsPending: Number(row?.notifications_pending ?? 0),
    notificationsOldestSeconds: Number(row?.notifications_oldest ?? 0),
    paymentsUnknown: Number(row?.payments_unknown ?? 0),
    operationsPending: Number(row?.operations_pending ?? 0),
    refundsPending: Number(row?.refunds_pending ?? 0),
    disputeReportsHeld: Number(row?.dispute_reports_held ?? 0),
    queues,
  };
}
