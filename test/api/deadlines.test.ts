// Every connector call has a deadline (ACQUIRO_CONNECTOR_TIMEOUT, 0.5 s here). A processor that
// hangs on a refund, a capture or a status query holds neither the merchant's request nor the
// sweeper past it: the outcome is unknown, so the operation stays pending (claimed, answered as
// pending), nothing is recorded twice, and the sweeper settles it later. A call past its deadline
// keeps its slot of the connector's calls in flight until the connector lets go of it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resolvePendingOperations } from '../../src/app/capture/operation.ts';
import { resolveUnknownPayments } from '../../src/app/payments/resolve-unknown.ts';
import { settlePendingRefunds } from '../../src/app/refund/record-refund.ts';
import type { AuthoriseOutcome } from '../../src/connectors/port.ts';
import type { SignedClient } from '../support/client.ts';
import { cardPayment } from '../support/fixtures.ts';
import { depsLater, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { batch, booksOf, capture, eventTypes, expectLedgerBalanced, hanging, orderOf, pay, paymentRow, refund, scriptedProcessor } from '../support/lifecycle.ts';

const DEADLINE_MS = 500;
// `capped`: the same processor, accepting one call at once.
const processor = scriptedProcessor({ capped: 1 });
let gw: TestGateway;
let shop: SignedClient;
let manual: SignedClient;
let cappedShop: SignedClient;

beforeAll(async () => {
  gw = await startTestGateway({ connectors: processor.connectors, env: { ACQUIRO_CONNECTOR_TIMEOUT: String(DEADLINE_MS / 1000) } });
  shop = await gw.merchant();
  manual = await gw.merchant({ captureMode: 'manual' });
  cappedShop = await gw.merchant({ connector: 'capped' });
});
afterAll(() => gw?.close());
beforeEach(() => {
  for (const call of Object.keys(processor.script) as (keyof typeof processor.script)[]) delete processor.script[call];
});

/** What `work` answered and how long it took; fails the test, instead of hanging it, past `ms`. */
async function timed<T>(work: Promise<T>, ms = 20_000): Promise<{ value: T; tookMs: number }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const value = await Promise.race([
    work,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
  return { value, tookMs: performance.now() - started };
}

/** At the deadline (`deadlines` of them one after the other), not long after it: wide, for a loaded machine. */
const aboutTheDeadline = (tookMs: number, deadlines = 1) => {
  expect(tookMs).toBeGreaterThanOrEqual(deadlines * DEADLINE_MS - 50);
  expect(tookMs).toBeLessThan(deadlines * DEADLINE_MS + 6_000);
};

const refundRows = (paymentId: string) =>
  gw.database.query<{ id: string; status: string }>('SELECT id, status FROM refunds WHERE payment_id = $1 ORDER BY created_at, id', [paymentId]);

describe('a processor that hangs', () => {
  it('on a refund: answered pending at the deadline, the refund left claimed; the sweeper sends it again and records it once', async () => {
    const txn = await pay(shop);
    const books = await booksOf(gw, txn.transaction_id);
    const hung = hanging();
    processor.script.refund = hung.answer;
    const { value: entry, tookMs } = await timed(refund(shop, txn, '4.00'));
    aboutTheDeadline(tookMs);
    expect(entry).toMatchObject({ refund_status: '2', refund_message: 'V1000:Pending: awaiting the processor', refund_reference: '' });
    expect(await refundRows(txn.transaction_id)).toEqual([{ id: entry.refund_reference_id, status: 'pending' }]);
    expect(await booksOf(gw, txn.transaction_id)).toEqual(books);
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.captured']);

    delete processor.script.refund;
    const calls = processor.calls.refund;
    expect(await settlePendingRefunds(depsLater(gw, 600_000))).toBe(1);
    expect(processor.calls.refund).toBe(calls + 1);
    expect(await refundRows(txn.transaction_id)).toEqual([{ id: entry.refund_reference_id, status: 'succeeded' }]);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ refunded: 400 });
    expect(await settlePendingRefunds(depsLater(gw, 1_200_000))).toBe(0);
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.captured', 'refund.succeeded']);
    await expectLedgerBalanced(gw);
  });

  it('on a capture, deaf to the abort: answered pending at the deadline; the sweeper captures it once, the late answer ignored', async () => {
    const txn = await pay(manual);
    const hung = hanging({ ignoring: true });
    processor.script.capture = hung.answer;
    const { value: entry, tookMs } = await timed(capture(manual, txn));
    aboutTheDeadline(tookMs);
    expect([entry.capture_status, entry.error_message]).toEqual(['2', '1000:Pending: awaiting the processor']);
    expect((await capture(manual, txn)).error_message).toBe('5012:a capture of this transaction is in progress');
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'authorised', captured: 0 });

    // The processor's answer comes at last, to no one; then the sweeper sends the capture again.
    hung.release();
    delete processor.script.capture;
    expect(await resolvePendingOperations(depsLater(gw, 600_000))).toBe(1);
    expect(await resolvePendingOperations(depsLater(gw, 1_200_000))).toBe(0);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'captured', captured: 1000 });
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.authorised', 'payment.captured']);
    await expectLedgerBalanced(gw);
  });

  it("on a status query: the sweeper stops waiting at the deadline, leaves the payment pending, and records the processor's answer when it comes", async () => {
    const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { card: '4000000000000259' }));
    expect(answer.body.order_status).toBe('2');
    const id = answer.body.transaction_id;
    processor.script.paymentStatus = hanging<AuthoriseOutcome>().answer;
    const { value: resolved, tookMs } = await timed(resolveUnknownPayments(depsLater(gw, 60_000)));
    aboutTheDeadline(tookMs);
    expect(resolved).toBe(0);
    expect(processor.calls.paymentStatus).toBeGreaterThanOrEqual(1);
    expect(await paymentRow(gw, id)).toMatchObject({ status: 'processing' });

    delete processor.script.paymentStatus;
    expect(await resolveUnknownPayments(depsLater(gw, 600_000))).toBeGreaterThanOrEqual(1);
    expect(await paymentRow(gw, id)).toMatchObject({ status: 'captured', captured: 1000 });
    expect(await eventTypes(gw, id)).toEqual(['payment.captured']);
  });

  it("keeps the slot of a call deaf to the abort: on a connector taking one call at once, the next order's call is not sent but left pending", async () => {
    const first = await pay(cappedShop);
    const second = await pay(cappedShop);
    const hung = hanging({ ignoring: true });
    processor.script.refund = hung.answer;
    const calls = processor.calls.refund;
    // One call hangs past its deadline; the other waits a timeout for the slot, then gives up unsent.
    const { value: answer, tookMs } = await timed(batch(cappedShop, 'refund_orders', [orderOf(first, { refund_amount: '1.00' }), orderOf(second, { refund_amount: '2.00' })]));
    aboutTheDeadline(tookMs, 2);
    expect(answer.body.refund_orders.map((entry: Record<string, string>) => entry.refund_status)).toEqual(['2', '2']);
    expect(processor.calls.refund).toBe(calls + 1);

    hung.release();
    delete processor.script.refund;
    expect(await settlePendingRefunds(depsLater(gw, 600_000))).toBe(2);
    for (const [txn, refunded] of [[first, 100], [second, 200]] as const) {
      expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ refunded });
      expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.captured', 'refund.succeeded']);
    }
    await expectLedgerBalanced(gw);
  });
});
