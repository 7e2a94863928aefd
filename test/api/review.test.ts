// /v1/review through the HTTP interface: approving and rejecting payments that risk held for
// review (the review test card of docs/api/authorise.md), on auto- and manual-capture accounts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignedClient } from '../support/client.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { batch, booksOf, capture, eventTypes, expectLedgerBalanced, orderOf, pay, paymentRow, review, scriptedProcessor, type Txn } from '../support/lifecycle.ts';

const REVIEW_CARD = '4000000000004954';
const processor = scriptedProcessor();
let gw: TestGateway;
let auto: SignedClient;
let manual: SignedClient;

beforeAll(async () => {
  gw = await startTestGateway({ connectors: processor.connectors });
  auto = await gw.merchant();
  manual = await gw.merchant({ captureMode: 'manual' });
});
afterAll(() => gw?.close());

describe('approving', () => {
  it('captures the payment on an auto-capture account', async () => {
    const txn = await pay(auto, { card: REVIEW_CARD });
    const answer = await batch(auto, 'review_orders', [orderOf(txn, { review_flag: '1' })]);
    expect(answer.status).toBe(200);
    expect(answer.signed).toBe(true);
    expect(answer.body).toMatchObject({ return_status: '1', return_message: 'OK' });
    expect(answer.body.review_orders).toEqual([{ ...orderOf(txn), review_flag: '1', review_status: '1', error_message: '' }]);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'captured', captured: 1000, result_code: '0000' });
    expect(await booksOf(gw, txn.transaction_id)).toEqual({ processor_receivable: 1000, merchant_balance: -1000 });
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.review', 'payment.captured']);
    await expectLedgerBalanced(gw);
  });

  it('leaves it authorised, hold in place, on a manual-capture account: /v1/capture takes it from there', async () => {
    const txn = await pay(manual, { card: REVIEW_CARD });
    expect((await review(manual, txn, '1')).review_status).toBe('1');
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'authorised', captured: 0, result_code: '0000' });
    expect(await booksOf(gw, txn.transaction_id)).toEqual({ authorised_funds: 1000, authorisation_hold: -1000 });
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.review', 'payment.authorised']);
    expect((await review(manual, txn, '0')).error_message).toBe('5011:the transaction is not held for review (authorised)');
    expect((await capture(manual, txn)).capture_status).toBe('1');
    await expectLedgerBalanced(gw);
  });
});

describe('rejecting', () => {
  it('voids the payment at the processor and releases the hold: cancelled, 3002', async () => {
    const txn = await pay(auto, { card: REVIEW_CARD });
    const voids = processor.calls.cancel;
    expect(await review(auto, txn, '0')).toMatchObject({ review_flag: '0', review_status: '1', error_message: '' });
    expect(processor.calls.cancel).toBe(voids + 1);
    expect(await paymentRow(gw, txn.transaction_id)).toMatchObject({ status: 'cancelled', captured: 0, result_code: '3002' });
    expect(await booksOf(gw, txn.transaction_id)).toEqual({});
    expect(await eventTypes(gw, txn.transaction_id)).toEqual(['payment.review', 'payment.cancelled']);
    await expectLedgerBalanced(gw);
  });
});

describe('with an Idempotency-Key', () => {
  const withKey = (key: string, orders: Record<string, unknown>[]) =>
    manual.post('/v1/review', { ...manual.ids, review_orders: orders }, { headers: { 'idempotency-key': key } });
  const decided = async (txn: Txn) => ({
    row: await gw.database.query('SELECT status, version FROM payments WHERE id = $1', [txn.transaction_id]),
    events: await eventTypes(gw, txn.transaction_id),
  });

  it('decides once for 10 copies at once and a later repeat, all answered alike: approval and rejection', async () => {
    for (const [flag, status, event] of [['1', 'authorised', 'payment.authorised'], ['0', 'cancelled', 'payment.cancelled']] as const) {
      const held = await pay(manual, { card: REVIEW_CARD });
      const orders = [orderOf(held, { review_flag: flag })];
      const voids = processor.calls.cancel;
      const copies = await Promise.all(Array.from({ length: 10 }, () => withKey(`decide-${flag}`, orders)));
      expect(new Set(copies.map((a) => a.raw)).size, flag).toBe(1);
      expect(copies.filter((a) => a.headers['idempotent-replayed'] === undefined), flag).toHaveLength(1);
      expect(copies[0]!.body.review_orders[0], flag).toMatchObject({ review_status: '1', error_message: '' });
      const after = await decided(held);
      expect(after.events, flag).toEqual(['payment.review', event]);
      expect(after.row[0], flag).toMatchObject({ status });

      const repeat = await withKey(`decide-${flag}`, orders);
      expect([repeat.raw, repeat.headers['idempotent-replayed']], flag).toEqual([copies[0]!.raw, 'true']);
      expect(await decided(held), flag).toEqual(after);
      expect(processor.calls.cancel - voids, flag).toBe(flag === '0' ? 1 : 0);
    }
    await expectLedgerBalanced(gw);
  });

  it('refuses the key with another body (4016), the decision untouched', async () => {
    const held = await pay(manual, { card: REVIEW_CARD });
    await withKey('decide-other', [orderOf(held, { review_flag: '1' })]);
    const after = await decided(held);
    const other = await withKey('decide-other', [orderOf(held, { review_flag: '0' })]);
    expect([other.status, other.body.return_message]).toEqual([400, '4016:Idempotency-Key already used with a different request']);
    expect(await decided(held)).toEqual(after);
  });
});

describe('refusals', () => {
  it('decides once, and only payments held for review', async () => {
    const held = await pay(auto, { card: REVIEW_CARD });
    const plain = await pay(auto);
    const answer = await batch(auto, 'review_orders', [
      orderOf(held, { review_flag: '0' }),
      orderOf(held, { review_flag: '1' }),
      orderOf(plain, { review_flag: '1' }),
    ]);
    expect(answer.body.review_orders.map((e: Record<string, string>) => [e.review_status, e.error_message])).toEqual([
      ['1', ''],
      ['0', '5007:the transaction is already cancelled'],
      ['0', '5011:the transaction is not held for review (captured)'],
    ]);
  });

  it('needs a review_flag of 1 or 0, and the transaction amount and currency', async () => {
    const held = await pay(auto, { card: REVIEW_CARD });
    const answer = await batch(auto, 'review_orders', [
      orderOf(held, { review_flag: 'approve' }),
      orderOf(held),
      orderOf(held, { review_flag: '1', amount: '5.00' }),
    ]);
    expect(answer.body.review_orders.map((e: Record<string, string>) => e.error_message)).toEqual([
      '4002:review_flag is invalid: expected 1 to approve or 0 to reject',
      '4001:review_flag is required',
      "5003:amount 5.00 does not match the transaction's 10.00",
    ]);
    expect((await paymentRow(gw, held.transaction_id)).status).toBe('pending_review');
  });

  it("answers another account's transaction like one that does not exist", async () => {
    const theirs = await pay(auto, { card: REVIEW_CARD });
    const entry = await review(manual, theirs, '0');
    expect(entry.error_message).toBe('5001:no transaction with this transaction_id and order_no');
    // The whole answer, as for an id that does not exist: nothing of their payment shows through.
    const answer = await batch(manual, 'review_orders', [orderOf(theirs, { review_flag: '1' }), orderOf({ ...theirs, transaction_id: 'TNOSUCH' }, { review_flag: '1' })]);
    const [a, b] = answer.body.review_orders as Record<string, string>[];
    expect({ ...a, transaction_id: '' }).toEqual({ ...b, transaction_id: '' });
    expect((await paymentRow(gw, theirs.transaction_id)).status).toBe('pending_review');
  });

  it('takes 100 orders and refuses 101 as a whole', async () => {
    const held = await pay(auto, { card: REVIEW_CARD });
    const hundred = await batch(auto, 'review_orders', Array.from({ length: 100 }, () => orderOf(held, { review_flag: '1', amount: '1.00' })));
    expect([hundred.status, hundred.body.review_orders.length]).toEqual([200, 100]);
    const over = await batch(auto, 'review_orders', Array.from({ length: 101 }, () => orderOf(held, { review_flag: '0' })));
    expect([over.status, over.body.return_message]).toEqual([400, '4010:review_orders holds 101 orders: 1 to 100 per request']);
    expect((await paymentRow(gw, held.transaction_id)).status).toBe('pending_review');
  });
});
