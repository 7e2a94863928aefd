// The SDK's client against a real listening gateway, every operation as a merchant's application
// calls it: each answer resolves only once its signature verifies with the merchant's key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/cli/commands.ts';
import { orderNo } from '../../../test/support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { shopper } from '../../../test/support/shopper.ts';
import { AcquiroClient, AnswerError, verifyReturn, type CardPayment } from '../src/index.ts';

let gw: TestGateway;
let url: string;
/** An auto-capture account. */
let auto: AcquiroClient;
/** A manual-capture account whose query IP is 127.0.0.1. */
let manual: AcquiroClient;
let autoSecret: string;

const card = { card: '4111111111111111', expiration_month: '12', expiration_year: '2030', security_code: '123' } as const;
const payment = (overrides: Partial<CardPayment> = {}): CardPayment => ({ order_no: orderNo(), currency: 'EUR', amount: '25.00', ...card, ...overrides }) as CardPayment;

const clientOf = (credentials: { merchant_id: string; account_id: string; secret_key: string }) =>
  new AcquiroClient({ baseUrl: `${url}/`, merchantId: credentials.merchant_id, accountId: credentials.account_id, secretKey: credentials.secret_key });

const refusal = (promise: Promise<unknown>) => promise.then(() => expect.fail('resolved'), (error: unknown) => error as AnswerError);

beforeAll(async () => {
  gw = await startTestGateway();
  url = await gw.gateway.server.app.listen({ port: 0, host: '127.0.0.1' });
  const a = (await gw.merchant()).credentials;
  const m = (await gw.merchant({ captureMode: 'manual' })).credentials;
  const added = await runCommand(['ips', 'add', '--merchant-id', m.merchant_id, '--account-id', m.account_id, '--cidr', '127.0.0.1/32'], gw.gateway.deps);
  expect(added.exitCode).toBe(0);
  auto = clientOf(a);
  manual = clientOf(m);
  autoSecret = a.secret_key;
});
afterAll(() => gw?.close());

describe('card payments', () => {
  it('pays and verifies the answer', async () => {
    const answer = await auto.authorise(payment({ note: 'gift wrap & bow=red, 100%' }));
    expect(answer).toMatchObject({ order_status: '1', result_info: '0000:Success', amount: '25.00', card: '411111******1111', note: 'gift wrap & bow=red, 100%' });
    expect(answer.payment_status).toBe('3000');
    expect(answer.risk_reasons.length).toBeGreaterThan(0);
    expect(answer.risk_reasons[0]).toEqual({ name: expect.any(String), status: expect.any(String) });
  });

  it('resolves a decline (it is a 200) and rejects a refusal with its code', async () => {
    const declined = await auto.authorise(payment({ card: '4000000000000002' }));
    expect(declined).toMatchObject({ order_status: '0', result_info: '2001:Declined' });
    const refused = await refusal(auto.authorise(payment({ amount: '25,00' })));
    expect(refused).toBeInstanceOf(AnswerError);
    expect(refused).toMatchObject({ problem: 'refused', status: 400, code: '4002', verified: true });
    expect(refused.message).toMatch(/4002:amount is invalid/);
  });

  it('rejects an answer signed with another key, and one it cannot read', async () => {
    const wrongKey = new AcquiroClient({ baseUrl: url, merchantId: 'M', accountId: 'A', secretKey: 'other', fetch: async () => new Response('<respon><order_status>1</order_status><encryption_data>00</encryption_data></respon>') });
    await expect(wrongKey.authorise(payment())).rejects.toMatchObject({ problem: 'signature', status: 200 });
    const garbled = new AcquiroClient({ baseUrl: url, merchantId: 'M', accountId: 'A', secretKey: 'other', fetch: async () => new Response('Bad Gateway', { status: 502 }) });
    await expect(garbled.capture([])).rejects.toMatchObject({ problem: 'unreadable', status: 502 });
    const stranger = new AcquiroClient({ baseUrl: url, merchantId: 'M0', accountId: 'A0', secretKey: 'other' });
    await expect(stranger.authorise(payment())).rejects.toMatchObject({ problem: 'refused', status: 404, code: '4404' });
  });
});

describe('subscriptions', () => {
  it('begins one with a payment and cancels it, typed, with a verified answer', async () => {
    const paid = await auto.authorise(payment({ subscription: { contract_name: 'Gold plan', contract_amount: '25.00', interval: 'month' } }));
    expect(paid).toMatchObject({ order_status: '1', contract_name: 'Gold plan', recurring_id: expect.stringMatching(/^RC/), recurring_deduction_period: '1 month' });
    const cancelled = await auto.cancelSubscription({ recurring_id: paid.recurring_id, contract_name: 'Gold plan' });
    expect(cancelled).toMatchObject({ recurring_id: paid.recurring_id, cancel_status: '1', error_message: '', subscription_status: 'Inactived' });
    expect(await auto.cancelSubscription({ recurring_id: paid.recurring_id, contract_name: 'Gold plan' })).toEqual(cancelled);
    const unknown = await manual.cancelSubscription({ recurring_id: paid.recurring_id, contract_name: 'Gold plan' });
    expect(unknown).toMatchObject({ cancel_status: '0', error_message: '5014:Subscription not found' });
    // Its refusals carry the code in error_message: the error's message named no field ("400: Bad Request").
    const refused = await refusal(auto.cancelSubscription({ recurring_id: paid.recurring_id, contract_name: '' }));
    expect(refused).toMatchObject({ problem: 'refused', status: 400, code: '4001', verified: true });
    expect(refused.message).toBe('/v1/cancelsubscription answered 400: 4001:contract_name is required');
  });
});

describe('the lifecycle of a manual-capture payment', () => {
  it('captures in part, refunds with an idempotency key, finds the refund and queries the payment', async () => {
    const paid = await manual.authorise(payment({ amount: '30.00' }));
    expect(paid.order_status).toBe('1');
    const ref = { transaction_id: paid.transaction_id, order_no: paid.order_no, currency: 'EUR' };

    const captured = await manual.capture([{ ...ref, amount: '20.00' }]);
    expect(captured).toMatchObject({ return_status: '1', capture_orders: [{ ...ref, amount: '20.00', capture_status: '1', error_message: '' }] });

    const key = `refund-${paid.transaction_id}`;
    const refunded = await manual.refund([{ ...ref, amount: '30.00', refund_amount: '5.00', refund_reason: 'item returned' }], { idempotencyKey: key });
    expect(refunded.refund_orders[0]).toMatchObject({ refund_status: '1', refund_message: 'V0000:OK', refund_reference_id: expect.stringMatching(/^RF/) });
    const again = await manual.refund([{ ...ref, amount: '30.00', refund_amount: '5.00', refund_reason: 'item returned' }], { idempotencyKey: key });
    expect(again.refund_orders[0]!.refund_reference_id).toBe(refunded.refund_orders[0]!.refund_reference_id);

    const found = await manual.refundSearch({ transaction_id: [paid.transaction_id] });
    expect(found.refund_list).toEqual([expect.objectContaining({ refund_reference_id: refunded.refund_orders[0]!.refund_reference_id, refund_amount: '5.00', query_result: '1' })]);

    const queried = await manual.query({ order_no: [paid.order_no, 'ORD-unknown'] });
    expect(queried.orders_list).toHaveLength(2);
    expect(queried.orders_list[0]).toMatchObject({ transaction_id: paid.transaction_id, payment_status: '3001', captured_amount: '20.00', refunded_amount: '5.00', query_result: '1' });
    expect(queried.orders_list[0]!.fraud_check_result.length).toBeGreaterThan(0);
    expect(queried.orders_list[1]).toMatchObject({ order_no: 'ORD-unknown', query_result: '0', fraud_check_result: [] });
    const record = queried.orders_list[0]!;
    expect([record.contract_name, record.recurring_id, record.recurring_deduction_period, record.recurring_deduction_time]).toEqual(['', '', '', '']);
  });

  it('cancels an authorised payment', async () => {
    const paid = await manual.authorise(payment());
    const cancelled = await manual.cancel([{ transaction_id: paid.transaction_id, order_no: paid.order_no, currency: 'EUR', amount: '25.00' }]);
    expect(cancelled.cancel_orders).toEqual([expect.objectContaining({ cancel_status: '1', error_message: '' })]);
    const none = await manual.cancel([{ transaction_id: paid.transaction_id, order_no: paid.order_no, currency: 'EUR', amount: '25.00' }]);
    expect(none.cancel_orders[0]).toMatchObject({ cancel_status: '0', error_message: expect.stringMatching(/^5007:/) });
  });

  it('approves a payment held for review', async () => {
    const held = await auto.authorise(payment({ card: '4000000000004954' }));
    expect(held).toMatchObject({ order_status: '3', result_info: '1003:Held for review' });
    const decided = await auto.review([{ transaction_id: held.transaction_id, order_no: held.order_no, currency: 'EUR', amount: '25.00', review_flag: '1' }]);
    expect(decided.review_orders).toEqual([expect.objectContaining({ review_flag: '1', review_status: '1', error_message: '' })]);
  });

  it('is refused the query from an address the account did not register', async () => {
    const refused = await refusal(auto.query({ transaction_id: 'T0' }));
    expect(refused).toMatchObject({ problem: 'refused', status: 403, code: '4403' });
  });
});

describe('payments that send the shopper away', () => {
  it('opens an APM payment and verifies the shopper signed return', async () => {
    const apm = await auto.authoriseApm({ order_no: orderNo(), currency: 'USD', amount: '30.00', payment_method: 'sandbox_redirect', return_url: 'https://shop.example/return?cart=42&step=done' });
    expect(apm).toMatchObject({ order_status: '2', payment_method: 'sandbox_redirect', issuer_url: expect.stringContaining('/sandbox/apm/') });
    const back = await shopper(gw.gateway.server.app).answer(apm.issuer_url, { action: 'approve' });
    expect(back.status).toBe(303);
    const outcome = verifyReturn(back.location!, autoSecret);
    expect(outcome).toMatchObject({ transaction_id: apm.transaction_id, order_status: '1', result_info: '0000:Success', cart: '42', step: 'done' });
    const forged = new URL(back.location!);
    forged.searchParams.set('order_status', '1');
    forged.searchParams.set('amount', '0.01');
    expect(verifyReturn(forged, autoSecret)).toBeNull();
    expect(verifyReturn(back.location!, 'another key')).toBeNull();
  });

  it('answers a checkout with the hand-off page, and rejects a refused one', async () => {
    const html = await auto.checkout({ order_no: orderNo(), currency: 'USD', amount: '42.50', return_url: 'https://shop.example/return' });
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('name="signInfo"');
    const refused = await refusal(auto.checkout({ order_no: orderNo(), currency: 'USD', amount: '42.50', return_url: 'not a url' }));
    expect(refused).toMatchObject({ problem: 'refused', status: 400, code: '4002', verified: true });
  });
});

describe('optimise payment methods', () => {
  it('ranks the methods the account can offer', async () => {
    const answer = await auto.optimisePaymentMethods({ currency: 'USD', amount: '25.00', device_type: 'iPhone' });
    expect(answer).toMatchObject({ return_status: '1', device_class: 'mobile', window_days: '90' });
    expect(answer.payment_methods.map((m) => m.payment_method)).toContain('card');
    expect(answer.payment_methods[0]!.rank).toBe('1');
  });
});

describe('payouts', () => {
  it('pays out from the available balance, answers the integer amounts, and refuses bad bank details with their code', async () => {
    const credentials = (await gw.merchant()).credentials;
    const topup = await runCommand(['balance', 'topup', '--merchant-id', credentials.merchant_id, '--account-id', credentials.account_id, '--currency', 'EUR', '--amount', '500.00'], gw.gateway.deps);
    expect(topup.exitCode).toBe(0);
    const client = clientOf(credentials);
    const beneficiary = { entity_type: 'COMPANY', company_name: 'Acme GmbH', bank_details: { account_name: 'Acme GmbH', bank_country_code: 'DE', account_currency: 'EUR', iban: 'DE89370400440532013000' } } as const;
    const request = { request_id: crypto.randomUUID(), payment_currency: 'EUR', payment_amount: '100.00', payment_method: 'LOCAL', reason: 'Invoice', reference: 'INV-7', beneficiary } as const;
    const answer = await client.payout(request);
    expect(answer).toMatchObject({ status: 'PROCESSING', amount_beneficiary_receives: 10_000, amount_payer_pays: 10_150, fee_amount: 150, fee_currency: 'EUR' });
    expect(answer.beneficiary.bank_details.local_clearing_system).toBe('SEPA');
    expect((await client.payout(request)).transaction_id).toBe(answer.transaction_id);
    const refused = await refusal(client.payout({ ...request, request_id: crypto.randomUUID(), beneficiary: { ...beneficiary, bank_details: { ...beneficiary.bank_details, iban: 'DE89370400440532013001' } } }));
    expect(refused).toMatchObject({ problem: 'refused', status: 400, code: '4002', verified: true });
  });
});
