// Sweepers claim their work with a lease (src/db/repositories/leases.ts) on the injected clock:
// two workers sweeping at once ask the processor once per payment, and a lease whose worker died
// is taken over when it runs out.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deps } from '../../src/app/context.ts';
import { resolveUnknownPayments, UNKNOWN_AFTER_MS } from '../../src/app/payments/resolve-unknown.ts';
import type { Connector } from '../../src/connectors/port.ts';
import { createSimulator } from '../../src/connectors/simulator/index.ts';
import type { Database } from '../../src/db/client.ts';
import { QUEUES } from '../../src/db/repositories/leases.ts';
import { leaseDuePayments } from '../../src/db/repositories/payments.ts';
import { cardPayment } from '../support/fixtures.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';

const clock = new FakeClock(new Date());
const asked: string[] = [];
// The simulator, slowed down and counted where the sweeper asks it about a payment.
const simulator = createSimulator({ baseUrl: 'http://gateway.test' });
const counted: Connector = {
  ...simulator,
  async paymentStatus(request) {
    asked.push(request.paymentId);
    await sleep(150);
    return simulator.paymentStatus(request);
  },
};

let gw: TestGateway;
let shop: SignedClient;
let second: Database;
let otherWorker: Deps;
beforeAll(async () => {
  gw = await startTestGateway({ clock, connectors: { get: (name) => (name === 'simulator' ? counted : undefined) } });
  shop = await gw.merchant();
  second = await gw.anotherConnection();
  otherWorker = { ...gw.gateway.deps, database: second };
});
afterAll(async () => {
  await second?.close();
  await gw?.close();
});

/** Payments whose answer the processor lost: they stay processing. */
async function unknownPayments(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { card: '4000000000000259' }));
    expect(answer.body.order_status).toBe('2');
    ids.push(answer.body.transaction_id);
  }
  return ids;
}

const statuses = async (ids: string[]) =>
  (await gw.database.query<{ status: string }>(`SELECT status FROM payments WHERE id = ANY($1::text[]) ORDER BY id`, [ids])).map((row) => row.status);

describe('leased sweeps', () => {
  it('two workers sweeping at once ask the processor once per payment', async () => {
    const ids = await unknownPayments(6);
    asked.length = 0;
    clock.advance(UNKNOWN_AFTER_MS + 1_000);
    const [a, b] = await Promise.all([resolveUnknownPayments(gw.gateway.deps), resolveUnknownPayments(otherWorker)]);
    expect(a + b).toBe(ids.length);
    expect(asked.filter((id) => ids.includes(id)).sort()).toEqual([...ids].sort());
    expect(await statuses(ids)).toEqual(ids.map(() => 'captured'));
  });

  it('leaves a payment another worker holds, and takes it over when that lease runs out', async () => {
    const ids = await unknownPayments(2);
    asked.length = 0;
    clock.advance(UNKNOWN_AFTER_MS + 1_000);
    // A worker leases them and dies before asking the processor.
    const held = await leaseDuePayments(gw.database.db, QUEUES.unknownPayments, gw.gateway.deps, 50, 60_000);
    expect(held.map((payment) => payment.id).sort()).toEqual([...ids].sort());

    expect(await resolveUnknownPayments(gw.gateway.deps)).toBe(0);
    expect(asked).toEqual([]);
    clock.advance(59_000);
    expect(await resolveUnknownPayments(gw.gateway.deps)).toBe(0);

    clock.advance(2_000);
    expect(await resolveUnknownPayments(gw.gateway.deps)).toBe(2);
    expect(asked.sort()).toEqual([...ids].sort());
    expect(await statuses(ids)).toEqual(['captured', 'captured']);
  });

  it('does not ask about a payment before its live call has surely ended, whatever the database clock says', async () => {
    const [id] = await unknownPayments(1);
    asked.length = 0;
    // The database's own time is far ahead of the injected clock's: only the injected clock counts.
    await gw.database.query(`UPDATE payments SET updated_at = now() - interval '1 day' WHERE id = $1`, [id]);
    expect(await resolveUnknownPayments(gw.gateway.deps)).toBe(0);
    expect(asked).toEqual([]);
  });
});
