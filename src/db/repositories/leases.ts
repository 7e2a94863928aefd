// The one lease every sweeper claims its work with. A queue is rows of one table that fall due at
// a time set from the injected clock (never the database's now()); `leaseDue` picks the due rows
// no one holds with FOR UPDATE SKIP LOCKED and stamps a lease ending at `lease.until`, in one
// statement that commits before the caller asks the processor. Two workers never get the same
// row; a worker that dies leaves its lease to run out, and the row is then due again.
import { sql } from 'drizzle-orm';
import { rowsOf, type Executor } from '../client.ts';

export interface Lease {
  /** The injected clock's time when the lease is taken. */
  readonly now: Date;
  /** When the lease runs out and the row may be taken by another worker. */
  readonly until: Date;
  /** Names the holder, where the queue records one (to record only while the lease is still ours). */
  readonly token: string;
}

export interface LeaseQueue {
  readonly table: 'payments' | 'payment_operations' | 'refunds' | 'events' | 'subscriptions' | 'subscription_charges' | 'payouts';
  /** The rows the queue holds: a constant predicate on the table's own columns. */
  readonly holds: string;
  /** The column of the time a row falls due (NULL: due at once). */
  readonly dueColumn: string;
  /** The column of the lease's end; when it is the due column, a lease just pushes the due time on. */
  readonly leaseColumn: string;
  readonly tokenColumn?: string;
  /** Whether the table counts attempts (`attempts`), bumped by each lease. */
  readonly countsAttempts: boolean;
  /** A column the caller narrows the queue by (`LeaseOptions.scope`), such as the connector. */
  readonly scopeColumn?: string;
}

export interface LeaseOptions {
  /** Rows are due when their due time is at or before this (default: the lease's `now`). */
  readonly dueBy?: Date;
  /** Only rows whose `scopeColumn` has this value. */
  readonly scope?: string;
}

export function lease(now: Date, ms: number, token = ''): Lease {
  return { now, until: new Date(now.getTime() + ms), token };
}

/** Leases up to `limit` due rows of `queue` no one holds; answers them as raw rows (snake_case). */
export async function leaseDue<Row = Record<string, unknown>>(
  db: Executor,
  queue: LeaseQueue,
  held: Lease,
  limit: number,
  options: LeaseOptions = {},
): Promise<Row[]> {
  const table = sql.raw(queue.table);
  const due = sql.raw(queue.dueColumn);
  const leaseColumn = sql.raw(queue.leaseColumn);
  const now = sql`${held.now.toISOString()}::timestamptz`;
  const dueBy = sql`${(options.dueBy ?? held.now).toISOString()}::timestamptz`;
  if (options.scope !== undefined && !queue.scopeColumn) throw new Error(`queue of ${queue.table} has no scope`);
  const scope = options.scope !== undefined ? sql` AND ${sql.raw(queue.scopeColumn!)} = ${options.scope}` : sql``;
  const free = queue.leaseColumn === queue.dueColumn ? sql`` : sql` AND (${leaseColumn} IS NULL OR ${leaseColumn} <= ${now})`;
  const attempts = queue.countsAttempts ? sql`, attempts = t.attempts + 1` : sql``;
  const token = queue.tokenColumn ? sql`, ${sql.raw(queue.tokenColumn)} = ${held.token}` : sql``;
  return rowsOf<Row>(
    db,
    sql`UPDATE ${table} t SET ${leaseColumn} = ${held.until.toISOString()}::timestamptz${attempts}${token}
        FROM (SELECT id FROM ${table}
              WHERE ${sql.raw(queue.holds)} AND (${due} IS NULL OR ${due} <= ${dueBy})${free}${scope}
              ORDER BY ${due} NULLS FIRST, id
              LIMIT ${limit}
              FOR UPDATE SKIP LOCKED) due
        WHERE t.id = due.id
        RETURNING t.*`,
  );
}

/** The queues of src/jobs/tasks.ts. */
export const QUEUES = {
  /** Payments whose outcome the processor has not told us. */
  unknownPayments: { table: 'payments', holds: `status = 'processing' AND next_check_at IS NOT NULL`, dueColumn: 'next_check_at', leaseColumn: 'next_check_at', countsAttempts: false },
  /** Payments waiting for the shopper (hosted page, APM, 3-D Secure challenge) past their deadline. */
  abandonedPayments: {
    table: 'payments',
    holds: `status IN ('requires_redirect', 'requires_authentication') AND next_check_at IS NOT NULL`,
    dueColumn: 'next_check_at',
    leaseColumn: 'next_check_at',
    countsAttempts: false,
  },
  /**
   * Authorisations never captured, due when older (created_at, the clock's) than their connector's
   * expiry: the caller leases per connector with `dueBy` = now − the connector's expiry days.
   * next_check_at (unused while authorised) holds the lease.
   */
  expiringAuthorisations: {
    table: 'payments',
    holds: `status = 'authorised'`,
    dueColumn: 'created_at',
    leaseColumn: 'next_check_at',
    scopeColumn: 'connector',
    countsAttempts: false,
  },
  /** Captures and voids whose answer was lost or pending. */
  pendingOperations: { table: 'payment_operations', holds: `status = 'pending'`, dueColumn: 'next_check_at', leaseColumn: 'next_check_at', countsAttempts: true },
  /** Refunds the processor settles later, or whose answer was lost. */
  pendingRefunds: { table: 'refunds', holds: `status = 'pending'`, dueColumn: 'next_check_at', leaseColumn: 'next_check_at', countsAttempts: true },
  /** Active subscriptions whose next charge is due (next_charge_at; NULL while an attempt is open). */
  dueSubscriptions: {
    table: 'subscriptions',
    holds: `status = 'Active' AND next_charge_at IS NOT NULL`,
    dueColumn: 'next_charge_at',
    leaseColumn: 'locked_until',
    countsAttempts: false,
  },
  /** Claimed attempts at a subscription's charge, not yet recorded (new, or their worker died, or their payment still pending). */
  pendingSubscriptionCharges: {
    table: 'subscription_charges',
    holds: `status = 'pending'`,
    dueColumn: 'next_check_at',
    leaseColumn: 'next_check_at',
    countsAttempts: true,
  },
  /**
   * Payouts the rail task moves on: scheduled ones on their payment_date, processing ones to ask
   * the rail about, completed ones still watched for a return (docs/payouts.md).
   */
  duePayouts: {
    table: 'payouts',
    holds: `status IN ('SCHEDULED', 'PROCESSING', 'COMPLETED') AND next_check_at IS NOT NULL`,
    dueColumn: 'next_check_at',
    leaseColumn: 'next_check_at',
    countsAttempts: true,
  },
  /** Notifications due for delivery. */
  dueNotifications: {
    table: 'events',
    holds: `delivery_status = 'pending'`,
    dueColumn: 'next_attempt_at',
    leaseColumn: 'locked_until',
    tokenColumn: 'lease_token',
    countsAttempts: true,
  },
} as const satisfies Record<string, LeaseQueue>;
