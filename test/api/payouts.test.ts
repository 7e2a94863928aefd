// /v1/payout, the story of a payout: accepted with its amount reserved, answered with every
// request field echoed and the figures added, paid by the sandbox rail, repeated by request_id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPayout } from '../../src/app/payouts/create.ts';
import { accountById } from '../../src/db/repositories/checkout.ts';
import { payoutCommand, payoutRequest } from '../../src/http/requests/payout.ts';
import type { Clock } from '../../src/app/context.ts';
import { canonicalString, type SignedBody } from '../../src/domain/signature.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectLedgerBalanced } from '../support/lifecycle.ts';
import { ACH_BENEFICIARY, balanceOf, driveRail, payoutBody, payoutCount, SEPA_BENEFICIARY, topUp } from '../support/payouts.ts';

/**
 * A business clock a request can straddle midnight on: once armed, its next read is the last
 * millisecond of a day and every later read the first of the next. Its `wall` reads the same time
 * without taking that turn (the wall clock's readers, such as the signature's keys, come first).
 */
class StraddlingClock extends FakeClock {
  #straddle: [Date, Date] | null = null;
  readonly wall: Clock = { now: () => this.#straddle?.[0] ?? super.now() };
  straddleNextRead(before: string, after: string): void {
    this.#straddle = [new Date(before), new Date(after)];
  }
  override now(): Date {
    if (!this.#straddle) return super.now();
    const [before, after] = this.#straddle;
    this.set(after);
    this.#straddle = null;
    return before;
  }
}

let gw: TestGateway;
const clock = new StraddlingClock('2026-11-22T10:15:00Z');

beforeAll(async () => {
  gw = await startTestGateway({ clock, wallClock: clock.wall });
});
afterAll(() => gw?.close());

describe('/v1/payout', () => {
  it('reserves amount_payer_pays, answers the request echoed with the figures, and completes on the rail', async () => {
    const shop = await gw.merchant();
    await topUp(gw, shop, 'USD', '1000.00');
    const body = payoutBody(shop, { notify_url: 'http://127.0.0.1:9/hook' });
    const answer = await shop.post('/v1/payout', body);
    expect(answer.status).toBe(200);
    expect(answer.signed).toBe(true);
    expect(answer.body).toMatchObject({
      merchant_id: shop.ids.merchant_id,
      account_id: shop.ids.account_id,
      request_id: body.request_id,
      payment_currency: 'USD',
      payment_amount: '100.00',
      source_currency: 'USD',
      source_amount: '100.00',
      fee_paid_by: 'PAYER',
      payment_date: '2026-11-22',
      fx_rate: '1',
      amount_beneficiary_receives: 10_000,
      amount_payer_pays: 10_000 + 100 + 50,
      fee_amount: 150,
      fee_currency: 'USD',
      created_at: '2026-11-22T10:15:00+00:00',
      last_updated_at: '2026-11-22T10:15:00+00:00',
      failure_reason: '',
      failure_type: '',
      status: 'PROCESSING',
      beneficiary: { ...{ entity_type: 'PERSONAL', first_name: 'Ada', last_name: 'Lovelace' }, bank_details: { account_name: 'Ada Lovelace', bank_country_code: 'US', account_currency: 'USD', account_number: '123456789', local_clearing_system: 'ACH' } },
    });
    expect(answer.body.beneficiary.bank_details).not.toHaveProperty('bank_code');
    expect(answer.body.transaction_id).toMatch(/^PO/);
    expect(answer.body.short_reference_id).toMatch(/^P[A-Z0-9]{9}$/);
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '898.50', reserved: '101.50' });

    clock.advance(1_000);
    await driveRail(gw);
    clock.advance(6_000);
    await driveRail(gw);
    const repeat = await shop.post('/v1/payout', body);
    expect(repeat.body).toMatchObject({ transaction_id: answer.body.transaction_id, status: 'COMPLETED' });
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '898.50', reserved: '0.00' });
    expect(await payoutCount(gw, shop)).toBe(1);
    await expectLedgerBalanced(gw);
  });

  it('echoes every field the interface defines for the request, nested ones included, and adds only the documented ones', async () => {
    const shop = await gw.merchant();
    await topUp(gw, shop, 'USD', '1000.00');
    const body = payoutBody(shop, {
      beneficiary_id: 'BEN-7',
      client_data: 'order batch 12',
      fund_source: 'SALES',
      fee_paid_by: 'BENEFICIARY',
      payment_date: '2026-11-22',
      source_currency: 'USD',
      notify_url: 'http://127.0.0.1:9/hook',
      payer: {
        entity_type: 'COMPANY',
        company_name: 'Shop Ltd',
        first_name: 'Grace',
        last_name: 'Hopper',
        date_of_birth: '1970-01-02',
        address: { city: 'Austin', country_code: 'US', postcode: '73301', state: 'TX', street_address: '1 Main St' },
        additional_info: { business_registration_number: 'BR1', business_registration_type: 'LLC', external_id: 'X1', personal_email: 'grace@shop.example', personal_id_number: 'ID1', job: 'CFO' },
      },
      beneficiary: {
        ...ACH_BENEFICIARY,
        company_name: 'Lovelace Analytical',
        date_of_birth: '1980-12-10',
        address: { city: 'Boston', country_code: 'US', postcode: '02101', state: 'MA', street: 'Main St', number: '12', street_address: '12 Main St', complement: 'Apt 3' },
        additional_info: {
          business_area: 'Engineering', business_phone_number: '+1 555 0100', business_registration_number: 'BRN2', personal_email: 'ada@example.com', personal_id_number: 'P123',
          personal_id_type: 'PASSPORT', personal_mobile_number: '+1 555 0101', personal_net_monthly_average_income: '5000', personal_phone_country_code: '1', personal_phone_area_code: '617', personal_fiscal_country: 'US',
        },
        person_documents: [{ file_type: 'ID', file_url: 'https://files.example.com/id.pdf', labels: ['front', 'back'] }],
        bank_details: {
          ...ACH_BENEFICIARY.bank_details,
          owner_document_number: 'DOC1', bank_account_category: 'CHECKING', bank_branch: '001', bank_name: 'First Bank', bank_street_address: '1 Bank Sq',
          binding_mobile_number: '+1 555 0102', transaction_reference: 'TR-1',
        },
      },
    });
    const answer = await shop.post('/v1/payout', body);
    expect(answer.status, answer.raw).toBe(200);
    const { encryption_data: _signature, ...sent } = body as Record<string, any>;
    const { bank_code: _code, ...bankDetails } = sent.beneficiary.bank_details;
    const added = ['source_amount', 'fx_rate', 'amount_beneficiary_receives', 'amount_payer_pays', 'fee_amount', 'fee_currency', 'created_at', 'last_updated_at', 'failure_reason', 'failure_type', 'payer_id', 'transaction_id', 'short_reference_id', 'status', 'encryption_data'];
    const echoed = Object.fromEntries(Object.entries(answer.body as Record<string, unknown>).filter(([key]) => !added.includes(key)));
    expect(echoed).toEqual({ ...sent, beneficiary: { ...sent.beneficiary, bank_details: { ...bankDetails, local_clearing_system: 'ACH' } } });
    expect(Object.keys(answer.body).filter((key) => !(key in sent)).sort()).toEqual(added.sort());
    expect(answer.body).toMatchObject({ payer_id: shop.ids.account_id, status: 'PROCESSING', failure_type: '', failure_reason: '' });
  });

  it('pays EUR by SEPA from a USD balance at the rate of the table', async () => {
    const shop = await gw.merchant();
    await topUp(gw, shop, 'USD', '1000.00');
    const answer = await shop.post('/v1/payout', payoutBody(shop, { payment_currency: 'EUR', source_currency: 'USD', payment_amount: '100.00', beneficiary: SEPA_BENEFICIARY }));
    expect(answer.status).toBe(200);
    // 100.00 EUR at 0.92 EUR per USD: 108.70 USD (rounded up), fee 1.00 + 0.54.
    expect(answer.body).toMatchObject({ fx_rate: '0.92', source_amount: '108.70', amount_payer_pays: 10_870 + 154, amount_beneficiary_receives: 10_000 });
    expect(answer.body.beneficiary.bank_details.local_clearing_system).toBe('SEPA');
  });

  it('masks a card number typed into free text: never answered, stored or logged in clear', async () => {
    const shop = await gw.merchant();
    await topUp(gw, shop, 'USD', '1000.00');
    const pan = '4111111111111111';
    const answer = await shop.post('/v1/payout', payoutBody(shop, { reference: `card ${pan} refund`, client_data: `paid with ${pan}` }));
    expect(answer.status).toBe(200);
    expect(answer.raw).not.toContain(pan);
    expect(answer.body.reference).toContain('411111******1111');
    const rows = await gw.database.query<{ row: string }>(`SELECT p::text AS row FROM payouts p WHERE account_id = $1`, [shop.ids.account_id]);
    expect(rows.map((r) => r.row).join()).not.toContain(pan);
    expect(gw.logs.text).not.toContain(pan);
  });

  it.each(['form', 'xml', 'json-as-form'] as const)('reads the request in %s like JSON, lists included', async (format) => {
    const shop = await gw.merchant();
    await topUp(gw, shop, 'USD', '1000.00');
    const beneficiary = { ...SEPA_BENEFICIARY, person_documents: [{ file_type: 'ID', file_url: 'https://files.example.com/id.pdf', labels: ['front'] }] };
    const body = payoutBody(shop, { payment_currency: 'EUR', source_currency: 'USD', beneficiary });
    const answer = await shop.post('/v1/payout', body, { format });
    expect(answer.status, answer.raw).toBe(200);
    expect(answer.body).toMatchObject({ status: 'PROCESSING', request_id: body.request_id, amount_beneficiary_receives: 10_000 });
    expect(answer.body.beneficiary.person_documents).toEqual([{ file_type: 'ID', file_url: 'https://files.example.com/id.pdf', labels: ['front'] }]);
  });

  it('answers a repeat of its request_id sent after its payment_date with the payout, and still refuses a new payout dated in the past', async () => {
    const shop = await gw.merchant();
    await topUp(gw, shop, 'USD', '1000.00');
    clock.set('2026-11-23T23:59:00Z');
    const body = payoutBody(shop, { payment_date: '2026-11-23' });
    const answer = await shop.post('/v1/payout', body);
    expect(answer.body).toMatchObject({ status: 'PROCESSING', payment_date: '2026-11-23' });
    // The answer was lost; the merchant's retry arrives after midnight (UTC): the same payout, not a 400.
    clock.set('2026-11-24T00:01:00Z');
    const repeat = await shop.post('/v1/payout', body);
    expect(repeat.status, repeat.raw).toBe(200);
    expect(repeat.body).toMatchObject({ transaction_id: answer.body.transaction_id, payment_date: '2026-11-23' });
    const late = await shop.post('/v1/payout', payoutBody(shop, { payment_date: '2026-11-23' }));
    expect(late.status).toBe(400);
    expect(late.body.return_message).toBe('4002:payment_date is invalid: expected a date from today (2026-11-24, UTC) to 2027-11-24');
    expect(await payoutCount(gw, shop)).toBe(1);
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '898.50', reserved: '101.50' });
  });

  it('answers a retry of a payout recorded before a check that now refuses its fields with the payout; other requests are still refused', async () => {
    const shop = await gw.merchant();
    await topUp(gw, shop, 'USD', '1000.00');
    const accepted = payoutBody(shop);
    const answer = await shop.post('/v1/payout', accepted);
    expect(answer.body.status).toBe('PROCESSING');
    // As an earlier gateway recorded it: a beneficiary named by a zero-width space, refused (4001) since.
    const earlier = { ...accepted, beneficiary: { ...ACH_BENEFICIARY, first_name: '\u200B' } };
    const fingerprint = gw.gateway.deps.vault.fingerprint(canonicalString(earlier as SignedBody));
    await gw.database.query(`UPDATE payouts SET request = jsonb_set(request, '{beneficiary,first_name}', to_jsonb($2::text)), request_fingerprint = $3 WHERE id = $1`, [answer.body.transaction_id, '\u200B', fingerprint]);

    const retry = await shop.post('/v1/payout', earlier);
    expect(retry.status, retry.raw).toBe(200);
    expect(retry.body).toMatchObject({ transaction_id: answer.body.transaction_id, status: 'PROCESSING' });
    expect(retry.body.beneficiary.first_name).toBe('\u200B');
    // The same request_id with other refused fields, or a new request_id: refused as before.
    const changed = await shop.post('/v1/payout', { ...earlier, reason: '\u200B' });
    expect([changed.status, changed.body.return_message]).toEqual([400, '4001:reason is required']);
    const fresh = await shop.post('/v1/payout', { ...earlier, request_id: crypto.randomUUID() });
    expect([fresh.status, fresh.body.return_message]).toEqual([400, '4001:beneficiary.first_name is required']);
    expect(await payoutCount(gw, shop)).toBe(1);
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '898.50', reserved: '101.50' });
  });

  it('pays a payout dated today whose request straddles midnight: the request is dated by one reading of the clock', async () => {
    const shop = await gw.merchant();
    await topUp(gw, shop, 'USD', '1000.00');
    const body = payoutBody(shop, { payment_date: '2026-11-23' });
    // The request is read at 23:59:59.999 on the 23rd; whatever runs after it runs on the 24th.
    clock.straddleNextRead('2026-11-23T23:59:59.999Z', '2026-11-24T00:00:00.001Z');
    const answer = await shop.post('/v1/payout', body);
    expect(answer.status, answer.raw).toBe(200);
    expect(answer.body).toMatchObject({ status: 'PROCESSING', payment_date: '2026-11-23', created_at: '2026-11-23T23:59:59+00:00' });
    expect(await payoutCount(gw, shop)).toBe(1);
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '898.50', reserved: '101.50' });
  });

  it('pays a payout that names no payment_date when its request straddles midnight: the default date is never refused', async () => {
    const shop = await gw.merchant();
    await topUp(gw, shop, 'USD', '1000.00');
    // The adapter reads the request at 23:59:59.999 (today: the 23rd); the use case runs after midnight.
    // (The signature was checked before the adapter, by the signed-request plugin.)
    const command = payoutCommand(payoutRequest.parse({ ...payoutBody(shop), encryption_data: 'checked' }), new Date('2026-11-23T23:59:59.999Z'));
    clock.set('2026-11-24T00:00:00.001Z');
    const account = await accountById(gw.database.db, shop.ids.account_id);
    const payout = await createPayout(gw.gateway.deps, account!, command);
    expect(payout).toMatchObject({ status: 'PROCESSING', paymentDate: '2026-11-23' });
    expect(await payoutCount(gw, shop)).toBe(1);
  });
});
