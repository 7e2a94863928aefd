// /v1/capture through the HTTP interface: full and partial captures, once; every state refused;
// identification by transaction_id + order_no of this account only; batch limits and bodies; the
// processor refusing or not answering; the books after each capture.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resolvePendingOperations } from '../../src/app/capture/operation.ts';
import { runCommand } from '../../src/cli/commands.ts';
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
  refused,
  review,
  scriptedProcessor,
  heldAnswer,
  type Txn,
} from '../support/lifecycle.ts';

// `capped`: the same processor, accepting 2 calls at once.
const processor = scriptedProcessor({ capped: 2 });
let gw: TestGateway;
let shop: SignedClient;

beforeAll(async () => {
  gw = await startTestGateway({ connectors: processor.connectors });
  shop = await gw.merchant({ captureMode: 'manual', feeBps: 250 });
});
afterAll(() => gw?.close());
beforeEach(() => {
  delete processor.script.capture;
});

describe('capturing an authorised payment', () => {
  it('captures the whole amount: the hold becomes the merchant balance, less the fee', async () => {
    const txn = await pay(shop);
    const answer = await batch(shop, 'capture_orders', [orderOf(txn)]);
    expect(answer.status).toBe(200);
    expect(answer.signed).toBe(true);
    expect(answer.body).toMatchObject({ merchant_id: shop.ids.merchant_id, account_id: shop.ids.account_id, return_status: '1', return_message: 'OK' });
    expect(answer.body.capture_orders).toEqual([{ ...orderOf(txn), capture_status: '1', error_message: '' }]);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'captured', captured: 1000 });
    // 2.5% of 10.00; no hold left.
    expect(await booksOf(gw, txn.transaction_id)).toEqual({ processor_receivable: 1000, merchant_balance: -975, fee_revenue: -25 });
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.authorised', 'payment.captured']);
    await expectLedgerBalanced(gw);
  });

  it('captures part of it: amount is what to capture, and the rest is released', async () => {
    const txn = await pay(shop, { amount: '10.00' });
    const entry = await capture(shop, txn, { amount: '4.00' });
    expect(entry).toMatchObject({ amount: '4.00', capture_status: '1', error_message: '' });
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'captured', captured: 400 });
    expect(await booksOf(gw, txn.transaction_id)).toEqual({ processor_receivable: 400, merchant_balance: -390, fee_revenue: -10 });
    const [release] = await gw.database.query<{ total: number }>(
      `SELECT sum(amount)::int AS total FROM ledger_entries WHERE payment_id = $1 AND kind = 'release' AND book = 'authorisation_hold'`,
      [txn.transaction_id],
    );
    expect(release?.total).toBe(600);
    await expectLedgerBalanced(gw);
  });

  it('captures once: a second capture, whole or partial, is refused and changes nothing', async () => {
    const txn = await pay(shop);
    await capture(shop, txn, { amount: '3.00' });
    const again = await capture(shop, txn);
    const rest = await capture(shop, txn, { amount: '7.00' });
    expect([again.capture_status, again.error_message]).toEqual(['0', '5005:the transaction is already captured']);
    expect(rest.error_message).toBe('5005:the transaction is already captured');
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ captured: 300 });
    expect(processor.calls.capture).toBeGreaterThan(0);
  });

  it('refuses more than was authorised', async () => {
    const txn = await pay(shop);
    const entry = await capture(shop, txn, { amount: '10.01' });
    expect([entry.capture_status, entry.error_message]).toEqual(['0', '5006:amount 10.01 exceeds the authorised 10.00']);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'authorised', captured: 0 });
  });

  it('captures in other exponents (JPY, KWD)', async () => {
    const jpy = await pay(shop, { currency: 'JPY', amount: '1500' });
    const kwd = await pay(shop, { currency: 'KWD', amount: '2.500' });
    const answer = await batch(shop, 'capture_orders', [orderOf(jpy, { amount: '1000' }), orderOf(kwd)]);
    expect(answer.body.capture_orders.map((e: Record<string, string>) => e.capture_status)).toEqual(['1', '1']);
    expect((await paymentRow(gw, jpy.transaction_id)).captured).toBe(1000);
    expect((await paymentRow(gw, kwd.transaction_id)).captured).toBe(2500);
  });
});

describe('refused states', () => {
  const captureOf = async (txn: Txn) => (await capture(shop, txn)).error_message;

  it('refuses payments held for review, declined, pending, cancelled, captured or refunded', async () => {
    const auto = await gw.merchant();
    const review = await pay(shop, { card: '4000000000004954' });
    const declined = await pay(shop, { card: '4000000000000002' });
    const challenged = await pay(shop, { card: '4000000000003220' });
    const cancelled = await pay(shop);
    await batch(shop, 'cancel_orders', [orderOf(cancelled)]);
    const captured = await pay(auto);
    const refunded = await pay(auto);
    await batch(auto, 'refund_orders', [orderOf(refunded, { refund_amount: '10.00' })]);
    const timedOut = await pay(shop, { card: '4000000000000259' });
    expect(await captureOf(review)).toBe('5004:the transaction is held for review: approve it with /v1/review first');
    expect(await captureOf(declined)).toBe('5004:the transaction failed: nothing was authorised');
    expect(await captureOf(challenged)).toBe('5004:the transaction is still pending (processor, 3-D Secure or APM): not yet authorised');
    expect(await captureOf(cancelled)).toBe('5007:the transaction is already cancelled');
    expect((await capture(auto, captured)).error_message).toBe('5005:the transaction is already captured');
    expect((await capture(auto, refunded)).error_message).toBe('5005:the transaction is already captured');
    expect(await captureOf(timedOut)).toBe('5004:the transaction is still pending (processor, 3-D Secure or APM): not yet authorised');
    expect((await paymentRow(gw, review.transaction_id)).status).toBe('pending_review');
  });

  it('says a cancellation is in progress, not to approve it first, for a payment held for review whose void is pending', async () => {
    const held = await pay(shop, { card: '4000000000004954' });
    processor.script.cancel = lost;
    try {
      expect((await cancel(shop, held)).cancel_status).toBe('2');
    } finally {
      delete processor.script.cancel;
    }
    // The approval the old answer sent the merchant to is refused 5012 too: the capture says so itself.
    expect((await review(shop, held, '1')).error_message).toBe('5012:a cancellation of this transaction is in progress');
    expect(await captureOf(held)).toBe('5012:a cancellation of this transaction is in progress');
    expect(await paymentRow(gw, held.transaction_id)).toMatchObject({ status: 'pending_review', captured: 0 });
  });
});

describe('identifying the transaction', () => {
  it('needs transaction_id and order_no of one transaction, its currency, and answers another account like nobody', async () => {
    const txn = await pay(shop);
    const other = await pay(shop);
    const stranger = await gw.merchant({ captureMode: 'manual' });
    const theirs = await pay(stranger);
    const answer = await batch(shop, 'capture_orders', [
      orderOf(txn, { transaction_id: 'T00000000000000000000000000' }),
      orderOf(txn, { order_no: other.order_no }),
      orderOf(txn, { currency: 'EUR' }),
      orderOf(theirs),
      orderOf({ ...theirs, transaction_id: 'T00000000000000000000000000' }),
    ]);
    const messages = answer.body.capture_orders.map((e: Record<string, string>) => [e.capture_status, e.error_message]);
    const notFound = ['0', '5001:no transaction with this transaction_id and order_no'];
    expect(messages).toEqual([notFound, notFound, ['0', "5002:currency EUR does not match the transaction's USD"], notFound, notFound]);
    // The whole entry, as for an id that does not exist: nothing of their payment shows through.
    const [theirsEntry, nobodyEntry] = answer.body.capture_orders.slice(3) as Record<string, string>[];
    expect({ ...theirsEntry, transaction_id: '' }).toEqual({ ...nobodyEntry, transaction_id: '' });
    expect((await paymentRow(gw, theirs.transaction_id)).status).toBe('authorised');
    expect((await paymentRow(gw, txn.transaction_id)).status).toBe('authorised');
  });
});

describe('the batch', () => {
  it("runs no more orders at once than the account's connector accepts calls", async () => {
    const cappedShop = await gw.merchant({ captureMode: 'manual', connector: 'capped' });
    const txns = await Promise.all(Array.from({ length: 8 }, () => pay(cappedShop)));
    const timed = heldAnswer(2, 100);
    processor.script.capture = timed.answer;
    const answer = await batch(cappedShop, 'capture_orders', txns.map((txn) => orderOf(txn)));
    expect((answer.body.capture_orders as Record<string, string>[]).map((e) => e.capture_status)).toEqual(txns.map(() => '1'));
    expect(timed.count.most).toBeLessThanOrEqual(2);
  });

  it('keeps to the limit of the connector the payments were taken on, after the account is routed to another', async () => {
    const movedShop = await gw.merchant({ captureMode: 'manual', connector: 'capped' });
    const txns = await Promise.all(Array.from({ length: 8 }, () => pay(movedShop)));
    // Routed to the simulator (50 at once): these payments' captures still go to `capped` (2 at once).
    const routed = await runCommand(['accounts', 'connector', 'set', '--merchant-id', movedShop.ids.merchant_id, '--account-id', movedShop.ids.account_id, '--connector', 'simulator'], gw.gateway.deps);
    expect(routed.exitCode, routed.stderr).toBe(0);
    gw.gateway.server.directory.forget();
    const timed = heldAnswer(2, 100);
    processor.script.capture = timed.answer;
    const answer = await batch(movedShop, 'capture_orders', txns.map((txn) => orderOf(txn)));
    expect((answer.body.capture_orders as Record<string, string>[]).map((e) => e.capture_status)).toEqual(txns.map(() => '1'));
    expect(timed.count.most).toBeLessThanOrEqual(2);
  });

  it('answers every order in the order sent; one bad order never fails the others', async () => {
    const first = await pay(shop);
    const second = await pay(shop);
    const answer = await batch(shop, 'capture_orders', [
      orderOf(first),
      { transaction_id: 'T1', order_no: 'nope', currency: 'USD', amount: '1.00' },
      orderOf(second, { amount: '1,00' }),
      { order_no: second.order_no, currency: 'USD', amount: '1.00' },
      orderOf(second, { currency: 'XYZ' }),
      orderOf(second, { amount: '1.001' }),
      orderOf(second),
    ]);
    expect(answer.status).toBe(200);
    expect(answer.body.capture_orders.map((e: Record<string, string>) => [e.transaction_id, e.capture_status, e.error_message])).toEqual([
      [first.transaction_id, '1', ''],
      ['T1', '0', '5001:no transaction with this transaction_id and order_no'],
      [second.transaction_id, '0', '4002:amount is invalid: expected a decimal such as 10.00'],
      ['', '0', '4001:transaction_id is required'],
      [second.transaction_id, '0', '4004:currency XYZ is not a supported ISO 4217 currency'],
      [second.transaction_id, '0', '4003:amount is invalid: expected at most the decimals USD has'],
      [second.transaction_id, '1', ''],
    ]);
  });

  it.each(['form', 'xml', 'json-as-form'] as const)('takes a %s body, a one-order list staying a list', async (format) => {
    const txn = await pay(shop);
    const answer = await batch(shop, 'capture_orders', [orderOf(txn)], { format });
    expect(answer.status).toBe(200);
    expect(answer.body.capture_orders).toEqual([{ ...orderOf(txn), capture_status: '1', error_message: '' }]);
  });

  it('takes 100 orders', async () => {
    const txn = await pay(shop);
    const orders = Array.from({ length: 100 }, () => orderOf(txn));
    const answer = await batch(shop, 'capture_orders', orders);
    expect(answer.status).toBe(200);
    expect(answer.body.capture_orders).toHaveLength(100);
    expect(answer.body.capture_orders.filter((e: Record<string, string>) => e.capture_status === '1')).toHaveLength(1);
  });

  it.each([
    ['101 orders', (o: object) => Array.from({ length: 101 }, () => o), '4010:capture_orders holds 101 orders: 1 to 100 per request'],
    ['no orders', () => [], '4010:capture_orders holds 0 orders: 1 to 100 per request'],
    ['a text instead of a list', () => 'all', '4002:capture_orders is invalid: expected a list of orders'],
    ['a list of texts', () => ['T1', 'T2'], '4002:capture_orders[0] is invalid: expected an order with its fields'],
  ])('refuses %s as a whole: 400 and nothing captured', async (_name, orders, message) => {
    const txn = await pay(shop);
    const answer = await shop.post('/v1/capture', { ...shop.ids, capture_orders: orders(orderOf(txn)) });
    expect(answer.status).toBe(400);
    expect(answer.signed).toBe(true);
    expect(answer.body).toMatchObject({ return_status: '0', return_message: message, capture_orders: [] });
    expect((await paymentRow(gw, txn.transaction_id)).status).toBe('authorised');
  });

  it('refuses a request without capture_orders, an unknown account, and a wrong signature', async () => {
    const txn = await pay(shop);
    const missing = await shop.post('/v1/capture', { ...shop.ids });
    const unknown = await shop.post('/v1/capture', { merchant_id: 'M1', account_id: 'A1', capture_orders: [orderOf(txn)] });
    const forged = await shop.post('/v1/capture', { ...shop.ids, capture_orders: [orderOf(txn)] }, { secret: 'sk_test_wrong' });
    expect([missing.status, missing.body.return_message]).toEqual([400, '4001:capture_orders is required']);
    expect([unknown.status, unknown.body.return_status, unknown.body.return_message]).toEqual([404, '0', '4404:unknown merchant_id/account_id']);
    expect([forged.status, forged.body.return_message.split('; sandbox:')[0]]).toEqual([401, '4401:encryption_data does not match the body']);
    expect((await paymentRow(gw, txn.transaction_id)).status).toBe('authorised');
  });
});

describe('the processor', () => {
  it('refusing the capture leaves the payment authorised, to be captured again', async () => {
    const txn = await pay(shop);
    processor.script.capture = refused('authorisation expired');
    const entry = await capture(shop, txn);
    expect([entry.capture_status, entry.error_message]).toEqual(['0', '5013:refused by the processor: authorisation expired']);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'authorised', captured: 0 });
    delete processor.script.capture;
    expect((await capture(shop, txn)).capture_status).toBe('1');
    await expectLedgerBalanced(gw);
  });

  it('not answering leaves the capture pending; the sweeper sends it again and records it', async () => {
    const txn = await pay(shop);
    processor.script.capture = lost;
    const entry = await capture(shop, txn);
    expect([entry.capture_status, entry.error_message]).toEqual(['2', '1000:Pending: awaiting the processor']);
    expect((await capture(shop, txn)).error_message).toBe('5012:a capture of this transaction is in progress');
    expect((await batch(shop, 'cancel_orders', [orderOf(txn)])).body.cancel_orders[0].error_message).toBe(
      '5012:a capture of this transaction is in progress',
    );
    delete processor.script.capture;
    const later = depsLater(gw, 60_000);
    expect(await resolvePendingOperations(later)).toBeGreaterThanOrEqual(1);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'captured', captured: 1000 });
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.authorised', 'payment.captured']);
    await expectLedgerBalanced(gw);
  });

  it('a pending capture the processor then refuses is notified as payment.capture_failed, the payment authorised', async () => {
    const txn = await pay(shop, { amount: '10.00' });
    processor.script.capture = lost;
    expect((await capture(shop, txn, { amount: '6.00' })).capture_status).toBe('2');
    processor.script.capture = refused('insufficient hold');
    expect(await resolvePendingOperations(depsLater(gw, 60_000))).toBeGreaterThanOrEqual(1);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'authorised', captured: 0 });
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.authorised', 'payment.capture_failed']);
    const [event] = await gw.database.query<{ payload: Record<string, string> }>(
      `SELECT payload FROM events WHERE payment_id = $1 AND type = 'payment.capture_failed'`,
      [txn.transaction_id],
    );
    expect(event!.payload).toMatchObject({
      notify_type: 'payment.capture_failed',
      transaction_id: txn.transaction_id,
      payment_status: '2000',
      capture_amount: '6.00',
      captured_amount: '0.00',
      error_message: '5013:refused by the processor: insufficient hold',
    });
    delete processor.script.capture;
    expect((await capture(shop, txn)).capture_status).toBe('1');
    await expectLedgerBalanced(gw);
  });
});
