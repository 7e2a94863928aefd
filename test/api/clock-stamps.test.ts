// Due times are compared only with times the injected clock wrote. The clock here runs more than
// a year behind the database's own now(): had a journal entry or a payment been stamped by the
// database, settlement and expiry would never see it due on the clock's schedule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleBalances } from '../../src/app/balances/settle.ts';
import { expireAuthorisations } from '../../src/app/capture/expire-authorisations.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { QUEUES } from '../../src/db/repositories/leases.ts';
import { leaseDuePayments } from '../../src/db/repositories/payments.ts';
import type { SignedClient } from '../support/client.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { compactTime } from '../../src/app/batch/selection.ts';
import { allowQueriesFrom, eventTypes, expectLedgerBalanced, pay, paymentRow, refund, scriptedProcessor } from '../support/lifecycle.ts';

const DAY = 86_400_000;
const clock = new FakeClock('2025-06-01T12:00:00Z');
const processor = scriptedProcessor();
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ clock, connectors: processor.connectors });
});
afterAll(() => gw?.close());

const balance = async (client: SignedClient) =>
  JSON.parse((await runCommand(['balance', 'show', '--merchant-id', client.ids.merchant_id, '--account-id', client.ids.account_id, '--json'], gw.gateway.deps)).stdout)[0];

describe('settlement on the injected clock', () => {
  it('settles captured money only when the connector’s days have passed on the clock', async () => {
    const shop = await gw.merchant();
    await pay(shop, { amount: '40.00' });
    const [entry] = await gw.database.query<{ booked_at: Date }>(`SELECT booked_at FROM ledger_entries WHERE account_id = $1 LIMIT 1`, [shop.ids.account_id]);
    expect(new Date(entry!.booked_at).toISOString()).toBe(clock.now().toISOString());

    await settleBalances(gw.gateway.deps);
    expect(await balance(shop)).toMatchObject({ available: '0.00', pending: '40.00' });
    clock.advance(2 * DAY + 60_000);
    expect(await settleBalances(gw.gateway.deps)).toBeGreaterThanOrEqual(1);
    expect(await balance(shop)).toMatchObject({ available: '40.00', pending: '0.00' });
    await expectLedgerBalanced(gw);
  });
});

describe('authorisation expiry on the injected clock, through the lease', () => {
  it('voids each expired authorisation once, however many workers run, and skips one another worker holds until its lease ends', async () => {
    const manual = await gw.merchant({ captureMode: 'manual' });
    const first = await pay(manual);
    clock.advance(1_000);
    const held = [first, ...(await Promise.all([pay(manual), pay(manual)]))];
    expect(await expireAuthorisations(gw.gateway.deps)).toBe(0);

    clock.advance(7 * DAY + 60_000);
    // A worker that leased the oldest payment and died: its lease holds it for a minute.
    const cutoff = new Date(clock.now().getTime() - 7 * DAY);
    const crashed = await leaseDuePayments(gw.database.db, QUEUES.expiringAuthorisations, gw.gateway.deps, 1, 60_000, { dueBy: cutoff, scope: 'simulator' });
    expect(crashed.map((payment) => payment.id)).toEqual([first.transaction_id]);

    const voidsBefore = processor.calls.cancel;
    await Promise.all([expireAuthorisations(gw.gateway.deps), expireAuthorisations(gw.gateway.deps), expireAuthorisations(gw.gateway.deps)]);
    expect(processor.calls.cancel - voidsBefore).toBe(2);
    expect((await paymentRow(gw, held[0]!.transaction_id)).status).toBe('authorised');
    for (const txn of held.slice(1)) {
      expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'cancelled', result_code: '2010' });
      expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.authorised', 'payment.cancelled']);
    }

    clock.advance(61_000);
    expect(await expireAuthorisations(gw.gateway.deps)).toBe(1);
    expect(processor.calls.cancel - voidsBefore).toBe(3);
    expect(await paymentRow(gw, held[0]!.transaction_id)).toMatchObject({ status: 'cancelled', result_code: '2010' });
    await expectLedgerBalanced(gw);
  });
});

describe('refunds on the injected clock', () => {
  it('stamps a refund’s refund_date from the clock, as its settle_date and its payment’s transaction_date are, and finds it in that window', async () => {
    const shop = await gw.merchant();
    await allowQueriesFrom(gw, [shop]);
    const paid = await pay(shop, { amount: '30.00' });
    const refunded = await refund(shop, paid, '5.00');
    expect(refunded.refund_status).toBe('1');
    const day = compactTime(clock.now()).slice(0, 8);

    const byId = await shop.post('/v1/refundSearch', { ...shop.ids, refund_reference_id: refunded.refund_reference_id }, { format: 'form' });
    const [found] = byId.body.refund_list;
    expect(found.settle_date).toBe(compactTime(clock.now()));
    expect(found.refund_date).toBe(found.settle_date);

    const query = await shop.post('/v1/retrievalTrans', { ...shop.ids, transaction_id: paid.transaction_id }, { format: 'form' });
    expect(query.body.orders_list[0].transaction_date.slice(0, 8)).toBe(day);

    const window = await shop.post('/v1/refundSearch', { ...shop.ids, start_time: `${day}000000`, end_time: `${day}235959` }, { format: 'form' });
    expect(window.body).toMatchObject({ total: '1' });
    expect(window.body.refund_list.map((r: Record<string, string>) => r.refund_reference_id)).toEqual([refunded.refund_reference_id]);
  });
});
