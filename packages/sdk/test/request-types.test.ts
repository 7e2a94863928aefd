// The request types name the fields each operation defines, at every depth, and no others: the
// gateway refuses any other field (4019, docs/signing.md), so a typo should fail to compile rather
// than at the gateway. `npm run check` (tsc) enforces the @ts-expect-error lines; the test shows
// the refusal the types spare the merchant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { AcquiroClient, type AnswerError, type PayoutRequest } from '../src/index.ts';

let gw: TestGateway;
let client: AcquiroClient;
beforeAll(async () => {
  gw = await startTestGateway();
  const url = await gw.gateway.server.app.listen({ port: 0, host: '127.0.0.1' });
  const { credentials } = await gw.merchant();
  client = new AcquiroClient({ baseUrl: url, merchantId: credentials.merchant_id, accountId: credentials.account_id, secretKey: credentials.secret_key });
});
afterAll(() => gw?.close());

const payout = (): PayoutRequest => ({
  request_id: crypto.randomUUID(),
  payment_currency: 'EUR',
  payment_amount: '10.00',
  payment_method: 'LOCAL',
  reason: 'Invoice',
  reference: 'INV-1',
  beneficiary: {
    entity_type: 'PERSONAL',
    first_name: 'Zoë',
    last_name: 'Ånström',
    address: { street: 'Hauptstraße', number: '5', city: 'Berlin', country_code: 'DE', complement: '2. OG' },
    additional_info: { personal_email: 'zoe@example.com', personal_phone_country_code: '49' },
    bank_details: { account_name: 'Zoë Ånström', bank_country_code: 'DE', account_currency: 'EUR', iban: 'DE89370400440532013000', transaction_reference: 'R1' },
  },
  payer: { entity_type: 'COMPANY', company_name: 'Shop GmbH', address: { street_address: 'Marktplatz 1', country_code: 'DE' }, additional_info: { external_id: 'P1', job: 'retail' } },
});

describe('payout request types', () => {
  it('type every documented field of the beneficiary and payer, and refuse others at compile time', async () => {
    const request = payout();
    // @ts-expect-error: bank_details has no field `colour`
    void ({ ...request.beneficiary.bank_details, colour: 'red' } satisfies PayoutRequest['beneficiary']['bank_details']);
    // @ts-expect-error: the payer's address has no `street` (the beneficiary's has)
    void ({ street: 'x' } satisfies NonNullable<NonNullable<PayoutRequest['payer']>['address']>);
    // @ts-expect-error: the beneficiary's additional_info has no `job` (the payer's has)
    void ({ job: 'x' } satisfies NonNullable<PayoutRequest['beneficiary']['additional_info']>);

    const answer = await client.payout(request);
    expect(answer.beneficiary).toMatchObject({ address: request.beneficiary.address, bank_details: { transaction_reference: 'R1' } });

    // What the types prevent: the gateway refuses a field it does not define, at any depth.
    const refused = await client.call('/v1/payout', { ...payout(), beneficiary: { ...request.beneficiary, address: { colour: 'red' } } }).catch((error: unknown) => error as AnswerError);
    expect(refused).toMatchObject({ problem: 'refused', status: 400, code: '4019' });
  });
});
