// Concurrent requests on one transaction (real races on PostgreSQL; PGlite serialises them): each
// ends in one consistent story, the processor asked once per effect, the books balanced.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settlePendingRefunds } from '../../src/app/refund/record-refund.ts';
import type { SignedClient } from '../support/client.ts';
import { depsLater, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { batch, eventTypes, expectLedgerBalanced, orderOf, pay, paymentRow, refund, scriptedProcessor } from '../support/lifecycle.ts';

const processor = scriptedProcessor();
let gw: TestGateway;
let auto: SignedClient;
let manual: SignedClient;

beforeAll(async () => {
  // These races are about one consistent story per payment, not about sharing a busy gateway
  // between accounts (test/api/limits.test.ts): the fair share stays out of the way here.
  gw = await startTestGateway({ connectors: processor.connectors, env: { ACQUIRO_BUSY_IN_FLIGHT: '100000' } });
  auto = await gw.merchant({ rateLimitPerSecond: 10_000, feeBps: 100 });
  manual = await gw.merchant({ captureMode: 'manual', rateLimitPerSecond: 10_000 });
});
afterAll(() => gw?.close());

const statuses = (entries: Record<string, string>[], field: string) => entries.map((e) => e[field]).sort();
const count = <T>(values: readonly T[], value: T) => values.filter((v) => v === value).length;

describe('concurrent requests on one payment', () => {
  it('50 concurrent captures capture once', async () => {
    const txn = await pay(manual);
    const before = processor.calls.capture;
    const answers = await Promise.all(Array.from({ length: 50 }, () => batch(manual, 'capture_orders', [orderOf(txn)])));
    const entries = answers.map((a) => a.body.capture_orders[0]);
    expect(count(statuses(entries, 'capture_status'), '1')).toBe(1);
    expect(entries.filter((e) => e.capture_status === '0').every((e) => /^50(05|12):/.test(e.error_message))).toBe(true);
    expect(processor.calls.capture - before).toBe(1);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'captured', captured: 1000 });
    expect(count(await eventTypes(gw, txn.transaction_id), 'payment.captured')).toBe(1);
    await expectLedgerBalanced(gw);
  });

  it('20 concurrent refunds of 10% each leave exactly 10 succeeded', async () => {
    const txn = await pay(auto);
    const answers = await Promise.all(Array.from({ length: 20 }, () => batch(auto, 'refund_orders', [orderOf(txn, { refund_amount: '1.00' })])));
    const entries = answers.map((a) => a.body.refund_orders[0]);
    expect(count(statuses(entries, 'refund_status'), '1')).toBe(10);
    expect(entries.filter((e) => e.refund_status === '0').every((e) => e.refund_message.startsWith('V5010:'))).toBe(true);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'refunded', captured: 1000, refunded: 1000 });
    const [refunds] = await gw.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM refunds WHERE payment_id = $1 AND status = 'succeeded'`, [
      txn.transaction_id,
    ]);
    expect(refunds?.n).toBe(10);
    await expectLedgerBalanced(gw);
  });

  it('30 concurrent cancels void once', async () => {
    const txn = await pay(manual);
    const before = processor.calls.cancel;
    const answers = await Promise.all(Array.from({ length: 30 }, () => batch(manual, 'cancel_orders', [orderOf(txn)])));
    const entries = answers.map((a) => a.body.cancel_orders[0]);
    expect(count(statuses(entries, 'cancel_status'), '1')).toBe(1);
    // The others: already cancelled (5007), or the void still out (5012).
    expect(entries.filter((e) => e.cancel_status === '0').every((e) => /^50(07|12):/.test(e.error_message))).toBe(true);
    expect(processor.calls.cancel - before).toBe(1);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'cancelled', captured: 0 });
    expect(count(await eventTypes(gw, txn.transaction_id), 'payment.cancelled')).toBe(1);
    await expectLedgerBalanced(gw);
  });

  it('20 concurrent identical approvals of one held payment (no Idempotency-Key): decided once, captured once', async () => {
    const txn = await pay(auto, { card: '4000000000004954' });
    const before = processor.calls.capture;
    const answers = await Promise.all(Array.from({ length: 20 }, () => batch(auto, 'review_orders', [orderOf(txn, { review_flag: '1' })])));
    const entries = answers.map((a) => a.body.review_orders[0]);
    expect(count(statuses(entries, 'review_status'), '1')).toBe(1);
    expect(entries.filter((e) => e.review_status === '0').every((e) => /^50(11|12):/.test(e.error_message))).toBe(true);
    expect(processor.calls.capture - before).toBe(1);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'captured', captured: 1000 });
    expect(count(await eventTypes(gw, txn.transaction_id), 'payment.captured')).toBe(1);
    await expectLedgerBalanced(gw);
  });

  it('a refund racing a cancel on an authorised payment: cancelled, nothing refunded', async () => {
    const txn = await pay(manual);
    const [cancelled, refunded] = await Promise.all([
      batch(manual, 'cancel_orders', [orderOf(txn)]),
      batch(manual, 'refund_orders', [orderOf(txn, { refund_amount: '10.00' })]),
    ]);
    expect(cancelled.body.cancel_orders[0].cancel_status).toBe('1');
    // Refused as not captured (5009), cancelled (5007), or, while the void is out, in progress (5012).
    expect(refunded.body.refund_orders[0].refund_message).toMatch(/^V50(07|09|12):/);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'cancelled', captured: 0, refunded: 0 });
    await expectLedgerBalanced(gw);
  });

  it('a refund racing a cancel on a captured payment: refunded, the cancel told to refund', async () => {
    const txn = await pay(auto);
    const [cancelled, refunded] = await Promise.all([
      batch(auto, 'cancel_orders', [orderOf(txn)]),
      batch(auto, 'refund_orders', [orderOf(txn, { refund_amount: '10.00' })]),
    ]);
    expect(cancelled.body.cancel_orders[0].error_message).toBe('5008:the transaction is captured: refund it instead');
    expect(refunded.body.refund_orders[0].refund_status).toBe('1');
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'refunded', refunded: 1000 });
    await expectLedgerBalanced(gw);
  });

  it('captures, cancels and refunds racing on authorised payments each end in one consistent story', async () => {
    const txns = await Promise.all(Array.from({ length: 6 }, () => pay(manual)));
    await Promise.all(
      txns.flatMap((txn) => [
        batch(manual, 'capture_orders', [orderOf(txn)]),
        batch(manual, 'cancel_orders', [orderOf(txn)]),
        batch(manual, 'capture_orders', [orderOf(txn, { amount: '5.00' })]),
        batch(manual, 'refund_orders', [orderOf(txn, { refund_amount: '3.00' })]),
        batch(manual, 'refund_orders', [orderOf(txn, { refund_amount: '3.00' })]),
        batch(manual, 'cancel_orders', [orderOf(txn)]),
      ]),
    );
    for (const txn of txns) {
      const row = await paymentRow(gw, txn.transaction_id);
      if (row.status === 'cancelled') expect(row).toMatchObject({ captured: 0, refunded: 0 });
      else {
        expect(['captured', 'partially_refunded', 'refunded']).toContain(row.status);
        expect([500, 1000]).toContain(row.captured);
        expect(row.refunded).toBeLessThanOrEqual(row.captured);
      }
      const events = await eventTypes(gw, txn.transaction_id);
      expect(count(events, 'payment.captured') + count(events, 'payment.cancelled')).toBe(1);
    }
    await expectLedgerBalanced(gw);
  });

  it('an approval racing a rejection of one held payment: one decision', async () => {
    const txn = await pay(auto, { card: '4000000000004954' });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => batch(auto, 'review_orders', [orderOf(txn, { review_flag: i % 2 === 0 ? '1' : '0' })])),
    );
    const entries = answers.map((a) => a.body.review_orders[0]);
    expect(count(statuses(entries, 'review_status'), '1')).toBe(1);
    const row = await paymentRow(gw, txn.transaction_id);
    const winner = entries.find((e) => e.review_status === '1')!;
    expect(row.status).toBe(winner.review_flag === '1' ? 'captured' : 'cancelled');
    await expectLedgerBalanced(gw);
  });
});

describe('concurrent workers', () => {
  it('two sweepers settle a pending refund once', async () => {
    const txn = await pay(auto);
    expect((await refund(auto, txn, '4.00', { refund_reason: 'sandbox_settle_later' })).refund_status).toBe('2');
    const later = depsLater(gw, 600_000);
    await Promise.all([settlePendingRefunds(later), settlePendingRefunds(later), settlePendingRefunds(later)]);
    expect(count(await eventTypes(gw, txn.transaction_id), 'refund.succeeded')).toBe(1);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'partially_refunded', refunded: 400 });
    await expectLedgerBalanced(gw);
  });
});

describe('the database itself refuses an over-refund', () => {
  it('rejects a reservation above the captured amount, whatever the code does', async () => {
    const txn = await pay(auto);
    await expect(gw.database.query('UPDATE payments SET refund_reserved = captured_amount + 1 WHERE id = $1', [txn.transaction_id])).rejects.toThrow(/payments_refund_reserved_bounds/);
  });
});
