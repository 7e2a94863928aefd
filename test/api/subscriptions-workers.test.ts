// Two workers billing the same subscriptions at once (two runners, each with its own connection
// pool, as two `acquiro worker` processes on one PostgreSQL would): over 24 cycles every cycle is
// charged exactly once, whether the clock moves a month at a time or jumps a year.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deps } from '../../src/app/context.ts';
import type { Database } from '../../src/db/client.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';
import { chargesOf, runBilling, subscribe, subscribing } from '../support/subscriptions.ts';

let gw: TestGateway;
let shop: SignedClient;
let second: Database;
const clock = new FakeClock('2026-01-31T10:15:00Z');

beforeAll(async () => {
  gw = await startTestGateway({ clock });
  shop = await gw.merchant();
  second = await gw.anotherConnection();
});
afterAll(async () => {
  await second?.close();
  await gw?.close();
});

describe('two workers', () => {
  it('charge each of 24 cycles of 3 subscriptions exactly once', { timeout: 240_000 }, async () => {
    const workers: Deps[] = [gw.gateway.deps, { ...gw.gateway.deps, database: second }];
    const subscriptions = [];
    for (let i = 0; i < 3; i++) subscriptions.push(await subscribe(shop, subscribing(shop)));
    const bothRun = () => Promise.all(workers.map((deps) => runBilling(deps)));
    // 12 months one at a time, then 12 in one jump.
    for (let month = 1; month <= 12; month++) {
      clock.set(new Date(Date.UTC(2026, month, 28, 12)));
      await bothRun();
    }
    clock.set('2028-01-31T12:00:00Z');
    await bothRun();
    await bothRun();
    for (const { recurringId, orderNo } of subscriptions) {
      const charges = await chargesOf(gw.gateway.deps, recurringId);
      expect(charges.map((c) => [c.cycle, c.attempt, c.status])).toEqual(Array.from({ length: 24 }, (_, i) => [i + 2, 1, 'succeeded']));
      const payments = await gw.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM payments WHERE account_id = $1 AND order_no LIKE $2`, [shop.ids.account_id, `${orderNo} R%`]);
      expect(payments[0]!.n).toBe(24);
    }
  });
});
