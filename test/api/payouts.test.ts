// /v1/payout, the story of a payout: accepted with its amount reserved, answered with every
// request field echoed and the figures added, paid by the sandbox rail, repeated by request_id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectLedgerBalanced } from '../support/lifecycle.ts';
import { balanceOf, driveRail, payoutBody, payoutCount, SEPA_BENEFICIARY, topUp } from '../support/payouts.ts';

let gw: TestGateway;
const clock = new FakeClock('2026-11-22T10:15:00Z');

beforeAll(async () => {
  gw = await startTestGateway({ clock });
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
});
