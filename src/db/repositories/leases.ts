// The one lease every sweeper claims its work with. A queue is rows of one table that fall due at
// a time set from one of the two injected clocks (never the database's now()); `leaseDue` picks the
// due rows no one holds with FOR UPDATE SKIP LOCKED and stamps a lease ending at `lease.until`, in
// one statement that commits before the caller asks the processor. Two workers never get the same
// row; a worker that dies leaves its lease to run out, and the row is then due again.
//
// Two clocks, stated per queue. A due time is on business time (`dueOn: 'business'`: a charge's
// date, a payout's payment date, a shopper's deadline) or on wall time (`dueOn: 'wall'`: "ask the
// processor again", a notification's retry). A LEASE is always wall time: the sandbox's test clock
// may jump business time forward by days while a worker holds a row, and a lease measured on it
// would run out at once. So a column that is both a due time and a lease (leaseColumn ===
// dueColumn: the lease just pushes the due time on) is only allowed on a wall-time queue; a
// business-time queue keeps its lease in a column of its own (locked_until, leased_until).
import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Executor } from '../client.ts';

/** Which clock a column is measured on. */
export type ClockKind = 'business' | 'wall';

/** The two clocks of the app's deps (business time `clock`, `wallClock`). */
export interface LeaseClocks {
  readonly clock: { now(): Date };
  readonly wallClock: { now(): Date };
}

export interface Lease {
  /** Wall time when the lease is taken; wall-time queues are due by it. */
  readonly now: Date;
  /** Wall time when the lease runs out and the row may be taken by another worker. */
  readonly until: Date;
  /** Business time when the lease is taken; business-time queues are due by it. */
  readonly businessNow: Date;
  /** Names the holder, where the queue records one (to record only while the lease is still ours). */
  readonly token: string;
}

export interface LeaseQueue {
  readonly table: 'payments' | 'payment_operations' | 'refunds' | 'events' | 'subscriptions' | 'subscription_charges' | 'payouts' | 'dispute_cursors' | 'dispute_feeds';
  /** The table's key column; `id` when absent. */
  readonly keyColumn?: string;
  /**
   * The rows the queue holds: a constant predicate on the table's own columns (the table
   * unaliased; a sub-select may read other tables by it, as duePayouts reads the account's status).
   */
  readonly holds: string;
  /** The column of the time a row falls due (NULL: due at once). */
  readonly dueColumn: string;
  /** The clock `dueColumn` is measured on. */
  readonly dueOn: ClockKind;
  /**
   * The column of the lease's end, always wall time; when it is the due column (wall-time queues
   * only), a lease just pushes the due time on.
   */
  readonly leaseColumn: string;
  readonly tokenColumn?: string;
  /** Whether the table counts attempts (`attempts`), bumped by each lease. */
  readonly countsAttempts: boolean;
  /** A column the caller narrows the queue by (`LeaseOptions.scope`), such as the connector. */
  readonly scopeColumn?: string;
}

export interface LeaseOptions {
  /** Rows are due when their due time is at or before this (default: the lease's time on the queue's `dueOn` clock). */
  readonly dueBy?: Date;
  /** Only rows whose `scopeColumn` has this value. */
  readonly scope?: string;
  /**
   * At most `limit` rows with one value of `column` leased at once, counting the leases any worker
   * already holds: one group whose work hangs (a merchant's receiver) cannot take every lease.
   */
  readonly perGroup?: { readonly column: string; readonly limit: number };
}

/** A lease of `ms` on the wall clock, taken now. */
export function lease(clocks: LeaseClocks, ms: number, token = ''): Lease {
  const now = clocks.wallClock.now();
  return { now, until: new Date(now.getTime() + ms), businessNow: clocks.clock.now(), token };
}

/** Leases up to `limit` due rows of `queue` no one holds; answers them as raw rows (snake_case). */
export async function leaseDue<Row = Record<string, unknown>>(
  db: Executor,
  queue: LeaseQueue,
  held: Lease,
  limit: number,
  options: LeaseOptions = {},
): Promise<Row[]> {
  return rowsOf<Row>(db, leaseStatement(queue, held, limit, options));
}

/** The one statement of `leaseDue` (apart, so a test can EXPLAIN it: which index serves the queue). */
export function leaseStatement(queue: LeaseQueue, held: Lease, limit: number, options: LeaseOptions = {}): SQL {
  const table = sql.raw(queue.table);
  const key = sql.raw(queue.keyColumn ?? 'id');
  const due = sql.raw(queue.dueColumn);
  const leaseColumn = sql.raw(queue.leaseColumn);
  const now = sql`${held.now.toISOString()}::timestamptz`;
  if (queue.dueOn === 'business' && queue.leaseColumn === queue.dueColumn) throw new Error(`queue of ${queue.table}: a lease is wall time, not ${queue.dueColumn}`);
  const dueBy = sql`${(options.dueBy ?? (queue.dueOn === 'wall' ? held.now : held.businessNow)).toISOString()}::timestamptz`;
  if (options.scope !== undefined && !queue.scopeColumn) throw new Error(`queue of ${queue.table} has no scope`);
  const scope = options.scope !== undefined ? sql` AND ${sql.raw(queue.scopeColumn!)} = ${options.scope}` : sql``;
  const free = queue.leaseColumn === queue.dueColumn ? sql`` : sql` AND (${leaseColumn} IS NULL OR ${leaseColumn} <= ${now})`;
  const attempts = queue.countsAttempts ? sql`, attempts = t.attempts + 1` : sql``;
  const token = queue.tokenColumn ? sql`, ${sql.raw(queue.tokenColumn)} = ${held.token}` : sql``;
  const rows = options.perGroup
    ? groupCapped(queue, options.perGroup, { dueBy, free, scope, now, limit })
    : sql`SELECT ${key} FROM ${table}
              WHERE ${sql.raw(queue.holds)} AND (${due} IS NULL OR ${due} <= ${dueBy})${free}${scope}
              ORDER BY ${due} NULLS FIRST, ${key}
              LIMIT ${limit}
              FOR UPDATE SKIP LOCKED`;
  return sql`UPDATE ${table} t SET ${leaseColumn} = ${held.until.toISOString()}::timestamptz${attempts}${token}
        FROM (${rows}) due
        WHERE t.${key} = due.${key}
        RETURNING t.*`;
}

/** Groups kept per row to lease (groupCapped, step 2). */
const GROUPS_PER_ROW = 4;

/**
 * The due rows of a queue capped per group, at most `limit` of them in the queue's order, locked.
 * A group may hold `cap.limit` leases at once: its due rows, those leased first, are numbered in
 * the order the queue takes them, and a free row is taken only if its number is within the cap. A
 * lease does not move the due time (leaseColumn ≠ dueColumn), so a leased row is still among the
 * due ones.
 *
 * Nothing sorts the due rows (numbering them with a window did, every one of them, every round):
 * 1. One pass over the due rows, through the queue's index, counts each group's leases and notes
 *    its first free row (a hash aggregate).
 * 2. The `limit` groups with room whose first free rows come first, ties included, are the only
 *    ones the answer can draw on: each holds a row at least as early as any row of a group left out.
 *    Four times as many are kept: a worker whose claim meets another's in flight skips the rows
 *    that one holds (SKIP LOCKED) and still finds others to take.
 * 3. Each of them takes its first free due rows, at most the cap less its leases, in order from an
 *    index on (group, due time, key) whose predicate is the queue's (events_delivery_due_account,
 *    migration 0032). The rows due at once (NULL) and those due by now are read apart, so that a
 *    scan stops at the due time instead of reading the group's later rows.
 * 4. Those rows, at most the cap for each of those groups, are sorted in the queue's order and locked.
 * The outer statement's predicates are checked again on a row another worker leased meanwhile.
 */
function groupCapped(queue: LeaseQueue, cap: { column: string; limit: number }, on: { dueBy: SQL; free: SQL; scope: SQL; now: SQL; limit: number }): SQL {
  if (queue.leaseColumn === queue.dueColumn) throw new Error(`queue of ${queue.table}: a cap per group needs a lease column apart from ${queue.dueColumn}`);
  const table = sql.raw(queue.table);
  const key = sql.raw(queue.keyColumn ?? 'id');
  const due = sql.raw(queue.dueColumn);
  const group = sql.raw(cap.column);
  const holds = sql.raw(queue.holds);
  const lease = sql.raw(queue.leaseColumn);
  const { dueBy, free, scope, now, limit } = on;
  const isDue = sql`(${due} IS NULL OR ${due} <= ${dueBy})`;
  const leased = sql`(${lease} IS NOT NULL AND ${lease} > ${now})`;
  const first = (bound: SQL) => sql`(SELECT ${key} AS g_key, ${due} AS g_due FROM ${table}
                      WHERE ${holds} AND ${group} = g.g_group AND ${bound}${free}${scope} ORDER BY ${due} NULLS FIRST, ${key} LIMIT ${cap.limit})`;
  return sql`SELECT ${table}.${key} FROM ${table} JOIN (
                SELECT c.g_key, c.g_due FROM (
                  SELECT g_group, g_leased FROM (
                    SELECT ${group} AS g_group, count(*) FILTER (WHERE ${leased}) AS g_leased,
                           min(coalesce(${due}, '-infinity'::timestamptz)) FILTER (WHERE NOT ${leased}) AS g_first,
                           min(${key}) FILTER (WHERE NOT ${leased} AND ${due} IS NULL) AS g_first_key
                    FROM ${table} WHERE ${holds} AND ${isDue}${scope} GROUP BY ${group}) a
                  WHERE g_leased < ${cap.limit} AND g_first IS NOT NULL
                  ORDER BY g_first, g_first_key
                  FETCH FIRST (${limit * GROUPS_PER_ROW}) ROWS WITH TIES) g
                CROSS JOIN LATERAL (
                  SELECT f.g_key, f.g_due FROM (${first(sql`${due} IS NULL`)} UNION ALL ${first(sql`${due} <= ${dueBy}`)}) f
                  ORDER BY f.g_due NULLS FIRST, f.g_key
                  LIMIT ${cap.limit} - g.g_leased) c) c ON c.g_key = ${table}.${key}
              WHERE ${holds} AND ${isDue}${free}${scope}
              ORDER BY c.g_due NULLS FIRST, c.g_key
              LIMIT ${limit}
              FOR UPDATE OF ${table} SKIP LOCKED`;
}

/** When a payment's hold began (src/app/capture/hold-expiry.ts, holdStart, reads a row the same way). */
const HOLD_START = 'coalesce(held_since, created_at)';

/**
 * The queues of src/jobs/tasks.ts. Wall time (technical timers): the unknown-outcome and pending
 * checks, pending subscription charges, notification retries. Business time (the contract's dates
 * and deadlines): shoppers' deadlines, authorisations' expiry, subscriptions' due charges, payouts.
 * payments.next_check_at is on the clock of the payment's status: wall while processing (its
 * queue's lease pushes it on), business while waiting for the shopper (leased in leased_until).
 */
export const QUEUES = {
  /** Payments whose outcome the processor has not told us: asked again once their own call has surely ended. */
  unknownPayments: {
    table: 'payments',
    holds: `status = 'processing' AND next_check_at IS NOT NULL`,
    dueColumn: 'next_check_at',
    dueOn: 'wall',
    leaseColumn: 'next_check_at',
    countsAttempts: false,
  },
  /** Payments waiting for the shopper (hosted page, APM, 3-D Secure challenge) past their deadline. */
  abandonedPayments: {
    table: 'payments',
    holds: `status IN ('requires_redirect', 'requires_authentication') AND next_check_at IS NOT NULL`,
    dueColumn: 'next_check_at',
    dueOn: 'business',
    leaseColumn: 'leased_until',
    countsAttempts: false,
  },
  /**
   * Holds at the processor that no one ended: authorisations never captured, and payments still
   * held for review (an authorisation too, dropped by the card network after the same days). Due
   * when held longer (held_since: since the processor authorised them, business time) than their
   * connector's expiry: the caller leases per connector with `dueBy` = now − the connector's expiry
   * days. A hold without a held_since (written by a process still running the code before 0031)
   * counts from its created_at, as it did then, and is never taken for due at once. Served by the
   * partial index payments_holds_age (migrations 0022, 0031), on this expression, whose predicate
   * is this one.
   */
  expiringAuthorisations: {
    table: 'payments',
    holds: `status IN ('authorised', 'pending_review')`,
    dueColumn: HOLD_START,
    dueOn: 'business',
    leaseColumn: 'leased_until',
    scopeColumn: 'connector',
    countsAttempts: false,
  },
  /** Captures and voids whose answer was lost or pending. */
  pendingOperations: {
    table: 'payment_operations',
    holds: `status = 'pending'`,
    dueColumn: 'next_check_at',
    dueOn: 'wall',
    leaseColumn: 'next_check_at',
    countsAttempts: true,
  },
  /** Refunds the processor settles later, or whose answer was lost. */
  pendingRefunds: { table: 'refunds', holds: `status = 'pending'`, dueColumn: 'next_check_at', dueOn: 'wall', leaseColumn: 'next_check_at', countsAttempts: true },
  /** Active subscriptions whose next charge is due (next_charge_at; NULL while an attempt is open). */
  dueSubscriptions: {
    table: 'subscriptions',
    holds: `status = 'Active' AND next_charge_at IS NOT NULL`,
    dueColumn: 'next_charge_at',
    dueOn: 'business',
    leaseColumn: 'locked_until',
    countsAttempts: false,
  },
  /** Claimed attempts at a subscription's charge, not yet recorded (new, or their worker died, or their payment still pending). */
  pendingSubscriptionCharges: {
    table: 'subscription_charges',
    holds: `status = 'pending'`,
    dueColumn: 'next_check_at',
    dueOn: 'wall',
    leaseColumn: 'next_check_at',
    countsAttempts: true,
  },
  /**
   * Payouts the rail task moves on: scheduled ones on their payment_date, processing ones to ask
   * the rail about, completed ones still watched for a return (docs/payouts.md). All of
   * next_check_at is business time (the return window is a business one; a poll made sooner after
   * an advance only asks again, sends are idempotent under the payout's id); the lease is leased_until.
   * A payout not yet with the rail (SCHEDULED, or PROCESSING with no rail_reference) of a disabled
   * merchant or account is held: left out here, so held payouts never fill a lease's batch ahead
   * of other accounts' (and are no backlog), and due again on the first round after the enable.
   * The claim for the rail checks again under the rows' locks (src/app/payouts/rail.ts).
   */
  duePayouts: {
    table: 'payouts',
    holds: `status IN ('SCHEDULED', 'PROCESSING', 'COMPLETED') AND next_check_at IS NOT NULL
      AND (status = 'COMPLETED' OR rail_reference IS NOT NULL OR EXISTS (SELECT 1 FROM accounts a JOIN merchants m ON m.id = a.merchant_id
        WHERE a.id = payouts.account_id AND a.status = 'active' AND m.status = 'active'))`,
    dueColumn: 'next_check_at',
    dueOn: 'business',
    leaseColumn: 'leased_until',
    countsAttempts: true,
  },
  /** Notifications due for delivery (next_attempt_at: the retry schedule, wall time). */
  dueNotifications: {
    table: 'events',
    holds: `delivery_status = 'pending'`,
    dueColumn: 'next_attempt_at',
    dueOn: 'wall',
    leaseColumn: 'locked_until',
    tokenColumn: 'lease_token',
    countsAttempts: true,
  },
} as const satisfies Record<string, LeaseQueue>;
