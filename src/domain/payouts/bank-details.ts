// The beneficiary's bank details, checked by structure and checksum before anything is stored:
// IBAN and BIC (ibantools), US ABA routing numbers (abavalidator), Mexican CLABE (clabe-validator),
// and the other countries' local codes by their published formats. A problem names the field
// relative to `bank_details`; the caller prefixes the path. Its message says what the field
// should be, as every refusal of a malformed field does (`<field> is invalid: expected <message>`),
// with what was wrong with the value sent in brackets when that helps.
import { validate as validateAba } from 'abavalidator';
import { clabe } from 'clabe-validator';
import { electronicFormatIBAN, extractBIC, extractIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import { routeOf, type ClearingSystem, type LocalBankCode, type PayoutMethod } from './clearing.ts';
import { isBlank, missingField } from './requirements.ts';

export interface BankDetailsInput {
  readonly bank_country_code: string;
  readonly account_currency: string;
  readonly account_number?: string | undefined;
  readonly bank_code?: string | undefined;
  readonly bank_branch?: string | undefined;
  readonly iban?: string | undefined;
  readonly swift_code?: string | undefined;
}

export interface CheckedBankDetails {
  readonly clearing: ClearingSystem;
  /** IBAN in electronic form (no spaces, upper case), when given. */
  readonly iban?: string;
  readonly swiftCode?: string;
  /** The local bank code as digits/letters only (dashes and spaces removed). */
  readonly bankCode?: string;
}

export interface BankDetailsProblem {
  readonly field: string;
  readonly message: string;
  /** The field is absent (answered as a missing field), not malformed. */
  readonly missing?: boolean;
}

export interface BankDetailsContext {
  readonly method: PayoutMethod;
  readonly paymentCurrency: string;
  /** The transfer in the payment currency, in minor units (some countries pick a rail by size). */
  readonly amountMinor: number;
}

const problem = (field: string, message: string): { problem: BankDetailsProblem } => ({ problem: { field, message } });

export function checkBankDetails(details: BankDetailsInput, context: BankDetailsContext): CheckedBankDetails | { problem: BankDetailsProblem } {
  const country = details.bank_country_code;
  const route = routeOf(context.method, country, context.paymentCurrency, context.amountMinor);
  if ('problem' in route) return problem('bank_country_code', route.problem);
  if (context.method === 'LOCAL' && details.account_currency !== context.paymentCurrency) {
    return problem('account_currency', `${context.paymentCurrency}, the payment_currency: a LOCAL payout is paid in the account's own currency`);
  }

  let iban: string | undefined;
  if (details.iban !== undefined) {
    iban = electronicFormatIBAN(details.iban) ?? '';
    if (!isValidIBAN(iban)) return problem('iban', 'a valid IBAN (its structure or check digits are wrong)');
    const of = extractIBAN(iban).countryCode;
    if (of !== country) return problem('iban', `an IBAN of ${country}, the bank_country_code (this one is of ${of})`);
  }
  let swiftCode: string | undefined;
  if (details.swift_code !== undefined) {
    swiftCode = details.swift_code.toUpperCase();
    if (!isValidBIC(swiftCode)) return problem('swift_code', 'a valid BIC: 8 or 11 letters and digits, such as DEUTDEFF');
    const of = extractBIC(swiftCode).countryCode;
    if (of !== country) return problem('swift_code', `a BIC of ${country}, the bank_country_code (this one is of ${of})`);
  }

  // Which fields the rail needs: the one requirements table (requirements.ts).
  const missing = missingField('bank_details', { method: context.method, country, currency: context.paymentCurrency }, (field) => {
    const value = details[field as keyof BankDetailsInput];
    return value !== undefined && !isBlank(value);
  });
  if (missing) return { problem: { field: missing, missing: true, message: `is required for ${context.method} payouts to ${country}${route.rail === 'SWIFT' ? '' : ` in ${context.paymentCurrency}`}` } };

  if (route.rail === 'SWIFT') {
    if (!iban && !/^[A-Za-z0-9]{1,34}$/.test(details.account_number ?? '')) return problem('account_number', 'up to 34 letters and digits');
    return { clearing: 'SWIFT', ...(iban ? { iban } : {}), swiftCode: swiftCode! };
  }
  if (route.rail === 'SEPA') return { clearing: 'SEPA', iban: iban!, ...(swiftCode ? { swiftCode } : {}) };
  // A domestic rail: its country's account number and bank code (a GB IBAN carries both).
  const local = route.local!;
  if (iban && local.bankCode === 'sort_code') {
    // The IBAN carries both: a sort code or account number sent beside it is the one it carries,
    // or the rail (which routes by bank_code) would be told two different accounts.
    const sortCode = iban.slice(8, 14);
    if (details.bank_code !== undefined && digitsOnly(details.bank_code) !== sortCode) return problem('bank_code', `${sortCode}, the IBAN's sort code (or no bank_code)`);
    if (details.account_number !== undefined && digitsOnly(details.account_number) !== iban.slice(14)) {
      return problem('account_number', 'the account number the IBAN carries (or no account_number)');
    }
    return { clearing: route.rail, iban };
  }
  const checked = checkLocal(local.bankCode, details);
  if ('problem' in checked) return checked;
  return { clearing: route.rail, bankCode: checked.bankCode, ...(swiftCode ? { swiftCode } : {}) };
}

const digitsOnly = (text: string) => text.replace(/[\s-]/g, '');

function checkLocal(kind: LocalBankCode, details: BankDetailsInput): { bankCode: string } | { problem: BankDetailsProblem } {
  // Present: the requirements table checked it.
  const account = details.account_number ?? '';
  const rule = LOCAL_RULES[kind];
  if (!rule.account.test(account)) return problem('account_number', rule.accountHint);
  if (kind === 'clabe') {
    // The CLABE is the account number; it carries the bank's code in its first three digits.
    const check = clabe.validate(account);
    if (!check.ok) return problem('account_number', `a valid CLABE (${clabeFault(check)})`);
    if (details.bank_code !== undefined && digitsOnly(details.bank_code) !== check.code.bank) {
      return problem('bank_code', `${check.code.bank}, the CLABE's bank code (or no bank_code)`);
    }
    return { bankCode: check.code.bank };
  }
  const code = digitsOnly(details.bank_code ?? '').toUpperCase();
  if (!rule.code.test(code)) return problem('bank_code', rule.codeHint);
  if (kind === 'aba' && !validateAba(code)) return problem('bank_code', 'a valid ABA routing number (its check digit is wrong)');
  if (kind === 'br_bank') {
    if (!/^[0-9]{4}(-?[0-9Xx])?$/.test(details.bank_branch ?? '')) return problem('bank_branch', 'the 4-digit agency number, with an optional check digit');
  }
  return { bankCode: kind === 'ca_routing' ? canadianRouting(code) : code };
}

interface LocalRule {
  readonly account: RegExp;
  readonly accountHint: string;
  readonly code: RegExp;
  readonly codeHint: string;
}

const LOCAL_RULES: Record<LocalBankCode, LocalRule> = {
  aba: { account: /^[0-9]{4,17}$/, accountHint: '4 to 17 digits', code: /^[0-9]{9}$/, codeHint: 'the 9-digit ABA routing number' },
  sort_code: { account: /^[0-9]{8}$/, accountHint: '8 digits', code: /^[0-9]{6}$/, codeHint: 'the 6-digit sort code, such as 40-47-84' },
  bsb: { account: /^[0-9]{5,9}$/, accountHint: '5 to 9 digits', code: /^[0-9]{6}$/, codeHint: 'the 6-digit BSB, such as 062-000' },
  // Institution (3 digits) and transit (5 digits), as 0IIITTTTT (the payment routing form) or IIITTTTT.
  ca_routing: { account: /^[0-9]{7,12}$/, accountHint: '7 to 12 digits', code: /^0?[0-9]{8}$/, codeHint: 'the institution (3 digits) and transit (5 digits) numbers, such as 000312345' },
  ifsc: { account: /^[0-9]{9,18}$/, accountHint: '9 to 18 digits', code: /^[A-Z]{4}0[A-Z0-9]{6}$/, codeHint: 'the 11-character IFSC, such as HDFC0000123' },
  br_bank: { account: /^[0-9]{1,12}(-?[0-9Xx])?$/, accountHint: 'up to 12 digits with an optional check digit', code: /^[0-9]{3}$/, codeHint: 'the 3-digit bank (COMPE) code, such as 001' },
  clabe: { account: /^[0-9]{18}$/, accountHint: 'the 18-digit CLABE', code: /^[0-9]{3}$/, codeHint: "the CLABE's 3-digit bank code" },
};

/** What is wrong with a CLABE of 18 digits, in our words (clabe-validator's are its own). */
function clabeFault(check: ReturnType<typeof clabe.validate>): string {
  if (check.error === 'invalid-checksum') return `its check digit should be ${check.checksum}`;
  if (check.error === 'invalid-bank') return `its bank code ${check.code.bank} is no bank's`;
  if (check.error === 'invalid-city') return `its city code ${check.code.city} is no city's`;
  return 'the 18-digit CLABE';
}

/** Canadian routing in the 9-digit payment form 0IIITTTTT. */
function canadianRouting(code: string): string {
  return code.length === 9 ? code : `0${code}`;
}
