// The lease of the expiring holds (QUEUES.expiringAuthorisations: authorised payments and payments
// held for review, by connector and when their hold began) is served by the partial index whose
// predicate is the queue's own (payments_holds_age, migrations 0022 and 0031): a partial index is
// usable only when the statement's predicate implies the index's, so one on `status = 'authorised'`
// alone would leave the sweeper scanning every payment. Sequential scans are switched off for the EXPLAIN: on a
// table this small the planner would rightly prefer one, and the question is whether an index can
// serve the statement at all. The notification queue's cap per account (src/app/notifications/deliver.ts)
// reads its due events a second time, to count each account's leases: through the same index.
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
  it('reads only the due events, through events_delivery_due, for the rows and for the count per account', async () => {
    const now = new Date();
    const held = lease({ clock: { now: () => now }, wallClock: { now: () => now } }, 60_000, 'token');
    const plan = await planOf(leaseStatement(QUEUES.dueNotifications, held, 16, { perGroup: { column: 'account_id', limit: 4 } }));
    expect(plan.match(/events_delivery_due/g)).toHaveLength(2);
    expect(plan).not.toContain('Seq Scan on events');
  });
});
