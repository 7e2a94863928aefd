// /v1/refund through the HTTP interface: partial and multiple refunds never above what was
// captured; identification and refusals; refunds the processor declines, settles later or does
// not answer; their events and books.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { settlePendingRefunds } from '../../src/app/refund/record-refund.ts';
import type { SignedClient } from '../support/client.ts';
import { depsLater, startTestGateway, type TestGateway } from '../support/gateway.ts';
import {
  batch,
  booksOf,
  cancel,
  capture,
  eventTypes,
  expectLedgerBalanced,
  lost,
  orderOf,
  pay,
  paymentRow,
  refund,
  scriptedProcessor,
} from '../support/lifecycle.ts';

const processor = scriptedProcessor();
let gw: TestGateway;
let shop: SignedClient;
let manual: SignedClient;

beforeAll(async () => {
  gw = await startTestGateway({ connectors: processor.connectors });
  shop = await gw.merchant({ feeBps: 100 });
  manual = await gw.merchant({ captureMode: 'manual' });
});
afterAll(() => gw?.close());
beforeEach(() => {
  delete processor.script.refund;
  delete processor.script.refundStatus;
});

/** The deps of the gateway with its clock `ms` ahead: the sweepers' work is due. */
const later = (ms = 600_000) => depsLater(gw, ms);

const refundRows = (paymentId: string) =>
  gw.database.query<{ id: string; status: string; amount: number; result_code: string | null }>(
    'SELECT id, status, amount::int AS amount, result_code FROM refunds WHERE payment_id = $1 ORDER BY created_at, id',
    [paymentId],
  );

describe('refunding captured money', () => {
  it('refunds the whole amount: V0000:OK, references, the books back to the fee, refund.succeeded', async () => {
    const txn = await pay(shop);
    const answer = await batch(shop, 'refund_orders', [orderOf(txn, { refund_amount: '10.00', refund_reason: 'returned' })]);
    expect(answer.status).toBe(200);
    expect(answer.signed).toBe(true);
    expect(answer.body).toMatchObject({ return_status: '1', return_message: 'OK' });
    const [entry] = answer.body.refund_orders;
    expect(entry).toEqual({
      ...orderOf(txn),
      refund_amount: '10.00',
      refund_reason: 'returned',
      refund_status: '1',
      refund_message: 'V0000:OK',
      refund_reference: expect.stringMatching(/^sim_T[0-9A-Z]{26}_rf_RF[0-9A-Z]{26}$/),
      refund_reference_id: expect.stringMatching(/^RF[0-9A-Z]{26}$/),
      error_message: '',
    });
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'refunded', captured: 1000, refunded: 1000 });
    // The fee (1%) stays with us: the merchant is 0.10 short on this payment.
    expect(await booksOf(gw, txn.transaction_id)).toEqual({ merchant_balance: 10, fee_revenue: -10 });
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.captured', 'refund.succeeded']);
    const [event] = await gw.database.query<{ payload: Record<string, string> }>(
      `SELECT payload FROM events WHERE payment_id = $1 AND type = 'refund.succeeded'`,
      [txn.transaction_id],
    );
    expect(event?.payload).toMatchObject({
      notify_type: 'refund.succeeded',
      transaction_id: txn.transaction_id,
      refund_amount: '10.00',
      refund_status: '1',
      refund_message: 'V0000:OK',
      refund_reference_id: entry.refund_reference_id,
      refunded_amount: '10.00',
      payment_status: '3002',
    });
    await expectLedgerBalanced(gw);
  });

  it('refunds in parts, never more than was captured', async () => {
    const txn = await pay(shop);
    const answer = await batch(shop, 'refund_orders', [
      orderOf(txn, { refund_amount: '3.00' }),
      orderOf(txn, { refund_amount: '3.00' }),
      orderOf(txn, { refund_amount: '4.01' }),
      orderOf(txn, { refund_amount: '4.00' }),
      orderOf(txn, { refund_amount: '0.01' }),
    ]);
    expect(answer.body.refund_orders.map((e: Record<string, string>) => [e.refund_status, e.refund_message])).toEqual([
      ['1', 'V0000:OK'],
      ['1', 'V0000:OK'],
      ['0', 'V5010:refund_amount 4.01 exceeds the 4.00 left to refund of 10.00 captured'],
      ['1', 'V0000:OK'],
      ['0', 'V5010:the transaction is already fully refunded'],
    ]);
    expect(answer.body.refund_orders[2]).toMatchObject({ refund_reference: '', refund_reference_id: '', error_message: '5010:refund_amount 4.01 exceeds the 4.00 left to refund of 10.00 captured' });
    expect((await refundRows(txn.transaction_id)).map((r) => r.amount)).toEqual([300, 300, 400]);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'refunded', refunded: 1000 });
    await expectLedgerBalanced(gw);
  });

  it('is partially refunded between the first and the last part', async () => {
    const txn = await pay(shop);
    await refund(shop, txn, '2.50');
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'partially_refunded', refunded: 250 });
  });

  it('bounds the refunds of a partial capture by what was captured', async () => {
    const txn = await pay(manual);
    await capture(manual, txn, { amount: '6.00' });
    expect((await refund(manual, txn, '6.01')).refund_message).toBe('V5010:refund_amount 6.01 exceeds the 6.00 left to refund of 6.00 captured');
    expect((await refund(manual, txn, '6.00')).refund_message).toBe('V0000:OK');
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'refunded', captured: 600, refunded: 600 });
    await expectLedgerBalanced(gw);
  });
});

describe('refusals', () => {
  it('needs the currency and amount of the transaction and a valid refund_amount', async () => {
    const txn = await pay(shop);
    const answer = await batch(shop, 'refund_orders', [
      orderOf(txn, { refund_amount: '1.00', currency: 'EUR' }),
      orderOf(txn, { refund_amount: '1.00', amount: '1.00' }),
      orderOf(txn, { refund_amount: '0.00' }),
      orderOf(txn, { refund_amount: '1.005' }),
      orderOf(txn),
    ]);
    expect(answer.body.refund_orders.map((e: Record<string, string>) => e.refund_message)).toEqual([
      "V5002:currency EUR does not match the transaction's USD",
      "V5003:amount 1.00 does not match the transaction's 10.00",
      'V4003:refund_amount is invalid: expected an amount greater than zero',
      'V4003:refund_amount is invalid: expected at most the decimals USD has',
      'V4001:refund_amount is required',
    ]);
    expect(await refundRows(txn.transaction_id)).toEqual([]);
  });

  it('says to cancel what is not captured, and refuses cancelled, declined and pending payments', async () => {
    const authorised = await pay(manual);
    const held = await pay(manual, { card: '4000000000004954' });
    const cancelled = await pay(manual);
    await cancel(manual, cancelled);
    const declined = await pay(manual, { card: '4000000000000002' });
    const challenged = await pay(manual, { card: '4000000000003220' });
    const answer = await batch(
      manual,
      'refund_orders',
      [authorised, held, cancelled, declined, challenged].map((txn) => orderOf(txn, { refund_amount: '1.00' })),
    );
    expect(answer.body.refund_orders.map((e: Record<string, string>) => e.refund_message)).toEqual([
      'V5009:the transaction is not captured: cancel it instead',
      'V5009:the transaction is not captured: cancel it instead',
      'V5007:the transaction is already cancelled',
      'V5004:the transaction failed: nothing was authorised',
      'V5004:the transaction is still pending (processor, 3-D Secure or APM): not yet authorised',
    ]);
  });

  it('says a capture or void is in progress, not to cancel, while one of an uncaptured payment is pending', async () => {
    const capturing = await pay(manual);
    const voiding = await pay(manual);
    processor.script.capture = lost;
    processor.script.cancel = lost;
    try {
      expect((await capture(manual, capturing)).capture_status).toBe('2');
      expect((await cancel(manual, voiding)).cancel_status).toBe('2');
    } finally {
      delete processor.script.capture;
      delete processor.script.cancel;
    }
    const answer = await batch(manual, 'refund_orders', [capturing, voiding].map((txn) => orderOf(txn, { refund_amount: '1.00' })));
    expect(answer.body.refund_orders.map((e: Record<string, string>) => e.error_message)).toEqual([
      '5012:a capture of this transaction is in progress',
      '5012:a cancellation of this transaction is in progress',
    ]);
    expect(await refundRows(capturing.transaction_id)).toEqual([]);
  });

  it("answers another account's transaction like one that does not exist", async () => {
    const theirs = await pay(shop);
    const answer = await batch(manual, 'refund_orders', [
      orderOf(theirs, { refund_amount: '1.00' }),
      orderOf({ ...theirs, order_no: 'ORD-nobody' }, { refund_amount: '1.00' }),
    ]);
    const [a, b] = answer.body.refund_orders as Record<string, string>[];
    expect({ ...a, order_no: '' }).toEqual({ ...b, order_no: '' });
    expect(a!.refund_message).toBe('V5001:no transaction with this transaction_id and order_no');
    expect(await refundRows(theirs.transaction_id)).toEqual([]);
  });

  it('takes 50 orders and refuses 51 as a whole, refunding nothing', async () => {
    const txn = await pay(shop, { amount: '100.00' });
    const fifty = await batch(shop, 'refund_orders', Array.from({ length: 50 }, () => orderOf(txn, { refund_amount: '1.00' })), { format: 'form' });
    expect(fifty.status).toBe(200);
    expect(fifty.body.refund_orders.filter((e: Record<string, string>) => e.refund_status === '1')).toHaveLength(50);
    const over = await batch(shop, 'refund_orders', Array.from({ length: 51 }, () => orderOf(txn, { refund_amount: '1.00' })));
    expect([over.status, over.body.return_message, over.body.refund_orders]).toEqual([400, '4010:refund_orders holds 51 orders: 1 to 50 per request', []]);
    expect((await paymentRow(gw, txn.transaction_id)).refunded).toBe(5000);
  });
});

describe('the processor', () => {
  it('declining a refund: refund_status 0 with its reference id, refund.failed, and the amount free again', async () => {
    const txn = await pay(shop);
    const declined = await refund(shop, txn, '10.00', { refund_reason: 'sandbox_decline' });
    expect(declined).toMatchObject({
      refund_status: '0',
      refund_message: 'V5013:refused by the processor: the sandbox processor declined the refund',
      error_message: '5013:refused by the processor: the sandbox processor declined the refund',
      refund_reference_id: expect.stringMatching(/^RF/),
    });
    expect(await refundRows(txn.transaction_id)).toEqual([expect.objectContaining({ status: 'failed', result_code: '5013' })]);
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.captured', 'refund.failed']);
    expect((await refund(shop, txn, '10.00')).refund_status).toBe('1');
    await expectLedgerBalanced(gw);
  });

  it('notifies a declined refund as docs/notifications.md shows refund.failed: the code of the refund answer, 5013', async () => {
    const txn = await pay(shop);
    const declined = await refund(shop, txn, '10.00', { refund_reason: 'sandbox_decline' });
    const [event] = await gw.database.query<{ payload: Record<string, string> }>(`SELECT payload FROM events WHERE payment_id = $1 AND type = 'refund.failed'`, [
      txn.transaction_id,
    ]);
    expect(event?.payload.refund_message).toBe(declined.refund_message);
    const docs = readFileSync(new URL('../../docs/notifications.md', import.meta.url), 'utf8');
    const example = JSON.parse(/### refund\.failed[\s\S]*?```json\n([\s\S]*?)```/.exec(docs)![1]!) as Record<string, string>;
    const codeOf = (message: string) => message.split(':')[0];
    expect(codeOf(example.refund_message!)).toBe(codeOf(event!.payload.refund_message!));
    expect(example.refund_message).toMatch(/^V5013:refused by the processor: /);
  });

  it('settling later: pending (reserved against the capture), then succeeded by the sweeper, with refund.succeeded', async () => {
    const txn = await pay(shop);
    const pending = await refund(shop, txn, '6.00', { refund_reason: 'sandbox_settle_later' });
    expect(pending).toMatchObject({ refund_status: '2', refund_message: 'V1000:Pending: awaiting the processor', refund_reference: expect.stringMatching(/\.settles$/) });
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'captured', refunded: 0 });
    expect((await refund(shop, txn, '4.01')).refund_message).toBe('V5010:refund_amount 4.01 exceeds the 4.00 left to refund of 10.00 captured');
    expect(await settlePendingRefunds(later())).toBeGreaterThanOrEqual(1);
    expect(await refundRows(txn.transaction_id)).toEqual([expect.objectContaining({ status: 'succeeded', result_code: '0000' })]);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'partially_refunded', refunded: 600 });
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.captured', 'refund.succeeded']);
    await expectLedgerBalanced(gw);
  });

  it('failing later: pending, then failed by the sweeper, with refund.failed, the amount free again', async () => {
    const txn = await pay(shop);
    expect((await refund(shop, txn, '10.00', { refund_reason: 'sandbox_fail_later' })).refund_status).toBe('2');
    await settlePendingRefunds(later());
    expect(await refundRows(txn.transaction_id)).toEqual([expect.objectContaining({ status: 'failed', result_code: '5013' })]);
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.captured', 'refund.failed']);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'captured', refunded: 0 });
    expect((await refund(shop, txn, '10.00')).refund_status).toBe('1');
    await expectLedgerBalanced(gw);
  });

  it('not answering: pending, then the same refund sent again by the sweeper', async () => {
    const txn = await pay(shop);
    processor.script.refund = lost;
    const pending = await refund(shop, txn, '1.00');
    expect(pending).toMatchObject({ refund_status: '2', refund_reference: '' });
    delete processor.script.refund;
    const calls = processor.calls.refund;
    await settlePendingRefunds(later());
    expect(processor.calls.refund).toBe(calls + 1);
    expect(await refundRows(txn.transaction_id)).toEqual([expect.objectContaining({ id: pending.refund_reference_id, status: 'succeeded' })]);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ refunded: 100 });
    await expectLedgerBalanced(gw);
  });
});

describe('a batch of refunds', () => {
  it('answers in the order sent while different transactions run side by side', async () => {
    const txns = await Promise.all(Array.from({ length: 12 }, () => pay(shop)));
    const orders: Record<string, string>[] = txns.map((txn, i) => orderOf(txn, { refund_amount: `${(i % 9) + 1}.00` }));
    const answer = await batch(shop, 'refund_orders', orders);
    expect(answer.body.refund_orders.map((e: Record<string, string>) => [e.transaction_id, e.refund_amount, e.refund_status])).toEqual(
      orders.map((o) => [o.transaction_id, o.refund_amount, '1']),
    );
  });

  it('runs two refunds of one transaction in the order sent: the second sees the first', async () => {
    const txn = await pay(shop);
    const answer = await batch(shop, 'refund_orders', [
      orderOf(txn, { refund_amount: '7.00' }),
      orderOf(txn, { refund_amount: '4.00' }),
      orderOf(txn, { refund_amount: '3.00' }),
    ]);
    expect(answer.body.refund_orders.map((e: Record<string, string>) => [e.refund_amount, e.refund_status, (e.error_message ?? '').slice(0, 5)])).toEqual([
      ['7.00', '1', ''],
      ['4.00', '0', '5010:'],
      ['3.00', '1', ''],
    ]);
    expect((await refundRows(txn.transaction_id)).map((r) => r.amount)).toEqual([700, 300]);
  });
});
