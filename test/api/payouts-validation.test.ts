// /v1/payout refuses bad input with a 400 naming the field, and stores and reserves nothing; every
// rail's bank details are accepted in their own formats and named in local_clearing_system.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignedClient } from '../support/client.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { missingField } from '../../src/domain/payouts/requirements.ts';
import { ACH_BENEFICIARY, balanceOf, payoutBody, payoutCount, SEPA_BENEFICIARY, topUp } from '../support/payouts.ts';

let gw: TestGateway;
let shop: SignedClient;
const clock = new FakeClock('2026-11-22T10:15:00Z');

beforeAll(async () => {
  gw = await startTestGateway({ clock });
  shop = await gw.merchant();
  await topUp(gw, shop, 'USD', '100000.00');
  await topUp(gw, shop, 'EUR', '1000.00');
});
afterAll(() => gw?.close());

type Body = Record<string, any>;
const bank = (details: Body, base: Body = ACH_BENEFICIARY) => ({ ...base, bank_details: { ...base.bank_details, ...details } });
const without = (object: Body, key: string) => Object.fromEntries(Object.entries(object).filter(([k]) => k !== key));
const withoutBank = (key: string, base: Body = ACH_BENEFICIARY) => ({ ...base, bank_details: without(base.bank_details, key) });
const swift = (details: Body) => ({ payment_method: 'SWIFT', payment_currency: 'JPY', source_currency: 'USD', beneficiary: bank({ account_currency: 'JPY', bank_country_code: 'JP', account_number: '1234567', swift_code: 'BOTKJPJT', ...details }) });
const local = (country: string, currency: string, details: Body) => ({
  payment_currency: currency,
  source_currency: 'USD',
  beneficiary: { ...ACH_BENEFICIARY, bank_details: { account_name: 'Ada Lovelace', bank_country_code: country, account_currency: currency, ...details } },
});
const set = (changes: Body) => (body: Body) => ({ ...body, ...changes });
const GB = { account_number: '31926819', bank_code: '60-16-13' };
const BR = { account_number: '123456-7', bank_code: '001', bank_branch: '1234' };

// [what is wrong, the body's changes, the code, the field named]
const REFUSALS: [string, (body: Body) => Body, string, string][] = [
  ['no request_id', (b) => without(b, 'request_id'), '4001', 'request_id'],
  ['a request_id that is no UUID', set({ request_id: 'order-1' }), '4002', 'request_id'],
  ['no payment_currency', (b) => without(b, 'payment_currency'), '4001', 'payment_currency'],
  ['a test currency', set({ payment_currency: 'XTS' }), '4004', 'payment_currency'],
  ['a metal as source_currency', set({ source_currency: 'XAU' }), '4004', 'source_currency'],
  ['a lower-case currency', set({ payment_currency: 'usd' }), '4002', 'payment_currency'],
  ['both amounts', set({ source_amount: '100.00' }), '4002', 'source_amount'],
  ['neither amount', (b) => without(b, 'payment_amount'), '4001', 'payment_amount'],
  ['more decimals than the currency has', set({ payment_amount: '10.001' }), '4003', 'payment_amount'],
  ['a zero amount', set({ payment_amount: '0.00' }), '4003', 'payment_amount'],
  ['an amount with a comma', set({ payment_amount: '10,00' }), '4002', 'payment_amount'],
  ['an unknown payment_method', set({ payment_method: 'WIRE' }), '4002', 'payment_method'],
  ['no reason', (b) => without(b, 'reason'), '4001', 'reason'],
  ['no reference', (b) => without(b, 'reference'), '4001', 'reference'],
  ['an unknown fee_paid_by', set({ fee_paid_by: 'SHARED' }), '4002', 'fee_paid_by'],
  ['swift_charge_option on a LOCAL payout', set({ swift_charge_option: 'PAYER' }), '4002', 'swift_charge_option'],
  ['an unknown swift_charge_option', set({ ...swift({}), swift_charge_option: 'OUR' }), '4002', 'swift_charge_option'],
  ['a payment_date in the past', set({ payment_date: '2026-11-21' }), '4002', 'payment_date'],
  ['a payment_date more than a year ahead', set({ payment_date: '2027-11-23' }), '4002', 'payment_date'],
  ['a payment_date that is no day', set({ payment_date: '2026-02-30' }), '4002', 'payment_date'],
  ['a payment_date in another format', set({ payment_date: '22/11/2026' }), '4002', 'payment_date'],
  ['no beneficiary', (b) => without(b, 'beneficiary'), '4001', 'beneficiary'],
  ['no entity_type', set({ beneficiary: without(ACH_BENEFICIARY, 'entity_type') }), '4001', 'beneficiary.entity_type'],
  ['an unknown entity_type', set({ beneficiary: { ...ACH_BENEFICIARY, entity_type: 'ROBOT' } }), '4002', 'beneficiary.entity_type'],
  ['a PERSONAL beneficiary without last_name', set({ beneficiary: without(ACH_BENEFICIARY, 'last_name') }), '4001', 'beneficiary.last_name'],
  ['a COMPANY beneficiary without company_name', set({ payment_currency: 'EUR', beneficiary: without(SEPA_BENEFICIARY, 'company_name') }), '4001', 'beneficiary.company_name'],
  ['a PERSONAL beneficiary whose first_name is blank', set({ beneficiary: { ...ACH_BENEFICIARY, first_name: '   ' } }), '4001', 'beneficiary.first_name'],
  ['a blank account_name', set({ beneficiary: bank({ account_name: ' ' }) }), '4001', 'beneficiary.bank_details.account_name'],
  ['a COMPANY payer whose company_name is blank', set({ payer: { entity_type: 'COMPANY', company_name: '\t ' } }), '4001', 'payer.company_name'],
  ['a blank reason', set({ reason: '  ' }), '4001', 'reason'],
  ['a blank reference', set({ reference: ' ' }), '4001', 'reference'],
  ['a first_name of nothing but invisible characters', set({ beneficiary: { ...ACH_BENEFICIARY, first_name: '\u200B\u200D' } }), '4001', 'beneficiary.first_name'],
  ['an account_name of nothing but invisible characters', set({ beneficiary: bank({ account_name: '\u200B \u2060' }) }), '4001', 'beneficiary.bank_details.account_name'],
  ['a reason of nothing but invisible characters', set({ reason: '\u200E' }), '4001', 'reason'],
  ['no bank_details', set({ beneficiary: without(ACH_BENEFICIARY, 'bank_details') }), '4001', 'beneficiary.bank_details'],
  ['no account_name', set({ beneficiary: withoutBank('account_name') }), '4001', 'beneficiary.bank_details.account_name'],
  ['no bank_country_code', set({ beneficiary: withoutBank('bank_country_code') }), '4001', 'beneficiary.bank_details.bank_country_code'],
  ['a bank_country_code that is no country', set({ beneficiary: bank({ bank_country_code: 'ZZ' }) }), '4002', 'beneficiary.bank_details.bank_country_code'],
  ['no account_currency', set({ beneficiary: withoutBank('account_currency') }), '4001', 'beneficiary.bank_details.account_currency'],
  ['an account_currency that is no money', set({ beneficiary: bank({ account_currency: 'XXX' }) }), '4004', 'beneficiary.bank_details.account_currency'],
  ['a LOCAL payout in another currency than the account', set({ beneficiary: bank({ account_currency: 'EUR' }) }), '4002', 'beneficiary.bank_details.account_currency'],
  ['an IBAN with a wrong check digit', set({ payment_currency: 'EUR', beneficiary: bank({ iban: 'DE89370400440532013001' }, SEPA_BENEFICIARY) }), '4002', 'beneficiary.bank_details.iban'],
  ['an IBAN of another country', set({ payment_currency: 'EUR', beneficiary: bank({ iban: 'FR1420041010050500013M02606' }, SEPA_BENEFICIARY) }), '4002', 'beneficiary.bank_details.iban'],
  ['a SEPA payout without an IBAN', set({ payment_currency: 'EUR', beneficiary: withoutBank('iban', SEPA_BENEFICIARY) }), '4001', 'beneficiary.bank_details.iban'],
  ['an ABA routing number with a wrong check digit', set({ beneficiary: bank({ bank_code: '026009594' }) }), '4002', 'beneficiary.bank_details.bank_code'],
  ['a US payout without a routing number', set({ beneficiary: withoutBank('bank_code') }), '4001', 'beneficiary.bank_details.bank_code'],
  ['a US account number of letters', set({ beneficiary: bank({ account_number: 'ABCDEFG' }) }), '4002', 'beneficiary.bank_details.account_number'],
  ['a GB sort code of five digits', set(local('GB', 'GBP', { ...GB, bank_code: '60161' })), '4002', 'beneficiary.bank_details.bank_code'],
  ['an AU BSB of letters', set(local('AU', 'AUD', { account_number: '12345678', bank_code: 'ABC-DEF' })), '4002', 'beneficiary.bank_details.bank_code'],
  ['a CA routing number of five digits', set(local('CA', 'CAD', { account_number: '1234567', bank_code: '12345' })), '4002', 'beneficiary.bank_details.bank_code'],
  ['an IN IFSC without its zero', set(local('IN', 'INR', { account_number: '123456789012', bank_code: 'HDFC1000123' })), '4002', 'beneficiary.bank_details.bank_code'],
  ['a BR payout without its branch', set(local('BR', 'BRL', without(BR, 'bank_branch'))), '4001', 'beneficiary.bank_details.bank_branch'],
  ['a MX CLABE with a wrong check digit', set(local('MX', 'MXN', { account_number: '002010077777777772' })), '4002', 'beneficiary.bank_details.account_number'],
  ['a bank_code that is not the CLABE\'s bank', set(local('MX', 'MXN', { account_number: '002010077777777771', bank_code: '012' })), '4002', 'beneficiary.bank_details.bank_code'],
  ['a LOCAL payout where no local rail runs', set(local('JP', 'JPY', { account_number: '1234567', bank_code: '0001' })), '4002', 'beneficiary.bank_details.bank_country_code'],
  ['a SWIFT payout without a BIC', set({ ...swift({}), beneficiary: withoutBank('swift_code', swift({}).beneficiary) }), '4001', 'beneficiary.bank_details.swift_code'],
  ['a BIC of a wrong shape', set(swift({ swift_code: 'BOTK1PJT' })), '4002', 'beneficiary.bank_details.swift_code'],
  ['a BIC of another country', set(swift({ swift_code: 'DEUTDEFF' })), '4002', 'beneficiary.bank_details.swift_code'],
  ['a date_of_birth that is no day', set({ beneficiary: { ...ACH_BENEFICIARY, date_of_birth: '1990-13-01' } }), '4002', 'beneficiary.date_of_birth'],
  ['a date_of_birth in the future', set({ beneficiary: { ...ACH_BENEFICIARY, date_of_birth: '2030-01-01' } }), '4002', 'beneficiary.date_of_birth'],
  ['a date_of_birth of today (not a past day)', set({ beneficiary: { ...ACH_BENEFICIARY, date_of_birth: '2026-11-22' } }), '4002', 'beneficiary.date_of_birth'],
  ['a payer born today', set({ payer: { entity_type: 'PERSONAL', first_name: 'Jo', last_name: 'Doe', date_of_birth: '2026-11-22' } }), '4002', 'payer.date_of_birth'],
  ['a beneficiary address country_code that is no country', set({ beneficiary: { ...ACH_BENEFICIARY, address: { city: 'Boston', country_code: 'ZZ' } } }), '4002', 'beneficiary.address.country_code'],
  ['a personal_fiscal_country that is no country', set({ beneficiary: { ...ACH_BENEFICIARY, additional_info: { personal_fiscal_country: 'XX' } } }), '4002', 'beneficiary.additional_info.personal_fiscal_country'],
  ['a payer address country_code that is no country', set({ payer: { entity_type: 'COMPANY', company_name: 'Shop Ltd', address: { country_code: 'QQ' } } }), '4002', 'payer.address.country_code'],
  ['a payer without entity_type', set({ payer: { company_name: 'Shop Ltd' } }), '4001', 'payer.entity_type'],
  ['a COMPANY payer without company_name', set({ payer: { entity_type: 'COMPANY' } }), '4001', 'payer.company_name'],
  ['a PERSONAL payer without first_name', set({ payer: { entity_type: 'PERSONAL', last_name: 'Doe' } }), '4001', 'payer.first_name'],
  ['a notify_url that is no URL', set({ notify_url: 'ftp://example.com' }), '4002', 'notify_url'],
  ['a field the operation does not define', set({ beneficiary: { ...ACH_BENEFICIARY, nickname: 'Ada' } }), '4019', 'beneficiary.nickname'],
  ['currencies without a rate', set({ payment_currency: 'CHF', source_currency: 'USD', beneficiary: { ...SEPA_BENEFICIARY, bank_details: { account_name: 'Acme AG', bank_country_code: 'CH', account_currency: 'CHF', iban: 'CH9300762011623852957', swift_code: 'UBSWCHZH' } }, payment_method: 'SWIFT' }), '4061', 'source_currency'],
  ['a transfer smaller than its fee when the beneficiary pays it', set({ payment_amount: '1.00', fee_paid_by: 'BENEFICIARY' }), '4003', 'payment_amount'],
];

describe('/v1/payout refuses bad input, and stores and reserves nothing', () => {
  it.each(REFUSALS)('%s', async (_what, change, code, field) => {
    const answer = await shop.post('/v1/payout', change(payoutBody(shop)));
    expect(answer.status, answer.raw).toBe(400);
    expect(answer.signed).toBe(true);
    expect(answer.body.return_status).toBe('0');
    expect(answer.body.return_message).toMatch(new RegExp(`^${code}:`));
    expect(answer.body.return_message).toContain(field);
    // `<field> is invalid: expected …` says what is expected: the bank details' checks once read
    // "expected not a valid IBAN", "expected does not match the CLABE's bank …".
    expect(answer.body.return_message).not.toMatch(/expected (not|does not|LOCAL payouts|the (IBAN|BIC) is)\b/);
    expect(await payoutCount(gw, shop)).toBe(0);
    expect(await balanceOf(gw, shop, 'USD')).toEqual({ available: '100000.00', reserved: '0.00' });
  });

  it('takes a payment_date a year ahead, the last day it may name, and says which day that is past it', async () => {
    const owner = await gw.merchant();
    await topUp(gw, owner, 'USD', '1000.00');
    const scheduled = await owner.post('/v1/payout', payoutBody(owner, { payment_date: '2027-11-22' }));
    expect([scheduled.status, scheduled.body.status, scheduled.body.payment_date], scheduled.raw).toEqual([200, 'SCHEDULED', '2027-11-22']);
    const later = await owner.post('/v1/payout', payoutBody(owner, { payment_date: '2027-11-23' }));
    expect(later.body.return_message).toBe('4002:payment_date is invalid: expected a date from today (2026-11-22, UTC) to 2027-11-22');
  });

  it('refuses a request both invalid and unfundable with a 400', async () => {
    const poor = await gw.merchant();
    const answer = await poor.post('/v1/payout', payoutBody(poor, { payment_amount: '10.001' }));
    expect(answer.status).toBe(400);
    expect(await payoutCount(gw, poor)).toBe(0);
  });
});

// Bank details refused, with the answer's whole text: the field, then what it should be.
const BANK_REFUSALS: [string, (body: Body) => Body, string][] = [
  ['an IBAN with a wrong check digit', set({ payment_currency: 'EUR', beneficiary: bank({ iban: 'DE89370400440532013001' }, SEPA_BENEFICIARY) }), 'iban is invalid: expected a valid IBAN (its structure or check digits are wrong)'],
  ['an IBAN of another country', set({ payment_currency: 'EUR', beneficiary: bank({ iban: 'FR1420041010050500013M02606' }, SEPA_BENEFICIARY) }), 'iban is invalid: expected an IBAN of DE, the bank_country_code (this one is of FR)'],
  ['a BIC of a wrong shape', set(swift({ swift_code: 'BOTK1PJT' })), 'swift_code is invalid: expected a valid BIC: 8 or 11 letters and digits, such as DEUTDEFF'],
  ['a BIC of another country', set(swift({ swift_code: 'DEUTDEFF' })), 'swift_code is invalid: expected a BIC of JP, the bank_country_code (this one is of DE)'],
  ['a LOCAL payout in another currency than the account', set({ beneficiary: bank({ account_currency: 'EUR' }) }), "account_currency is invalid: expected USD, the payment_currency: a LOCAL payout is paid in the account's own currency"],
  ['an ABA routing number with a wrong check digit', set({ beneficiary: bank({ bank_code: '026009594' }) }), 'bank_code is invalid: expected a valid ABA routing number (its check digit is wrong)'],
  ['a MX CLABE with a wrong check digit', set(local('MX', 'MXN', { account_number: '002010077777777772' })), 'account_number is invalid: expected a valid CLABE (its check digit should be 1)'],
  ['a MX CLABE of no bank', set(local('MX', 'MXN', { account_number: '000010077777777773' })), 'account_number is invalid: expected a valid CLABE (its bank code 000 is no bank\'s)'],
  ['a bank_code another than the CLABE\'s', set(local('MX', 'MXN', { account_number: '002010077777777771', bank_code: '012' })), "bank_code is invalid: expected 002, the CLABE's bank code (or no bank_code)"],
  ['a GB sort code another than the IBAN\'s', set(local('GB', 'GBP', { iban: 'GB29NWBK60161331926819', bank_code: '40-47-84', account_number: '31926819' })), "bank_code is invalid: expected 601613, the IBAN's sort code (or no bank_code)"],
  ['a GB bank_code that is no sort code beside an IBAN', set(local('GB', 'GBP', { iban: 'GB29NWBK60161331926819', bank_code: 'hello' })), "bank_code is invalid: expected 601613, the IBAN's sort code (or no bank_code)"],
  ['a GB account number another than the IBAN\'s', set(local('GB', 'GBP', { iban: 'GB29NWBK60161331926819', account_number: '12345678' })), "account_number is invalid: expected the account number the IBAN carries (or no account_number)"],
  ['a LOCAL payout where no local rail runs', set(local('JP', 'JPY', { account_number: '1234567', bank_code: '0001' })), 'bank_country_code is invalid: expected a country LOCAL payouts in JPY are paid to (not JP: use payment_method SWIFT)'],
];

describe('/v1/payout says plainly what is wrong with bank details', () => {
  it.each(BANK_REFUSALS)('%s', async (_what, change, message) => {
    const answer = await shop.post('/v1/payout', change(payoutBody(shop)));
    expect([answer.status, answer.body.return_message]).toEqual([400, `4002:beneficiary.bank_details.${message}`]);
  });

  it("takes a GB IBAN with the sort code and account number it carries", async () => {
    const fresh = await gw.merchant();
    const answer = await fresh.post('/v1/payout', payoutBody(fresh, local('GB', 'GBP', { iban: 'GB29 NWBK 6016 1331 9268 19', bank_code: '60-16-13', account_number: '31926819' })));
    // Unfunded: its bank details passed.
    expect([answer.status, answer.body.failure_type, answer.body.beneficiary?.bank_details?.local_clearing_system]).toEqual([200, 'INSUFFICIENT_FUNDS', 'FASTER_PAYMENTS']);
  });
});

// One valid body per rail: [local_clearing_system, the body's changes].
const RAILS: [string, Body][] = [
  ['SEPA', { payment_currency: 'EUR', beneficiary: SEPA_BENEFICIARY }],
  ['ACH', {}],
  ['FASTER_PAYMENTS', local('GB', 'GBP', GB)],
  ['FASTER_PAYMENTS', local('GB', 'GBP', { iban: 'GB29NWBK60161331926819' })],
  ['BECS', local('AU', 'AUD', { account_number: '12345678', bank_code: '062-000' })],
  ['EFT', local('CA', 'CAD', { account_number: '1234567', bank_code: '000312345' })],
  ['IMPS', local('IN', 'INR', { account_number: '123456789012', bank_code: 'HDFC0000123' })],
  ['NEFT', { ...local('IN', 'INR', { account_number: '123456789012', bank_code: 'HDFC0000123' }), payment_amount: '600000.00' }],
  ['PIX', local('BR', 'BRL', BR)],
  ['SPEI', local('MX', 'MXN', { account_number: '002010077777777771' })],
  ['SWIFT', swift({})],
  // Countries whose IBAN formats ibantools knows but that are not in the SWIFT IBAN registry: an
  // account number, not an IBAN.
  ['SWIFT', { payment_method: 'SWIFT', beneficiary: bank({ bank_country_code: 'MA', account_number: '011780000012345678901234', swift_code: 'BCMAMAMC' }) }],
  ['SWIFT', { payment_method: 'SWIFT', beneficiary: bank({ bank_country_code: 'HN', account_number: '12345678901234', swift_code: 'BMILHNTE' }) }],
  // Or by the national IBAN, as before.
  ['SWIFT', { payment_method: 'SWIFT', beneficiary: { ...ACH_BENEFICIARY, bank_details: { account_name: 'Ada Lovelace', bank_country_code: 'MA', account_currency: 'USD', iban: 'MA89011780000012345678901234', swift_code: 'BCMAMAMC' } } }],
  ['SWIFT', { payment_method: 'SWIFT', payment_currency: 'EUR', beneficiary: bank({ swift_code: 'DEUTDEFF' }, SEPA_BENEFICIARY), swift_charge_option: 'SHARED' }],
];

describe('every rail, in its own bank details', () => {
  it.each(RAILS)('%s', async (rail, change) => {
    const owner = await gw.merchant();
    await topUp(gw, owner, 'USD', '100000.00');
    await topUp(gw, owner, 'EUR', '1000.00');
    const answer = await owner.post('/v1/payout', payoutBody(owner, change));
    expect(answer.status, answer.raw).toBe(200);
    expect(answer.body.status).toBe('PROCESSING');
    expect(answer.body.beneficiary.bank_details.local_clearing_system).toBe(rail);
    expect(answer.body.beneficiary.bank_details).not.toHaveProperty('bank_code');
  });
});

describe("each rail's required bank details, as the requirements table names them", () => {
  // Every field the table requires of a rail, left out of that rail's valid body: a 400 naming it.
  const cases = RAILS.flatMap(([rail, change]) => {
    const details = ((change.beneficiary as Body | undefined) ?? ACH_BENEFICIARY).bank_details as Body;
    const context = { method: (change.payment_method as 'LOCAL' | 'SWIFT' | undefined) ?? 'LOCAL', country: details.bank_country_code as string, currency: (change.payment_currency as string | undefined) ?? 'USD' };
    return Object.keys(details).flatMap((field) => {
      const named = missingField('bank_details', context, (f) => f !== field && details[f] !== undefined);
      return named ? [[`${rail} ${details.bank_country_code} without ${field}`, change, field, named] as const] : [];
    });
  });

  it('covers every rail of the table', () => {
    expect(cases.length).toBeGreaterThanOrEqual(RAILS.length);
  });

  it.each(cases)('%s', async (_what, change, field, named) => {
    const body = payoutBody(shop, change);
    const beneficiary = body.beneficiary as Body;
    const answer = await shop.post('/v1/payout', { ...body, beneficiary: { ...beneficiary, bank_details: without(beneficiary.bank_details as Body, field) } });
    expect(answer.status, answer.raw).toBe(400);
    expect(answer.body.return_message).toMatch(new RegExp(`^4001:.*beneficiary\\.bank_details\\.${named}`));
    expect(await payoutCount(gw, shop)).toBe(0);
  });
});

// docs/api/payout.md's Refusals table, code → its "when" text: a merchant maps codes from it.
function documentedRefusals(): Map<string, string> {
  const text = readFileSync(new URL('../../docs/api/payout.md', import.meta.url), 'utf8');
  return new Map([...text.matchAll(/^\| 4\d\d \| `(\d{4})` \| (.*) \|$/gm)].map((m) => [m[1]!, m[2]!]));
}

describe("/v1/payout's refusal codes are the Refusals table's", () => {
  it.each([
    ['a negative amount', { payment_amount: '-1.00' }, 'payment_amount', /an amount's format/],
    ['an amount in exponent form', { source_amount: '1e3', payment_amount: undefined }, 'source_amount', /an amount's format/],
    ['both amounts', { source_amount: '10.00' }, 'source_amount', /both `payment_amount` and `source_amount`/],
    ['a currency in lower case', { payment_currency: 'usd' }, 'payment_currency', /its format/],
    ['decimals beyond the currency', { payment_amount: '1.001' }, 'payment_amount', /decimals beyond the currency/],
    ['a zero amount', { payment_amount: '0.00' }, 'payment_amount', /zero/],
    ['a payment_date more than a year ahead', { payment_date: '2027-11-23' }, 'payment_date', /`payment_date` before today or more than a year ahead/],
  ])('%s is answered with the code whose row describes it', async (_what, change, field, described) => {
    const answer = await shop.post('/v1/payout', payoutBody(shop, change));
    expect(answer.status).toBe(400);
    const code = String(answer.body.return_message).slice(0, 4);
    expect(answer.body.return_message).toContain(field);
    expect(documentedRefusals().get(code), `the row of ${code}`).toMatch(described);
    expect(await payoutCount(gw, shop)).toBe(0);
  });
});
