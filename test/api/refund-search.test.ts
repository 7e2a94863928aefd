// /v1/refundSearch through the HTTP interface: an account's refunds by refund_reference_id, by
// the transaction_id or order_no they refund, or by time window; registered IPs only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settlePendingRefunds } from '../../src/app/refund/record-refund.ts';
import type { SignedClient } from '../support/client.ts';
import { depsLater, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { allowQueriesFrom, pay, refund, type Txn } from '../support/lifecycle.ts';

let gw: TestGateway;
let shop: SignedClient;
let stranger: SignedClient;
let twice: Txn;
let declined: Txn;
let untouched: Txn;
let settled: Record<string, string>;
let pending: Record<string, string>;
let failed: Record<string, string>;
let startedAt: Date;

const search = (client: SignedClient, selection: Record<string, unknown>, options: { remoteAddress?: string } = {}) =>
  client.post('/v1/refundSearch', { ...client.ids, ...selection }, { format: 'form', ...options });

const compact = (date: Date) => date.toISOString().slice(0, 19).replace(/[-T:]/g, '');

beforeAll(async () => {
  gw = await startTestGateway();
  shop = await gw.merchant();
  stranger = await gw.merchant();
  await allowQueriesFrom(gw, [shop, stranger]);
  startedAt = new Date(Date.now() - 1000);
  twice = await pay(shop);
  declined = await pay(shop);
  untouched = await pay(shop);
  settled = await refund(shop, twice, '3.00', { refund_reason: 'damaged' });
  pending = await refund(shop, twice, '2.00', { refund_reason: 'sandbox_settle_later' });
  failed = await refund(shop, declined, '1.00', { refund_reason: 'sandbox_decline' });
});
afterAll(() => gw?.close());

describe('by refund_reference_id', () => {
  it('answers each refund asked for, in order, with its status and references', async () => {
    const answer = await search(shop, { refund_reference_id: [pending.refund_reference_id, 'RFNOSUCH', settled.refund_reference_id, failed.refund_reference_id].join(',') });
    expect(answer.status).toBe(200);
    expect(answer.signed).toBe(true);
    expect(answer.body).toMatchObject({ merchant_id: shop.ids.merchant_id, account_id: shop.ids.account_id, return_status: '1', return_message: 'OK' });
    const [first, unknown, second, third] = answer.body.refund_list;
    expect(first).toEqual({
      transaction_id: twice.transaction_id,
      order_no: twice.order_no,
      currency: 'USD',
      amount: '10.00',
      refund_amount: '2.00',
      refund_reason: 'sandbox_settle_later',
      refund_status: '2',
      refund_message: 'V1000:Pending: awaiting the processor',
      refund_reference: pending.refund_reference,
      refund_reference_id: pending.refund_reference_id,
      error_message: '1000:Pending: awaiting the processor',
      refund_date: expect.stringMatching(/^20\d{12}$/),
      settle_date: '',
      query_result: '1',
    });
    expect(unknown).toMatchObject({ refund_reference_id: 'RFNOSUCH', transaction_id: '', query_result: '0', refund_status: '' });
    expect(second).toMatchObject({ refund_amount: '3.00', refund_reason: 'damaged', refund_status: '1', refund_message: 'V0000:OK', error_message: '' });
    expect(second.settle_date).toMatch(/^20\d{12}$/);
    expect(third).toMatchObject({ transaction_id: declined.transaction_id, refund_status: '0', refund_message: 'V5013:refused by the processor: the sandbox processor declined the refund' });
  });

  it('shows a refund settled later as done, with its settle_date', async () => {
    const later = depsLater(gw, 600_000);
    await settlePendingRefunds(later);
    const answer = await search(shop, { refund_reference_id: pending.refund_reference_id });
    expect(answer.body.refund_list[0]).toMatchObject({ refund_status: '1', refund_message: 'V0000:OK', settle_date: expect.stringMatching(/^20\d{12}$/) });
  });
});

describe('by transaction_id or order_no', () => {
  it('lists every refund of each transaction, oldest first, and query_result 0 for one without', async () => {
    const answer = await search(shop, { transaction_id: [twice.transaction_id, untouched.transaction_id, declined.transaction_id].join(',') });
    expect(answer.body.refund_list.map((e: Record<string, string>) => [e.transaction_id, e.refund_reference_id, e.query_result])).toEqual([
      [twice.transaction_id, settled.refund_reference_id, '1'],
      [twice.transaction_id, pending.refund_reference_id, '1'],
      [untouched.transaction_id, '', '0'],
      [declined.transaction_id, failed.refund_reference_id, '1'],
    ]);
  });

  it('selects by order_no the same way', async () => {
    const answer = await search(shop, { order_no: `${declined.order_no},ORD-nobody` });
    expect(answer.body.refund_list.map((e: Record<string, string>) => [e.order_no, e.query_result])).toEqual([
      [declined.order_no, '1'],
      ['ORD-nobody', '0'],
    ]);
  });
});

describe('by time window', () => {
  it('pages the refunds created in the window', async () => {
    const window = { start_time: compact(startedAt), end_time: compact(new Date(Date.now() + 1000)) };
    const answer = await search(shop, window);
    expect(answer.body).toMatchObject({ page: '1', total: '3' });
    expect(answer.body.refund_list.map((e: Record<string, string>) => e.refund_reference_id)).toEqual([
      settled.refund_reference_id,
      pending.refund_reference_id,
      failed.refund_reference_id,
    ]);
    expect((await search(shop, { ...window, page: '2' })).body.refund_list).toEqual([]);
  });
});

describe('another account, other addresses, bad selections', () => {
  it("answers another account's refunds and transactions exactly like ones that do not exist", async () => {
    const byId = await search(stranger, { refund_reference_id: settled.refund_reference_id });
    const byTxn = await search(stranger, { transaction_id: twice.transaction_id });
    const nobody = await search(stranger, { refund_reference_id: 'RFNOSUCH' });
    expect({ ...byId.body.refund_list[0], refund_reference_id: '' }).toEqual({ ...nobody.body.refund_list[0], refund_reference_id: '' });
    expect(byTxn.body.refund_list).toEqual([expect.objectContaining({ transaction_id: twice.transaction_id, query_result: '0', refund_amount: '' })]);
    const window = await search(stranger, { start_time: compact(startedAt), end_time: compact(new Date(Date.now() + 1000)) });
    expect(window.body).toMatchObject({ total: '0', refund_list: [] });
  });

  it('answers 403 to an unregistered address', async () => {
    const answer = await search(shop, { refund_reference_id: settled.refund_reference_id }, { remoteAddress: '198.51.100.9' });
    expect([answer.status, answer.body.return_message, answer.body.refund_list]).toEqual([403, '4403:Caller IP is not registered for this account', []]);
    const shaped = await search(shop, { refund_reference_id: settled.refund_reference_id, colour: 'red' }, { remoteAddress: '198.51.100.9' });
    expect([shaped.status, shaped.body.return_message]).toEqual([403, '4403:Caller IP is not registered for this account']);
  });

  it.each([
    [{}, '4001:one of refund_reference_id, transaction_id, order_no, or start_time and end_time is required'],
    [{ refund_reference_id: 'RF1', order_no: 'x' }, '4002:order_no is invalid: expected only one of refund_reference_id, transaction_id, order_no, or start_time and end_time'],
    [{ refund_reference_id: Array.from({ length: 101 }, (_, i) => `RF${i}`).join(',') }, '4010:refund_reference_id holds 101 values: at most 100 per request'],
  ])('refuses %j with 400', async (selection, message) => {
    const answer = await search(shop, selection);
    expect([answer.status, answer.body.return_status, answer.body.return_message]).toEqual([400, '0', message]);
  });
});
