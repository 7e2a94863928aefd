// The lease of the expiring holds (QUEUES.expiringAuthorisations: authorised payments and payments
// held for review, by connector and when their hold began) is served by the partial index whose
// predicate is the queue's own (payments_holds_age, migrations 0022 and 0031): a partial index is
// usable only when the statement's predicate implies the index's, so one on `status = 'authorised'`
// alone would leave the sweeper scanning every payment. Sequential scans are switched off for the EXPLAIN: on a
// table this small the planner would rightly prefer one, and the question is whether an index can
// serve the statement at all. The notification queue's cap per account (src/app/notifications/deliver.ts)
// reads its due events once to count each account's leases, without sorting them, and takes each
// account's first free events from events_delivery_due_account (migration 0032): only those are sorted.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, rowsOf } from '../../src/db/client.ts';
import { lease, leaseStatement, QUEUES } from '../../src/db/repositories/leases.ts';
import { openTestDatabase, type TestDatabase } from '../support/gateway.ts';

let test: TestDatabase;
beforeAll(async () => {
  test = await openTestDatabase();
  await migrate(test.database);
});
afterAll(() => test?.drop());

async function planOf(statement: ReturnType<typeof leaseStatement>): Promise<string> {
  return test.database.db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL enable_seqscan = off`);
    const rows = await rowsOf<Record<string, string>>(tx, sql`EXPLAIN ${statement}`);
    return rows.map((row) => Object.values(row)[0]).join('\n');
  });
}

describe('the expiring holds queue', () => {
  it('leases through payments_holds_age', async () => {
    const now = new Date();
    const held = lease({ clock: { now: () => now }, wallClock: { now: () => now } }, 60_000);
    const statement = leaseStatement(QUEUES.expiringAuthorisations, held, 50, { dueBy: new Date(now.getTime() - 7 * 86_400_000), scope: 'simulator' });
    const plan = await planOf(statement);
    expect(plan).toContain('payments_holds_age');
    expect(plan).not.toContain('Seq Scan on payments');
  });
});

describe('the notification queue, at most 4 leases per account', () => {
  it('reads the due events once without sorting them, and sorts only what the accounts with room may take', async () => {
    // Three accounts with due events: one with 300 of them (its receiver hangs, 2 already leased), two with 5.
    const now = new Date();
    const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
    await test.database.query(`INSERT INTO merchants (id, name) SELECT 'm-cap-' || g, 'cap' FROM generate_series(1, 3) g`);
    await test.database.query(`INSERT INTO accounts (id, merchant_id, name) SELECT 'a-cap-' || g, 'm-cap-' || g, 'cap' FROM generate_series(1, 3) g`);
    await test.database.query(
      `INSERT INTO events (id, account_id, type, payload, notify_url, next_attempt_at, locked_until)
       SELECT 'ev-cap-' || lpad(g::text, 4, '0'), CASE WHEN g <= 300 THEN 'a-cap-1' WHEN g <= 305 THEN 'a-cap-2' ELSE 'a-cap-3' END,
              'payment', '{}', 'https://receiver.test/n', $1::timestamptz + g * interval '1 ms', CASE WHEN g <= 2 THEN $2::timestamptz END
         FROM generate_series(1, 310) g`,
      [at(-600_000), at(60_000)],
    );
    const held = lease({ clock: { now: () => now }, wallClock: { now: () => now } }, 60_000, 'token');
    const statement = leaseStatement(QUEUES.dueNotifications, held, 16, { perGroup: { column: 'account_id', limit: 4 } });
    const plan = await analysedPlanOf(statement);
    const sorted = nodes(plan).filter((node) => node['Node Type'] === 'Sort' || node['Node Type'] === 'WindowAgg');
    // Before: a window numbered all 310 due events, sorted by account. Now: the 3 accounts, then at most 4 events of each.
    expect(sorted.map((node) => node['Actual Rows'] * node['Actual Loops']).filter((rows) => rows > 12)).toEqual([]);
    expect(nodes(plan).some((node) => node['Index Name'] === 'events_delivery_due_account')).toBe(true);
    expect(nodes(plan).some((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'events')).toBe(false);
    // And the claim is the same: the 2 rows left to the first account, 4 of each other one.
    expect(plan.claimed).toEqual(['ev-cap-0003', 'ev-cap-0004', 'ev-cap-0301', 'ev-cap-0302', 'ev-cap-0303', 'ev-cap-0304', 'ev-cap-0306', 'ev-cap-0307', 'ev-cap-0308', 'ev-cap-0309']);
  });
});

type PlanNode = Record<string, any> & { Plans?: PlanNode[] };

/** The plan of the lease as it ran (EXPLAIN ANALYZE, sequential scans off), and the rows it leased; rolled back. */
async function analysedPlanOf(statement: ReturnType<typeof leaseStatement>): Promise<PlanNode & { claimed: string[] }> {
  let result: (PlanNode & { claimed: string[] }) | undefined;
  await test.database.db
    .transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL enable_seqscan = off`);
      const [row] = await rowsOf<Record<string, unknown>>(tx, sql`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`);
      const value = Object.values(row!)[0];
      const [explained] = (typeof value === 'string' ? JSON.parse(value) : value) as { Plan: PlanNode }[];
      const claimed = await rowsOf<{ id: string }>(tx, sql`SELECT id FROM events WHERE lease_token = 'token' ORDER BY id`);
      result = { ...explained!.Plan, claimed: claimed.map((r) => r.id) };
      tx.rollback();
    })
    .catch((error: unknown) => {
      if (!result) throw error;
    });
  return result!;
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}
