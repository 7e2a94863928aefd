// The payout request (/v1/payout, docs/api/payout.md): its schema, and the parsing of a checked
// body into the use case's command. Values, required fields and the bank details follow
// docs/payouts.md: shapes here, the requirements table (src/domain/payouts/requirements.ts) and
// the bank details' structure and checksums (src/domain/payouts/bank-details.ts) after.
import Type, { type Static } from 'typebox';
import type { PayoutCommand, RequestIdentities } from '../../app/payouts/command.ts';
import { AppError } from '../../domain/errors.ts';
import type { Money } from '../../domain/money.ts';
import { checkBankDetails } from '../../domain/payouts/bank-details.ts';
import { dayOf, isDay } from '../../domain/payouts/dates.ts';
import { isBlank, missingField, type EntityType } from '../../domain/payouts/requirements.ts';
import { canonicalString, type SignedBody } from '../../domain/signature.ts';
import { checkAmount, checkCountry, checkCurrency, compile, CurrencyCode, Decimal, Email, invalid, List, lowerScheme, Text, Url } from './validation.ts';

const Name = Text({ max: 128, freeText: true });
const Line = Text({ max: 256, freeText: true });
const Short = Text({ max: 64, freeText: true });
const Code = Text({ max: 64 });
const Opt = Type.Optional;
const DateText = Text({ max: 10, pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', hint: 'a date YYYY-MM-DD' });
const CountryText = Text({ max: 2, pattern: '^[A-Z]{2}$', hint: 'an ISO 3166 two-letter country code' });
const EntityTypeText = Text({ max: 8, pattern: '^(PERSONAL|COMPANY)$', hint: 'PERSONAL or COMPANY' });

const BeneficiaryAddress = Type.Object({
  city: Opt(Short),
  country_code: Opt(CountryText),
  postcode: Opt(Text({ max: 16, freeText: true })),
  state: Opt(Short),
  street: Opt(Line),
  number: Opt(Text({ max: 16, freeText: true })),
  street_address: Opt(Line),
  complement: Opt(Line),
});

const BankDetails = Type.Object({
  account_currency: Opt(CurrencyCode),
  account_name: Opt(Name),
  owner_document_number: Opt(Text({ max: 32 })),
  account_number: Opt(Text({ max: 34, pattern: '^[A-Za-z0-9 -]+$', hint: 'letters and digits' })),
  bank_account_category: Opt(Short),
  bank_branch: Opt(Text({ max: 16 })),
  bank_country_code: Opt(CountryText),
  bank_code: Opt(Text({ max: 16 })),
  bank_name: Opt(Name),
  bank_street_address: Opt(Line),
  binding_mobile_number: Opt(Text({ max: 32, pattern: '^\\+?[0-9 -]{4,31}$', hint: 'a phone number' })),
  iban: Opt(Text({ max: 42, pattern: '^[A-Za-z0-9 ]+$', hint: 'an IBAN' })),
  swift_code: Opt(Text({ max: 11, pattern: '^[A-Za-z0-9]+$', hint: 'a BIC of 8 or 11 characters' })),
  transaction_reference: Opt(Short),
});

const Beneficiary = Type.Object({
  additional_info: Opt(
    Type.Object({
      business_area: Opt(Short),
      business_phone_number: Opt(Code),
      business_registration_number: Opt(Code),
      personal_email: Opt(Email),
      personal_id_number: Opt(Code),
      personal_id_type: Opt(Code),
      personal_mobile_number: Opt(Code),
      personal_net_monthly_average_income: Opt(Code),
      personal_phone_country_code: Opt(Code),
      personal_phone_area_code: Opt(Code),
      personal_fiscal_country: Opt(CountryText),
    }),
  ),
  address: Opt(BeneficiaryAddress),
  person_documents: Opt(List(Type.Object({ file_type: Opt(Code), file_url: Opt(Url), labels: Opt(List(Short, 20)) }), 20)),
  bank_details: Opt(BankDetails),
  company_name: Opt(Name),
  date_of_birth: Opt(DateText),
  entity_type: Opt(EntityTypeText),
  first_name: Opt(Name),
  last_name: Opt(Name),
});

const Payer = Type.Object({
  additional_info: Opt(
    Type.Object({
      business_registration_number: Opt(Code),
      business_registration_type: Opt(Code),
      external_id: Opt(Code),
      personal_email: Opt(Email),
      personal_id_number: Opt(Code),
      job: Opt(Short),
    }),
  ),
  address: Opt(Type.Object({ city: Opt(Short), country_code: Opt(CountryText), postcode: Opt(Text({ max: 16, freeText: true })), state: Opt(Short), street_address: Opt(Line) })),
  company_name: Opt(Name),
  date_of_birth: Opt(DateText),
  entity_type: Opt(EntityTypeText),
  first_name: Opt(Name),
  last_name: Opt(Name),
});

export const PayoutRequest = Type.Object({
  merchant_id: Text({ max: 32 }),
  account_id: Text({ max: 32 }),
  request_id: Text({ max: 36, pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', hint: 'a UUID' }),
  beneficiary: Beneficiary,
  beneficiary_id: Opt(Code),
  client_data: Opt(Text({ max: 1024, freeText: true })),
  fee_paid_by: Opt(Text({ max: 11, pattern: '^(PAYER|BENEFICIARY)$', hint: 'PAYER or BENEFICIARY' })),
  payer: Opt(Payer),
  payment_amount: Opt(Decimal),
  payment_currency: CurrencyCode,
  payment_date: Opt(DateText),
  payment_method: Text({ max: 5, pattern: '^(LOCAL|SWIFT)$', hint: 'LOCAL or SWIFT' }),
  reason: Text({ max: 128, freeText: true }),
  reference: Text({ max: 140, freeText: true }),
  source_amount: Opt(Decimal),
  source_currency: Opt(CurrencyCode),
  swift_charge_option: Opt(Text({ max: 6, pattern: '^(SHARED|PAYER)$', hint: 'SHARED or PAYER' })),
  fund_source: Opt(Code),
  notify_url: Opt(Url),
  encryption_data: Text({ max: 128 }),
});

export type PayoutBody = Static<typeof PayoutRequest>;
export const payoutRequest = compile(PayoutRequest);

function checkDay(text: string, field: string): string {
  if (!isDay(text)) throw invalid(field, 'a date YYYY-MM-DD');
  return text;
}

/** Text of nothing but spaces or invisible characters (a template's placeholder, a name left blank) names nobody: it counts as absent. */
const blank = (value: unknown) => typeof value === 'string' && isBlank(value);

function has(object: Readonly<Record<string, unknown>> | undefined, path: string): boolean {
  let node: unknown = object;
  for (const part of path.split('.')) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined;
  return node !== undefined && !blank(node);
}

function requireParty(party: 'beneficiary' | 'payer', object: Record<string, unknown>, context: { method: PayoutCommand['method']; country: string | undefined; currency: string }) {
  const entityType = object.entity_type as EntityType | undefined;
  const missing = missingField(party, { ...context, entityType }, (path) => has(object, path));
  if (missing) throw new AppError('missing_field', `${party}.${missing} is required`, { field: `${party}.${missing}` });
  const born = object.date_of_birth as string | undefined;
  if (born !== undefined) checkDay(born, `${party}.date_of_birth`);
}

/** The use case's command, from a body the schema has checked; `now` is the injected clock's. */
export function payoutCommand(body: PayoutBody, now: Date): PayoutCommand {
  const method = body.payment_method as PayoutCommand['method'];
  for (const field of ['reason', 'reference'] as const) if (blank(body[field])) throw new AppError('missing_field', `${field} is required`, { field });
  const paymentCurrency = checkCurrency(body.payment_currency, 'payment_currency');
  const sourceCurrency = body.source_currency === undefined ? paymentCurrency : checkCurrency(body.source_currency, 'source_currency');
  const amount = amountOf(body, paymentCurrency, sourceCurrency);
  if (body.swift_charge_option !== undefined && method !== 'SWIFT') throw invalid('swift_charge_option', 'no swift_charge_option with payment_method LOCAL');

  const today = dayOf(now);
  // Not before today: checked by the use case once it knows the request_id is new (a repeat sent
  // after the payout's payment_date is answered with the payout).
  const paymentDate = body.payment_date === undefined ? today : checkDay(body.payment_date, 'payment_date');

  const beneficiary = body.beneficiary as Record<string, unknown>;
  const details = body.beneficiary.bank_details;
  requireParty('beneficiary', beneficiary, { method, country: details?.bank_country_code, currency: paymentCurrency });
  if (body.beneficiary.date_of_birth !== undefined && body.beneficiary.date_of_birth >= today) throw invalid('beneficiary.date_of_birth', 'a day in the past');
  if (body.payer) {
    requireParty('payer', body.payer as Record<string, unknown>, { method, country: details?.bank_country_code, currency: paymentCurrency });
    if (body.payer.date_of_birth !== undefined && body.payer.date_of_birth >= today) throw invalid('payer.date_of_birth', 'a day in the past');
  }
  checkPartyCountries(body);
  const bankCountry = checkCountry(details!.bank_country_code!, 'beneficiary.bank_details.bank_country_code');
  checkCurrency(details!.account_currency!, 'beneficiary.bank_details.account_currency');
  const bank = checkBankDetails(details! as Parameters<typeof checkBankDetails>[0], {
    method,
    paymentCurrency,
    amountMinor: 'payment' in amount ? amount.payment.minor : 0,
  });
  if ('problem' in bank) {
    const field = `beneficiary.bank_details.${bank.problem.field}`;
    if (bank.problem.missing) throw new AppError('missing_field', `${field} ${bank.problem.message}`, { field });
    throw invalid(field, bank.problem.message);
  }
  return {
    requestId: body.request_id.toLowerCase(),
    ...identitiesOf(body, body.request_id),
    record: recordOf(body, { source_currency: sourceCurrency, fee_paid_by: body.fee_paid_by ?? 'PAYER', payment_date: paymentDate }),
    method,
    paymentCurrency,
    sourceCurrency,
    amount,
    feePaidBy: body.fee_paid_by === 'BENEFICIARY' ? 'BENEFICIARY' : 'PAYER',
    payerPaysSwiftCharge: body.swift_charge_option === 'PAYER',
    paymentDate,
    receivedAt: now,
    bank,
    bankCountry,
    ...(body.notify_url ? { notifyUrl: lowerScheme(body.notify_url) } : {}),
  };
}

/**
 * The parties' other country codes are ISO 3166 countries too, as the bank's is: the schema checks
 * only their shape, and a rail's compliance screening reads them (an address in `ZZ` is no address).
 */
function checkPartyCountries(body: PayoutBody): void {
  const codes: [string, string | undefined][] = [
    ['beneficiary.address.country_code', body.beneficiary.address?.country_code],
    ['beneficiary.additional_info.personal_fiscal_country', body.beneficiary.additional_info?.personal_fiscal_country],
    ['payer.address.country_code', body.payer?.address?.country_code],
  ];
  for (const [field, code] of codes) if (code !== undefined) checkCountry(code, field);
}

function amountOf(body: PayoutBody, paymentCurrency: string, sourceCurrency: string): { payment: Money } | { source: Money } {
  if (body.payment_amount !== undefined && body.source_amount !== undefined) throw invalid('source_amount', 'exactly one of payment_amount and source_amount');
  if (body.payment_amount !== undefined) return { payment: { minor: checkAmount(body.payment_amount, paymentCurrency, 'payment_amount'), currency: paymentCurrency } };
  if (body.source_amount !== undefined) return { source: { minor: checkAmount(body.source_amount, sourceCurrency, 'source_amount'), currency: sourceCurrency } };
  throw new AppError('missing_field', 'payment_amount or source_amount is required', { field: 'payment_amount' });
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/**
 * The request_id and identities of a body the schema or the checks refused, as payoutCommand
 * would key it: a retry of a payout recorded before a check was added (or tightened) is the same
 * request, answered with the payout, not refused as if nothing had been stored. Null without a
 * request_id of UUID form.
 */
export function repeatKey(body: Readonly<Record<string, unknown>>): (RequestIdentities & { readonly requestId: string }) | null {
  const written = body.request_id;
  if (typeof written !== 'string' || !UUID.test(written)) return null;
  return { requestId: written.toLowerCase(), ...identitiesOf(body as unknown as PayoutBody, written) };
}

/**
 * What makes a repeat of `body` the same request: its identity with the request_id as it is looked
 * up (lower case), and, when `written` differs, the identity payouts recorded before 24 November
 * 2026 were keyed by (the request_id as written).
 */
function identitiesOf(body: PayoutBody, written: string): RequestIdentities {
  const requestId = written.toLowerCase();
  return { identity: requestIdentity(body, requestId), ...(written !== requestId ? { earlierIdentity: requestIdentity(body, written) } : {}) };
}

/**
 * Same request_id, same fields: every field but the signature, with `requestId` for the
 * request_id (the UUID in lower case: a repeat may write it in another case, as it is looked up).
 */
function requestIdentity(body: PayoutBody, requestId: string): string {
  const { encryption_data: _signature, ...rest } = body;
  return canonicalString({ ...rest, request_id: requestId } as unknown as SignedBody);
}

/**
 * The request as kept: no credentials or signature, defaults filled in. bank_code is kept, for the
 * rail routes the transfer by it; the answer leaves it out (payoutFields, src/app/payouts/view.ts).
 */
function recordOf(body: PayoutBody, defaults: Record<string, string>): Record<string, unknown> {
  const { merchant_id: _m, account_id: _a, encryption_data: _e, ...fields } = body;
  return { ...fields, ...defaults };
}
