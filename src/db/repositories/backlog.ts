// What the background work has not done yet, for /metrics: one statement, read at scrape time.
// Ages are measured on the database's own clock (created_at is written by it), so they stay right
// when the sandbox's business clock has been moved forward.
import type { Database } from '../client.ts';

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
}

const BACKLOG_SQL = `
SELECT
  (SELECT count(*) FROM events WHERE delivery_status = 'pending')::int AS notifications_pending,
  COALESCE((SELECT extract(epoch FROM now() - min(created_at)) FROM events WHERE delivery_status = 'pending'), 0)::float8 AS notifications_oldest,
  (SELECT count(*) FROM payments WHERE status = 'processing')::int AS payments_unknown,
  (SELECT count(*) FROM payment_operations WHERE status = 'pending')::int AS operations_pending,
  (SELECT count(*) FROM refunds WHERE status = 'pending')::int AS refunds_pending`;

interface BacklogRow {
  notifications_pending: number;
  notifications_oldest: number;
  payments_unknown: number;
  operations_pending: number;
  refunds_pending: number;
}

export async function readBacklog(database: Database): Promise<Backlog> {
  const [row] = await database.query<BacklogRow>(BACKLOG_SQL);
  return {
    notificationsPending: Number(row?.notifications_pending ?? 0),
    notificationsOldestSeconds: Number(row?.notifications_oldest ?? 0),
    paymentsUnknown: Number(row?.payments_unknown ?? 0),
    operationsPending: Number(row?.operations_pending ?? 0),
    refundsPending: Number(row?.refunds_pending ?? 0),
  };
}
