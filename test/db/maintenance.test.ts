// The embedded database has no autovacuum: the process that owns it keeps its planner statistics
// and vacuums its dead rows (src/db/maintenance.ts, in rounds while the engine is idle, started by
// src/db/client.ts). Without statistics a query of an account's orders read every payment of the
// account through the wrong index; without VACUUM a replaced row's space is never used again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyseChangedTables, EngineActivity, keepTables, type MaintenanceSchedule, vacuumDeadTables } from '../../src/db/maintenance.ts';
import type { SignedClient } from '../support/client.ts';
import { startTestGateway, TEST_DB, type TestGateway } from '../support/gateway.ts';
import { insertPayments as insertBulkPayments } from '../support/lifecycle.ts';

let gw: TestGateway;
let merchant: SignedClient;
beforeAll(async () => {
  gw = await startTestGateway();
  merchant = await gw.merchant();
});
afterAll(() => gw?.close());

const BY_ORDER_NOS = 'SELECT * FROM payments WHERE account_id = $1 AND order_no = ANY ($2::text[])';

async function insertPayments(count: number, from = 1): Promise<void> {
  await insertBulkPayments(gw, merchant.ids, count, { from, prefix: 'MAINT' });
  // A session reports its counts at most once a second; the analysis reads them at once.
  await gw.database.query('SELECT pg_stat_force_next_flush()');
}

async function analysedRows(): Promise<number> {
  const [payments] = await gw.database.query<{ reltuples: number }>(`SELECT reltuples FROM pg_class WHERE oid = 'payments'::regclass`);
  return Number(payments!.reltuples);
}

/**
 * Keeps the engine busy for `ms` as `activity` sees it: back-to-back calls, each a statement and a
 * millisecond's wait (as a request's transaction waits for the processor), so timers run meanwhile.
 */
async function busyFor(activity: EngineActivity, ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    await activity.around(async () => {
      await gw.database.query('SELECT 1');
      await new Promise((resolve) => setTimeout(resolve, 1));
    });
  }
}

/** Statistics kept on `schedule` while `during` runs. */
async function keptDuring(schedule: MaintenanceSchedule, during: (activity: EngineActivity) => Promise<void>): Promise<void> {
  const activity = new EngineActivity();
  const kept = keepTables(gw.database, activity, schedule);
  try {
    await during(activity);
  } finally {
    await kept.stop();
  }
}

/** The payments table's dead rows and how many times it was vacuumed, as the engine counts them now. */
async function paymentsVacuum(): Promise<{ dead: number; vacuums: number }> {
  await gw.database.query('SELECT pg_stat_force_next_flush()');
  const [row] = await gw.database.query<{ dead: number; vacuums: number }>(
    `SELECT n_dead_tup::int AS dead, vacuum_count::int AS vacuums FROM pg_stat_user_tables WHERE relid = 'payments'::regclass`,
  );
  return row!;
}

/** Every payment of the test replaced by a new version of its row, as an outcome replaces a claim's. */
async function replacePayments(): Promise<void> {
  await gw.database.query(`UPDATE payments SET updated_at = now() WHERE order_no LIKE 'MAINT-%'`);
}

/** Analyses until no table is past its threshold: a round then has nothing to analyse. */
async function analyseAll(): Promise<void> {
  await gw.database.query('SELECT pg_stat_force_next_flush()');
  for (let i = 0; i < 50 && (await analyseChangedTables(gw.database)) === 1; i++);
}

async function plan(): Promise<string> {
  const orders = Array.from({ length: 100 }, (_, i) => `MAINT-${i * 37 + 5}`);
  const rows = await gw.database.query<Record<string, string>>(`EXPLAIN ${BY_ORDER_NOS}`, [merchant.ids.account_id, orders]);
  return rows.map((row) => Object.values(row)[0]).join('\n');
}

describe.runIf(TEST_DB === 'pglite')('the embedded database', () => {
  it('analyses the table that changed by more than a tenth, and the query of orders then uses the order index', async () => {
    await insertPayments(5_000);
    expect(await analyseChangedTables(gw.database)).toBe(1);
    expect(await analysedRows()).toBeGreaterThan(4_000);
    expect(await plan()).toContain('payments_account_id_order_no_key');
    // Nothing changed since: nothing analysed again.
    expect(await analyseChangedTables(gw.database)).toBe(0);
  });

  it('waits for a moment the engine is idle to analyse, and analyses anyway once the round is long overdue', async () => {
    await insertPayments(1_000, 5_001);
    // Busy for a second with a round due every 10 ms: not analysed; idle: analysed within 5 s.
    await keptDuring({ everyMs: 10, idleMs: 50, overdueMs: 60_000 }, async (activity) => {
      await busyFor(activity, 1_000);
      expect(await analysedRows()).toBeLessThan(5_500);
      await expect.poll(analysedRows, { timeout: 5_000, interval: 50 }).toBeGreaterThan(5_900);
    });
    await insertPayments(1_000, 6_001);
    // Never idle, but the round is overdue after 200 ms.
    await keptDuring({ everyMs: 10, idleMs: 60_000, overdueMs: 200 }, async (activity) => {
      const analysed = expect.poll(analysedRows, { timeout: 5_000, interval: 50 }).toBeGreaterThan(6_900);
      await busyFor(activity, 1_500);
      await analysed;
    });
  });
});

describe.runIf(TEST_DB === 'pglite')('the embedded database\'s dead rows', () => {
  it('vacuums the table with more dead rows than its threshold, and then none', async () => {
    await insertPayments(2_000, 20_001);
    await replacePayments();
    const before = await paymentsVacuum();
    expect(before.dead).toBeGreaterThan(2_000);
    for (let i = 0; i < 50 && (await vacuumDeadTables(gw.database)) === 1; i++);
    const after = await paymentsVacuum();
    expect(after.dead).toBe(0);
    expect(after.vacuums).toBe(before.vacuums + 1);
    expect(await vacuumDeadTables(gw.database)).toBe(0);
  });

  it('freezes the table whose oldest transaction id is past the freeze age, oldest first', async () => {
    const ages = async () => gw.database.query<{ name: string; age: number }>(
      `SELECT c.relname AS name, age(c.relfrozenxid)::int AS age FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY 2 DESC, 1`,
    );
    const before = await ages();
    const oldest = before[0]!.age;
    expect(oldest).toBeGreaterThan(3);
    const atOldest = before.filter((table) => table.age === oldest).length;
    // No table has dead rows; one past the freeze age is vacuumed all the same.
    expect(await vacuumDeadTables(gw.database, oldest - 1)).toBe(1);
    const after = await ages();
    // Frozen: its age is that of the last transaction, no longer the oldest.
    expect(after.filter((table) => table.age >= oldest).length).toBe(atOldest - 1);
  });

  it('vacuums in a moment the engine is idle, never in a round only overdue', async () => {
    await replacePayments();
    await analyseAll();
    const before = await paymentsVacuum();
    expect(before.dead).toBeGreaterThan(2_000);
    await keptDuring({ everyMs: 10, idleMs: 50, overdueMs: 200 }, async (activity) => {
      // Busy for 1.5 s, its rounds overdue after 200 ms: analysed if need be, never vacuumed.
      await busyFor(activity, 1_500);
      expect(await paymentsVacuum()).toEqual(before);
      // Idle: vacuumed within 5 s.
      await expect.poll(async () => (await paymentsVacuum()).vacuums, { timeout: 5_000, interval: 50 }).toBe(before.vacuums + 1);
    });
    expect((await paymentsVacuum()).dead).toBe(0);
  });
});

describe.runIf(TEST_DB === 'postgres')('PostgreSQL', () => {
  it('is left to autovacuum: nothing is analysed or vacuumed', async () => {
    await insertPayments(100);
    await gw.database.query(`UPDATE payments SET updated_at = now() WHERE order_no LIKE 'MAINT-%'`);
    expect(await analyseChangedTables(gw.database)).toBe(0);
    expect(await vacuumDeadTables(gw.database, 0)).toBe(0);
  });
});
