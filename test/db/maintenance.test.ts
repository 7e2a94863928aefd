// The embedded database has no autovacuum: the process that owns it keeps its planner statistics
// (src/db/maintenance.ts, run every minute by src/db/client.ts). Without them a query of an account's orders read every payment of the
// account through the wrong index.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyseChangedTables } from '../../src/db/maintenance.ts';
import type { SignedClient } from '../support/client.ts';
import { startTestGateway, TEST_DB, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let merchant: SignedClient;
beforeAll(async () => {
  gw = await startTestGateway();
  merchant = await gw.merchant();
});
afterAll(() => gw?.close());

const BY_ORDER_NOS = 'SELECT * FROM payments WHERE account_id = $1 AND order_no = ANY ($2::text[])';

async function insertPayments(count: number): Promise<void> {
  await gw.database.query(
    `INSERT INTO payments (id, account_id, merchant_id, order_no, kind, payment_method, status, amount, currency, request_fingerprint, request, connector, created_at)
     SELECT 'TMAINT' || i, $1, $2, 'MAINT-' || i, 'card', 'card', 'captured', 1000, 'USD', 'fp', '{}'::jsonb, 'simulator', now()
     FROM generate_series(1, $3::int) AS i`,
    [merchant.ids.account_id, merchant.ids.merchant_id, count],
  );
  // A session reports its counts at most once a second; the rounds are a minute apart.
  await gw.database.query('SELECT pg_stat_force_next_flush()');
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
    const [payments] = await gw.database.query<{ reltuples: number }>(`SELECT reltuples FROM pg_class WHERE oid = 'payments'::regclass`);
    expect(Number(payments!.reltuples)).toBeGreaterThan(4_000);
    expect(await plan()).toContain('payments_account_id_order_no_key');
    // Nothing changed since: nothing analysed again.
    expect(await analyseChangedTables(gw.database)).toBe(0);
  });
});

describe.runIf(TEST_DB === 'postgres')('PostgreSQL', () => {
  it('is left to autovacuum: nothing is analysed', async () => {
    await insertPayments(100);
    expect(await analyseChangedTables(gw.database)).toBe(0);
  });
});
