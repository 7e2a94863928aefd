// /v1/cancel through the HTTP interface: voids before capture, refusals after it (refund
// instead), identification, limits, and the processor refusing or not answering.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resolvePendingOperations } from '../../src/app/capture/operation.ts';
import type { SignedClient } from '../support/client.ts';
import { cardPayment } from '../support/fixtures.ts';
import { depsLater, startTestGateway, type TestGateway } from '../support/gateway.ts';
import {
  batch,
  booksOf,
  cancel,
  eventTypes,
  expectLedgerBalanced,
  lost,
  orderOf,
  pay,
  paymentRow,
  refund,
  refused,
  scriptedProcessor,
} from '../support/lifecycle.ts';

const processor = scriptedProcessor();
let gw: TestGateway;
let shop: SignedClient;
let auto: SignedClient;

beforeAll(async () => {
  gw = await startTestGateway({ connectors: processor.connectors });
  shop = await gw.merchant({ captureMode: 'manual' });
  auto = await gw.merchant();
});
afterAll(() => gw?.close());
beforeEach(() => {
  delete processor.script.cancel;
});

describe('cancelling before capture', () => {
  it('voids an authorised payment at the processor and releases the hold', async () => {
    const txn = await pay(shop);
    const calls = processor.calls.cancel;
    const answer = await batch(shop, 'cancel_orders', [orderOf(txn)]);
    expect(answer.status).toBe(200);
    expect(answer.signed).toBe(true);
    expect(answer.body).toMatchObject({ return_status: '1', return_message: 'OK' });
    expect(answer.body.cancel_orders).toEqual([{ ...orderOf(txn), cancel_status: '1', error_message: '' }]);
    expect(processor.calls.cancel).toBe(calls + 1);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'cancelled', captured: 0 });
    expect(await booksOf(gw, txn.transaction_id)).toEqual({});
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.authorised', 'payment.cancelled']);
    await expectLedgerBalanced(gw);
  });

  it('voids a payment held for review', async () => {
    const txn = await pay(auto, { card: '4000000000004954' });
    expect((await cancel(auto, txn)).cancel_status).toBe('1');
    expect((await paymentRow(gw, txn.transaction_id)).status).toBe('cancelled');
  });

  it('reports a payment held for review, once cancelled, as any cancelled payment: 0000:Success, not the held 1003', async () => {
    const statusFields = ({ order_status, payment_status, result_info }: Record<string, string>) => ({ order_status, payment_status, result_info });
    /** What a payment cancelled by /v1/cancel shows in its payment.cancelled and in the answer to a repeat of the payment. */
    const cancelledAs = async (client: SignedClient, overrides: Record<string, unknown>) => {
      const body = cardPayment(client.ids, overrides);
      const first = await client.post('/v1/authorise', body);
      const txn = { transaction_id: first.body.transaction_id, order_no: String(body.order_no), currency: String(body.currency), amount: first.body.amount };
      expect((await cancel(client, txn)).cancel_status).toBe('1');
      const [event] = await gw.database.query<{ payload: Record<string, string> }>(`SELECT payload FROM events WHERE payment_id = $1 AND type = 'payment.cancelled'`, [
        txn.transaction_id,
      ]);
      return { notified: statusFields(event!.payload), repeated: statusFields((await client.post('/v1/authorise', body)).body) };
    };
    const held = await cancelledAs(auto, { card: '4000000000004954' });
    expect(held).toEqual(await cancelledAs(shop, {}));
    expect(held.notified).toEqual({ order_status: '0', payment_status: '4000', result_info: '0000:Success' });
  });

  it('needs the amount and currency of the transaction', async () => {
    const txn = await pay(shop);
    const answer = await batch(shop, 'cancel_orders', [orderOf(txn, { amount: '9.99' }), orderOf(txn, { currency: 'EUR' })]);
    expect(answer.body.cancel_orders.map((e: Record<string, string>) => e.error_message)).toEqual([
      "5003:amount 9.99 does not match the transaction's 10.00",
      "5002:currency EUR does not match the transaction's USD",
    ]);
    expect((await paymentRow(gw, txn.transaction_id)).status).toBe('authorised');
  });
});

describe('refused states', () => {
  it('says to refund a captured payment, partly refunded or not', async () => {
    const captured = await pay(auto);
    const partly = await pay(auto);
    await refund(auto, partly, '1.00');
    const answer = await batch(auto, 'cancel_orders', [orderOf(captured), orderOf(partly)]);
    expect(answer.body.cancel_orders.map((e: Record<string, string>) => [e.cancel_status, e.error_message])).toEqual([
      ['0', '5008:the transaction is captured: refund it instead'],
      ['0', '5008:the transaction is captured: refund it instead'],
    ]);
    expect((await paymentRow(gw, partly.transaction_id)).status).toBe('partially_refunded');
  });

  it('refuses a second cancel, a declined payment and a pending one', async () => {
    const txn = await pay(shop);
    await cancel(shop, txn);
    const declined = await pay(shop, { card: '4000000000009995' });
    const pending = await pay(shop, { card: '4000000000000259' });
    const answer = await batch(shop, 'cancel_orders', [orderOf(txn), orderOf(declined), orderOf(pending)]);
    expect(answer.body.cancel_orders.map((e: Record<string, string>) => e.error_message)).toEqual([
      '5007:the transaction is already cancelled',
      '5004:the transaction failed: nothing was authorised',
      '5004:the transaction is still pending (processor, 3-D Secure or APM): not yet authorised',
    ]);
  });

  it("answers another account's transaction like one that does not exist", async () => {
    const theirs = await pay(shop);
    const mine = await batch(auto, 'cancel_orders', [orderOf(theirs), orderOf({ ...theirs, transaction_id: 'TNOSUCH' })]);
    const [a, b] = mine.body.cancel_orders as Record<string, string>[];
    expect({ ...a, transaction_id: '' }).toEqual({ ...b, transaction_id: '' });
    expect(a!.error_message).toBe('5001:no transaction with this transaction_id and order_no');
    expect((await paymentRow(gw, theirs.transaction_id)).status).toBe('authorised');
  });
});

describe('limits', () => {
  it('takes 50 orders and refuses 51 as a whole', async () => {
    const txn = await pay(shop);
    const fifty = await batch(shop, 'cancel_orders', Array.from({ length: 50 }, () => orderOf(txn, { amount: '1.00' })));
    expect(fifty.status).toBe(200);
    expect(fifty.body.cancel_orders).toHaveLength(50);
    const over = await batch(shop, 'cancel_orders', Array.from({ length: 51 }, () => orderOf(txn)));
    expect([over.status, over.body.return_status, over.body.return_message]).toEqual([400, '0', '4010:cancel_orders holds 51 orders: 1 to 50 per request']);
    expect((await paymentRow(gw, txn.transaction_id)).status).toBe('authorised');
  });
});

describe('the processor', () => {
  it('refusing the void leaves the payment authorised', async () => {
    const txn = await pay(shop);
    processor.script.cancel = refused('already voided by the issuer');
    expect(await cancel(shop, txn)).toMatchObject({ cancel_status: '0', error_message: '5013:refused by the processor: already voided by the issuer' });
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'authorised' });
    expect(await booksOf(gw, txn.transaction_id)).toEqual({ authorised_funds: 1000, authorisation_hold: -1000 });
  });

  it('not answering leaves the void pending until the sweeper gets an answer', async () => {
    const txn = await pay(shop);
    processor.script.cancel = lost;
    expect(await cancel(shop, txn)).toMatchObject({ cancel_status: '2', error_message: '1000:Pending: awaiting the processor' });
    expect((await paymentRow(gw, txn.transaction_id)).status).toBe('authorised');
    const later = depsLater(gw, 60_000);
    // Still no answer: still pending, asked again later.
    expect(await resolvePendingOperations(later)).toBe(0);
    delete processor.script.cancel;
    const evenLater = depsLater(gw, 600_000);
    expect(await resolvePendingOperations(evenLater)).toBe(1);
    expect((await paymentRow(gw, txn.transaction_id)).status).toBe('cancelled');
    await expectLedgerBalanced(gw);
  });

  it('a pending void the processor then refuses is notified as payment.cancel_failed, the payment authorised', async () => {
    const txn = await pay(shop);
    processor.script.cancel = lost;
    expect((await cancel(shop, txn)).cancel_status).toBe('2');
    processor.script.cancel = refused('already captured by the issuer');
    expect(await resolvePendingOperations(depsLater(gw, 60_000))).toBeGreaterThanOrEqual(1);
    delete processor.script.cancel;
    expect((await paymentRow(gw, txn.transaction_id)).status).toBe('authorised');
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.authorised', 'payment.cancel_failed']);
    const [event] = await gw.database.query<{ payload: Record<string, string> }>(`SELECT payload FROM events WHERE payment_id = $1 AND type = 'payment.cancel_failed'`, [
      txn.transaction_id,
    ]);
    expect(event!.payload).toMatchObject({ payment_status: '2000', error_message: '5013:refused by the processor: already captured by the issuer' });
  });
});
