// Which rail a payout travels on (`local_clearing_system` in answers), from the beneficiary bank's
// country, the payment currency and the method. SWIFT is SWIFT wherever it goes; LOCAL exists only
// where this table names a rail, and each rail wants the bank details its country uses
// (bank-details.ts). docs/payouts.md shows the table.
import { getCountrySpecifications } from 'ibantools';

export type PayoutMethod = 'LOCAL' | 'SWIFT';

export type ClearingSystem = 'SEPA' | 'ACH' | 'FASTER_PAYMENTS' | 'BECS' | 'EFT' | 'IMPS' | 'NEFT' | 'PIX' | 'SPEI' | 'SWIFT';

/** How a country's LOCAL payouts identify the beneficiary's bank, beside `account_number`. */
export type LocalBankCode = 'aba' | 'sort_code' | 'bsb' | 'ca_routing' | 'ifsc' | 'br_bank' | 'clabe';

export interface LocalRail {
  readonly country: string;
  readonly currency: string;
  readonly rail: ClearingSystem;
  readonly bankCode: LocalBankCode;
}

/** Domestic rails other than SEPA, by the beneficiary bank's country. */
export const LOCAL_RAILS: readonly LocalRail[] = [
  { country: 'US', currency: 'USD', rail: 'ACH', bankCode: 'aba' },
  { country: 'GB', currency: 'GBP', rail: 'FASTER_PAYMENTS', bankCode: 'sort_code' },
  { country: 'AU', currency: 'AUD', rail: 'BECS', bankCode: 'bsb' },
  { country: 'CA', currency: 'CAD', rail: 'EFT', bankCode: 'ca_routing' },
  { country: 'IN', currency: 'INR', rail: 'IMPS', bankCode: 'ifsc' },
  { country: 'BR', currency: 'BRL', rail: 'PIX', bankCode: 'br_bank' },
  { country: 'MX', currency: 'MXN', rail: 'SPEI', bankCode: 'clabe' },
];

/** IMPS carries at most 5 lakh rupees a transfer; larger ones go by NEFT. In paise. */
export const IMPS_LIMIT_MINOR = 500_000_00;

const SPECS = getCountrySpecifications();

/** A country in the SEPA scheme (per the IBAN registry's SEPA flag). */
export function isSepaCountry(country: string): boolean {
  return SPECS[country]?.SEPA === true;
}

/**
 * A country whose accounts are written as IBANs: one of the SWIFT IBAN registry's. ibantools also
 * knows the formats of some 27 countries outside it (Morocco, Senegal, Honduras, Iran, …), whose
 * banks a SWIFT payout reaches by account number: those are not IBAN countries.
 */
export function isIbanCountry(country: string): boolean {
  return SPECS[country]?.IBANRegistry === true;
}

export type Route = { readonly rail: ClearingSystem; readonly local?: LocalRail } | { readonly problem: string };

/**
 * The rail for a payout to a bank in `country`, paid in `currency`. `amountMinor` chooses between
 * rails that differ by size (India: IMPS up to its limit, NEFT above).
 */
export function routeOf(method: PayoutMethod, country: string, currency: string, amountMinor: number): Route {
  if (method === 'SWIFT') return { rail: 'SWIFT' };
  if (currency === 'EUR' && isSepaCountry(country)) return { rail: 'SEPA' };
  const local = LOCAL_RAILS.find((rail) => rail.country === country && rail.currency === currency);
  // What bank_country_code should be: the refusal reads `bank_country_code is invalid: expected …`.
  if (!local) return { problem: `a country LOCAL payouts in ${currency} are paid to (not ${country}: use payment_method SWIFT)` };
  if (local.rail === 'IMPS' && amountMinor > IMPS_LIMIT_MINOR) return { rail: 'NEFT', local };
  return { rail: local.rail, local };
}
