// The embedded database has no autovacuum: the process that owns it keeps its planner statistics
// (src/db/maintenance.ts, in rounds while the engine is idle, started by src/db/client.ts). Without
// them a query of an account's orders read every payment of the account through the wrong index.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyseChangedTables, EngineActivity, keepStatistics, type StatisticsSchedule } from '../../src/db/maintenance.ts';
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
async function keptDuring(schedule: StatisticsSchedule, during: (activity: EngineActivity) => Promise<void>): Promise<void> {
  const activity = new EngineActivity();
  const kept = keepStatistics(gw.database, activity, schedule);
  try {
    await during(activity);
  } finally {
    await kept.stop();
  }
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

describe.runIf(TEST_DB === 'postgres')('PostgreSQL', () => {
  it('is left to autovacuum: nothing is analysed', async () => {
    await insertPayments(100);
    expect(await analyseChangedTables(gw.database)).toBe(0);
  });
});
