import { describe, expect, it } from 'vitest';
import { checkBankDetails, type BankDetailsContext, type BankDetailsInput } from './bank-details.ts';
import { routeOf } from './clearing.ts';

const local = (paymentCurrency: string, amountMinor = 10_000) => ({ method: 'LOCAL' as const, paymentCurrency, amountMinor });
const swift = (paymentCurrency: string) => ({ method: 'SWIFT' as const, paymentCurrency, amountMinor: 10_000 });
const fieldOf = (result: ReturnType<typeof checkBankDetails>) => ('problem' in result ? result.problem.field : 'ok');

describe('bank details accepted, with their rail', () => {
  const cases: [string, BankDetailsInput, BankDetailsContext, string][] = [
    ['SEPA by IBAN', { bank_country_code: 'DE', account_currency: 'EUR', iban: 'de89 3704 0044 0532 0130 00' }, local('EUR'), 'SEPA'],
    ['ACH', { bank_country_code: 'US', account_currency: 'USD', account_number: '123456789', bank_code: '011000015' }, local('USD'), 'ACH'],
    ['Faster Payments by sort code', { bank_country_code: 'GB', account_currency: 'GBP', account_number: '31926819', bank_code: '60-16-13' }, local('GBP'), 'FASTER_PAYMENTS'],
    ['Faster Payments by IBAN', { bank_country_code: 'GB', account_currency: 'GBP', iban: 'GB29NWBK60161331926819' }, local('GBP'), 'FASTER_PAYMENTS'],
    ['BECS', { bank_country_code: 'AU', account_currency: 'AUD', account_number: '12345678', bank_code: '062-000' }, local('AUD'), 'BECS'],
    ['EFT', { bank_country_code: 'CA', account_currency: 'CAD', account_number: '1234567', bank_code: '00312345' }, local('CAD'), 'EFT'],
    ['IMPS', { bank_country_code: 'IN', account_currency: 'INR', account_number: '123456789012', bank_code: 'HDFC0000123' }, local('INR'), 'IMPS'],
    ['NEFT above the IMPS limit', { bank_country_code: 'IN', account_currency: 'INR', account_number: '123456789012', bank_code: 'HDFC0000123' }, local('INR', 500_000_01), 'NEFT'],
    ['PIX', { bank_country_code: 'BR', account_currency: 'BRL', account_number: '12345678-9', bank_code: '001', bank_branch: '1234-5' }, local('BRL'), 'PIX'],
    ['SPEI by CLABE', { bank_country_code: 'MX', account_currency: 'MXN', account_number: '002010077777777771' }, local('MXN'), 'SPEI'],
    ['SWIFT to an IBAN country', { bank_country_code: 'DE', account_currency: 'USD', iban: 'DE89370400440532013000', swift_code: 'deutdeff' }, swift('USD'), 'SWIFT'],
    ['SWIFT elsewhere', { bank_country_code: 'US', account_currency: 'EUR', account_number: '000123456789', swift_code: 'CHASUS33XXX' }, swift('EUR'), 'SWIFT'],
  ];
  it.each(cases)('%s', (_name, details, context, rail) => {
    const result = checkBankDetails(details, context);
    expect(result).toMatchObject({ clearing: rail });
  });

  it('normalises what it keeps: IBAN in electronic form, BIC upper case, local codes without separators', () => {
    expect(checkBankDetails({ bank_country_code: 'DE', account_currency: 'EUR', iban: 'de89 3704 0044 0532 0130 00' }, local('EUR'))).toMatchObject({ iban: 'DE89370400440532013000' });
    expect(checkBankDetails({ bank_country_code: 'CA', account_currency: 'CAD', account_number: '1234567', bank_code: '003-12345' }, local('CAD'))).toMatchObject({ bankCode: '000312345' });
  });
});

describe('bank details refused, naming the field', () => {
  const cases: [string, BankDetailsInput, BankDetailsContext, string][] = [
    ['IBAN check digits', { bank_country_code: 'DE', account_currency: 'EUR', iban: 'DE88370400440532013000' }, local('EUR'), 'iban'],
    ['IBAN of another country', { bank_country_code: 'FR', account_currency: 'EUR', iban: 'DE89370400440532013000' }, local('EUR'), 'iban'],
    ['SEPA without IBAN', { bank_country_code: 'FR', account_currency: 'EUR', account_number: '123' }, local('EUR'), 'iban'],
    ['ABA check digit', { bank_country_code: 'US', account_currency: 'USD', account_number: '123456789', bank_code: '011000016' }, local('USD'), 'bank_code'],
    ['ABA missing', { bank_country_code: 'US', account_currency: 'USD', account_number: '123456789' }, local('USD'), 'bank_code'],
    ['US account number', { bank_country_code: 'US', account_currency: 'USD', account_number: '12-AB', bank_code: '011000015' }, local('USD'), 'account_number'],
    ['sort code', { bank_country_code: 'GB', account_currency: 'GBP', account_number: '31926819', bank_code: '60161' }, local('GBP'), 'bank_code'],
    ['BSB', { bank_country_code: 'AU', account_currency: 'AUD', account_number: '12345678', bank_code: '06200' }, local('AUD'), 'bank_code'],
    ['Canadian routing', { bank_country_code: 'CA', account_currency: 'CAD', account_number: '1234567', bank_code: '12345' }, local('CAD'), 'bank_code'],
    ['IFSC fifth character', { bank_country_code: 'IN', account_currency: 'INR', account_number: '123456789012', bank_code: 'HDFC1000123' }, local('INR'), 'bank_code'],
    ['Brazilian agency', { bank_country_code: 'BR', account_currency: 'BRL', account_number: '12345678', bank_code: '001' }, local('BRL'), 'bank_branch'],
    ['CLABE check digit', { bank_country_code: 'MX', account_currency: 'MXN', account_number: '002010077777777772' }, local('MXN'), 'account_number'],
    ['CLABE against bank_code', { bank_country_code: 'MX', account_currency: 'MXN', account_number: '002010077777777771', bank_code: '012' }, local('MXN'), 'bank_code'],
    ['account currency of a LOCAL payout', { bank_country_code: 'US', account_currency: 'EUR', account_number: '123456789', bank_code: '011000015' }, local('USD'), 'account_currency'],
    ['no LOCAL rail there', { bank_country_code: 'JP', account_currency: 'JPY', account_number: '1234567', bank_code: '0001' }, local('JPY'), 'bank_country_code'],
    ['SWIFT without BIC', { bank_country_code: 'US', account_currency: 'USD', account_number: '123' }, swift('USD'), 'swift_code'],
    ['BIC structure', { bank_country_code: 'US', account_currency: 'USD', account_number: '123', swift_code: 'CHAS-US33' }, swift('USD'), 'swift_code'],
    ['BIC of another country', { bank_country_code: 'US', account_currency: 'USD', account_number: '123', swift_code: 'DEUTDEFF' }, swift('USD'), 'swift_code'],
    ['SWIFT to an IBAN country without IBAN', { bank_country_code: 'DE', account_currency: 'EUR', account_number: '123', swift_code: 'DEUTDEFF' }, swift('EUR'), 'iban'],
  ];
  it.each(cases)('%s', (_name, details, context, field) => {
    expect(fieldOf(checkBankDetails(details, context))).toBe(field);
  });
});

describe('routeOf', () => {
  it('sends EUR within SEPA by SEPA, SWIFT by SWIFT, and names no rail where there is none', () => {
    expect(routeOf('LOCAL', 'NO', 'EUR', 1)).toEqual({ rail: 'SEPA' });
    expect(routeOf('SWIFT', 'MX', 'MXN', 1)).toEqual({ rail: 'SWIFT' });
    expect(routeOf('LOCAL', 'US', 'EUR', 1)).toHaveProperty('problem');
  });
});
