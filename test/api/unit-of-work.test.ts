// A unit of work (src/db/unit-of-work.ts) commits all of its steps or none. The database itself
// refuses the event step here (a trigger on the outbox, in this test's own schema), after the
// state change and its journals were written: the whole change must roll back, and the work is
// done once, in full, when asked again after the refusal is lifted.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolvePendingOperations } from '../../src/app/capture/operation.ts';
import { settlePendingRefunds } from '../../src/app/refund/record-refund.ts';
import type { SignedClient } from '../support/client.ts';
import { depsLater, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { refuseEventsBy, type OutboxRefusal } from '../support/outbox-refusal.ts';
import { booksOf, cancel, capture, eventTypes, expectLedgerBalanced, pay, paymentRow, refund, review } from '../support/lifecycle.ts';

let gw: TestGateway;
let manual: SignedClient;
let auto: SignedClient;
let outbox: OutboxRefusal;

beforeAll(async () => {
  gw = await startTestGateway();
  manual = await gw.merchant({ captureMode: 'manual' });
  auto = await gw.merchant();
  outbox = await refuseEventsBy(gw.database, 'type');
});
afterEach(() => outbox.clear());
afterAll(() => gw?.close());

const refuseEvents = (type: string) => outbox.refuse(type);
const later = (ms: number) => depsLater(gw, ms);
const PENDING = '1000:Pending: awaiting the processor';

describe('a unit of work that fails at its event step', () => {
  it('rolls back the capture: the payment stays authorised, no journal, no event; a later attempt captures once', async () => {
    const txn = await pay(manual);
    const booksBefore = await booksOf(gw, txn.transaction_id);
    await refuseEvents('payment.captured');

    // The processor captured it; only the record failed: pending, as the sweeper will settle it, not refused.
    const answer = await capture(manual, txn);
    expect([answer.capture_status, answer.error_message]).toEqual(['2', PENDING]);
    expect(gw.logs.text).toContain('recording the operation failed');
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'authorised', captured: 0 });
    expect(await booksOf(gw, txn.transaction_id)).toEqual(booksBefore);
    expect(await eventTypes(gw, txn.transaction_id)).not.toContain('payment.captured');
    const [operation] = await gw.database.query<{ status: string }>(`SELECT status FROM payment_operations WHERE payment_id = $1`, [txn.transaction_id]);
    expect(operation?.status).toBe('pending');

    await outbox.clear();
    expect(await resolvePendingOperations(later(60_000))).toBeGreaterThanOrEqual(1);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'captured', captured: 1000 });
    expect((await eventTypes(gw, txn.transaction_id)).filter((type) => type === 'payment.captured')).toHaveLength(1);
    await expectLedgerBalanced(gw);
  });

  it('answers a void whose record failed pending, and the sweeper cancels it once', async () => {
    const txn = await pay(manual);
    await refuseEvents('payment.cancelled');

    const answer = await cancel(manual, txn);
    expect([answer.cancel_status, answer.error_message]).toEqual(['2', PENDING]);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'authorised' });
    // Still in progress: another cancel or a capture is told so, not refused as if nothing had happened.
    expect((await capture(manual, txn)).error_message).toBe('5012:a cancellation of this transaction is in progress');

    await outbox.clear();
    expect(await resolvePendingOperations(later(60_000))).toBeGreaterThanOrEqual(1);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'cancelled' });
    expect((await eventTypes(gw, txn.transaction_id)).filter((type) => type === 'payment.cancelled')).toHaveLength(1);
    await expectLedgerBalanced(gw);
  });

  it("answers a review approval whose capture's record failed pending, and the sweeper captures it once", async () => {
    const txn = await pay(auto, { card: '4000000000004954' });
    await refuseEvents('payment.captured');

    const answer = await review(auto, txn, '1');
    expect([answer.review_status, answer.error_message]).toEqual(['2', PENDING]);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'pending_review' });

    await outbox.clear();
    expect(await resolvePendingOperations(later(60_000))).toBeGreaterThanOrEqual(1);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'captured', captured: 1000 });
    expect((await eventTypes(gw, txn.transaction_id)).filter((type) => type === 'payment.captured')).toHaveLength(1);
    await expectLedgerBalanced(gw);
  });

  it('rolls back a refund settlement: nothing refunded, no refund journal, no event; settled once later', async () => {
    const txn = await pay(auto);
    const booksBefore = await booksOf(gw, txn.transaction_id);
    await refuseEvents('refund.succeeded');

    const answer = await refund(auto, txn, '4.00');
    expect(answer.refund_status).not.toBe('1');
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'captured', refunded: 0 });
    expect(await booksOf(gw, txn.transaction_id)).toEqual(booksBefore);
    expect(await eventTypes(gw, txn.transaction_id)).not.toContain('refund.succeeded');

    await outbox.clear();
    await settlePendingRefunds(later(600_000));
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'partially_refunded', refunded: 400 });
    expect((await eventTypes(gw, txn.transaction_id)).filter((type) => type === 'refund.succeeded')).toHaveLength(1);
    await expectLedgerBalanced(gw);
  });
});
