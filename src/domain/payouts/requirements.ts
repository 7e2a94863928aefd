// Which fields a payout needs beyond the request's own (request_id, amounts, …), by party,
// payment_method, the beneficiary bank's country (with the payment currency) and entity_type:
// ONE table, rendered into docs/payouts.md (src/domain/payouts/requirements.test.ts fails when the
// page and this table differ). The parties' rows are checked when the request is parsed; the
// `bank_details` rows by checkBankDetails (bank-details.ts), once the rail is known, before the
// fields' formats are checked.
import { isIbanCountry, isSepaCountry, type PayoutMethod } from './clearing.ts';

export type EntityType = 'PERSONAL' | 'COMPANY';

/** Countries a row names as a group rather than one by one. */
export type CountryGroup = 'SEPA countries' | 'IBAN countries' | 'other countries';

export interface Requirement {
  /** `payer` rows apply when the request has a payer object; `bank_details` rows are the beneficiary's bank account. */
  readonly party: 'beneficiary' | 'payer' | 'bank_details';
  /** Absent: any. */
  readonly method?: PayoutMethod;
  readonly country?: string | CountryGroup;
  /** The payment currency the row applies to (absent: any). */
  readonly currency?: string;
  readonly entityType?: EntityType;
  /** Paths relative to the party; all required. */
  readonly fields: readonly string[];
  /** Alternatives, one of which must be complete (a problem names the first alternative's missing field). */
  readonly oneOf?: readonly (readonly string[])[];
  /** What else is checked of these fields, for the page. */
  readonly checked?: string;
}

export const REQUIREMENTS: readonly Requirement[] = [
  { party: 'beneficiary', fields: ['entity_type', 'bank_details', 'bank_details.account_name', 'bank_details.bank_country_code', 'bank_details.account_currency'], checked: '`bank_country_code`, `address.country_code` and `additional_info.personal_fiscal_country` ISO 3166 countries, `account_currency` real money; `date_of_birth` a past day' },
  { party: 'beneficiary', entityType: 'PERSONAL', fields: ['first_name', 'last_name'] },
  { party: 'beneficiary', entityType: 'COMPANY', fields: ['company_name'] },
  { party: 'payer', fields: ['entity_type'], checked: '`address.country_code` an ISO 3166 country; `date_of_birth` a past day' },
  { party: 'payer', entityType: 'PERSONAL', fields: ['first_name', 'last_name'] },
  { party: 'payer', entityType: 'COMPANY', fields: ['company_name'] },
  { party: 'bank_details', method: 'SWIFT', country: 'IBAN countries', fields: ['swift_code', 'iban'], checked: 'BIC structure; IBAN structure and check digits; both of `bank_country_code`' },
  // Or an IBAN: countries outside the registry with a national IBAN format (Morocco, Senegal, …) write accounts so too.
  { party: 'bank_details', method: 'SWIFT', country: 'other countries', fields: ['swift_code'], oneOf: [['account_number'], ['iban']], checked: 'BIC structure and country; `account_number` up to 34 letters and digits, or an IBAN of `bank_country_code` where the country has a format' },
  { party: 'bank_details', method: 'LOCAL', country: 'SEPA countries', currency: 'EUR', fields: ['iban'], checked: 'IBAN structure, check digits and country' },
  { party: 'bank_details', method: 'LOCAL', country: 'US', currency: 'USD', fields: ['account_number', 'bank_code'], checked: '`account_number` 4–17 digits; `bank_code` the ABA routing number: 9 digits and its check digit' },
  { party: 'bank_details', method: 'LOCAL', country: 'GB', currency: 'GBP', fields: [], oneOf: [['account_number', 'bank_code'], ['iban']], checked: '`account_number` 8 digits; `bank_code` the 6-digit sort code (`40-47-84`); or the IBAN (a `bank_code` or `account_number` beside it the one it carries)' },
  { party: 'bank_details', method: 'LOCAL', country: 'AU', currency: 'AUD', fields: ['account_number', 'bank_code'], checked: '`account_number` 5–9 digits; `bank_code` the 6-digit BSB (`062-000`)' },
  { party: 'bank_details', method: 'LOCAL', country: 'CA', currency: 'CAD', fields: ['account_number', 'bank_code'], checked: '`account_number` 7–12 digits; `bank_code` institution and transit, 8 or 9 digits (`000312345`)' },
  { party: 'bank_details', method: 'LOCAL', country: 'IN', currency: 'INR', fields: ['account_number', 'bank_code'], checked: '`account_number` 9–18 digits; `bank_code` the IFSC: 4 letters, `0`, 6 letters or digits (`HDFC0000123`)' },
  { party: 'bank_details', method: 'LOCAL', country: 'BR', currency: 'BRL', fields: ['account_number', 'bank_code', 'bank_branch'], checked: '`bank_code` the 3-digit COMPE code; `bank_branch` the 4-digit agency, optional check digit' },
  { party: 'bank_details', method: 'LOCAL', country: 'MX', currency: 'MXN', fields: ['account_number'], checked: "`account_number` the 18-digit CLABE and its check digit; `bank_code` optional, the CLABE's bank" },
];

export interface RequirementContext {
  readonly method: PayoutMethod;
  /** The beneficiary bank's country, once known. */
  readonly country?: string | undefined;
  /** The payment currency. */
  readonly currency?: string | undefined;
  readonly entityType?: EntityType | undefined;
}

function countryMatches(row: Requirement, context: RequirementContext): boolean {
  const country = context.country ?? '';
  switch (row.country) {
    case undefined:
      return true;
    case 'SEPA countries':
      return isSepaCountry(country);
    case 'IBAN countries':
      return isIbanCountry(country);
    case 'other countries':
      return !isIbanCountry(country);
    default:
      return row.country === country;
  }
}

/**
 * Text that names nothing: nothing but white space, control characters and invisible format
 * characters (zero-width spaces and joiners, direction marks: Unicode's Cf). A required field of
 * such text is missing, as an empty one is.
 */
export function isBlank(text: string): boolean {
  return text.replace(/[\s\p{Cc}\p{Cf}]/gu, '') === '';
}

/** The first field `party` lacks, as a path relative to it; null when it has them all. */
export function missingField(party: Requirement['party'], context: RequirementContext, has: (path: string) => boolean): string | null {
  for (const row of REQUIREMENTS) {
    if (row.party !== party) continue;
    if (row.method && row.method !== context.method) continue;
    if (row.currency && row.currency !== context.currency) continue;
    if (row.entityType && row.entityType !== context.entityType) continue;
    if (!countryMatches(row, context)) continue;
    const missing = row.fields.find((field) => !has(field));
    if (missing) return missing;
    if (row.oneOf && !row.oneOf.some((fields) => fields.every(has))) return row.oneOf[0]!.find((field) => !has(field))!;
  }
  return null;
}
