// The APM payment request (/v1/authorise with payment_method, docs/apm.md): every documented field, the
// `person` object checked field by field, and what the chosen method needs on top (a bank_code
// from its list, the person's document, the shopper's email). The method must take the order's
// currency and billing country (4018 otherwise).
import Type, { type Static } from 'typebox';
import type { ApmMethod, Bank, PersonField } from '../../connectors/port.ts';
import { AppError } from '../../domain/errors.ts';
import type { ApmCommand } from '../../app/apm/authorise-apm.ts';
import type { OrderDetails, OrderRecord } from '../../app/payments/command.ts';
import { canonicalString, type SignedBody } from '../../domain/signature.ts';
import { checkBirthDate, OrderFields, orderDetails } from './order.ts';
import { checkCountry, compile, Country, CurrencyCode, Decimal, Email, invalid, lowerScheme, Text, Url } from './validation.ts';

// Text a person types: scanned for card numbers typed by mistake (docs/security.md).
const FreeName = Text({ max: 64, freeText: true });
const FreeLine = Text({ max: 256, freeText: true });

/** Seed: the APM request's fields that the order fields already define. */
const SHARED = [
  'merchant_id', 'account_id', 'order_no', 'currency', 'amount', 'item_total', 'shipping', 'handling', 'tax_total', 'insurance',
  'shipping_discount', 'discount', 'service', 'items', 'note', 'shopper_id', 'shopper_email', 'shopper_ip', 'shopper_phone',
  'shopper_level', 'first_name', 'last_name', 'document', 'birth_date', 'billing_country', 'billing_state', 'billing_city',
  'billing_address', 'billing_postal_code', 'os', 'browser', 'browser_lang', 'time_zone', 'resolution', 'cookie_new', 'cookie_old',
  'delivery_firstname', 'delivery_lastname', 'delivery_country', 'delivery_state', 'delivery_city', 'delivery_address',
  'delivery_postal_code', 'notify_url', 'custom', 'device_fingerprint', 'encryption_data', 'platform_source', 'device_type',
  'color_depth',
] as const satisfies readonly (keyof typeof OrderFields)[];

export const DOCUMENT_TYPES = ['CPF', 'CNPJ', 'CURP', 'RFC', 'DNI', 'CC', 'CE', 'NIT', 'RUT', 'PASSPORT'] as const;

const BankAccount = Type.Object({
  account_type: Type.Optional(Text({ max: 16, pattern: '^(checking|savings|payment)$', hint: 'checking, savings or payment' })),
  account_number: Type.Optional(Text({ max: 34, pattern: '^[0-9A-Za-z-]+$', hint: 'letters, digits and dashes' })),
  branch_number: Type.Optional(Text({ max: 16, pattern: '^[0-9A-Za-z-]+$', hint: 'letters, digits and dashes' })),
  owner_document_number: Type.Optional(Text({ max: 32 })),
  owner_name: Type.Optional(Text({ max: 128, freeText: true })),
  branch_country: Type.Optional(Country),
  currency: Type.Optional(CurrencyCode),
  bank: Type.Optional(Type.Object({ code: Type.Optional(Text({ max: 16 })), name: Type.Optional(Text({ max: 128, freeText: true })) })),
});

export const Person = Type.Object({
  document_number: Type.Optional(Text({ max: 32, pattern: '^[0-9A-Za-z./ -]+$', hint: 'letters, digits, dots, dashes and slashes' })),
  document_type: Type.Optional(Text({ max: 8, pattern: `^(${DOCUMENT_TYPES.join('|')})$`, hint: `one of ${DOCUMENT_TYPES.join(', ')}` })),
  social_name: Type.Optional(Text({ max: 128, freeText: true })),
  email: Type.Optional(Email),
  phone_country_code: Type.Optional(Text({ max: 5, pattern: '^\\+?[0-9]{1,4}$', hint: 'a country calling code such as +55' })),
  phone_area_code: Type.Optional(Text({ max: 5, pattern: '^[0-9]{1,5}$', hint: 'digits' })),
  phone_number: Type.Optional(Text({ max: 15, pattern: '^[0-9][0-9 -]{3,14}$', hint: 'a phone number' })),
  birth_date: Type.Optional(Text({ max: 10, pattern: '^[0-9]{1,2}-[0-9]{1,2}-[0-9]{4}$', hint: 'DD-MM-YYYY' })),
  net_monthly_average_income: Type.Optional(Decimal),
  address_street: Type.Optional(FreeLine),
  address_number: Type.Optional(Text({ max: 16, freeText: true })),
  address_complement: Type.Optional(FreeLine),
  address_postal_code: Type.Optional(Text({ max: 16, freeText: true })),
  address_city: Type.Optional(FreeName),
  address_state: Type.Optional(FreeName),
  address_country: Type.Optional(Country),
  fiscal_country: Type.Optional(Country),
  documents: Type.Optional(
    Type.Object({
      file_type: Type.Optional(Text({ max: 8, pattern: '^(pdf|jpg|jpeg|png)$', hint: 'pdf, jpg or png' })),
      file_data: Type.Optional(Text({ max: 700_000, pattern: '^[A-Za-z0-9+/]+={0,2}$', hint: 'base64' })),
      file_url: Type.Optional(Url),
      labels: Type.Optional(Type.Object({ person_bank_account_id: Type.Optional(Text({ max: 64 })), bank_account: Type.Optional(BankAccount) })),
    }),
  ),
});

export const ApmPaymentRequest = Type.Object({
  ...pick(SHARED),
  payment_method: Text({ max: 32, pattern: '^[a-z0-9_]+$', hint: 'a payment method name' }),
  return_url: Url,
  delivery_district_name: Type.Optional(FreeName),
  delivery_street_name: Type.Optional(FreeLine),
  bank_code: Type.Optional(Text({ max: 16, pattern: '^[A-Za-z0-9]+$', hint: 'a bank code' })),
  person: Type.Optional(Person),
});

function pick<K extends keyof typeof OrderFields>(names: readonly K[]): Pick<typeof OrderFields, K> {
  return Object.fromEntries(names.map((name) => [name, OrderFields[name]])) as Pick<typeof OrderFields, K>;
}

export type ApmPaymentBody = Static<typeof ApmPaymentRequest>;
export const apmPaymentRequest = compile(ApmPaymentRequest);

export const CARD_FIELDS = ['card', 'expiration_month', 'expiration_year', 'security_code', 'token_id'] as const;

/**
 * An APM payment's command from the merchant's body. `method`: the one payment_method names, as
 * the account's connector offers it; `banks`: those it offers for the method.
 */
export function apmCommand(body: Record<string, unknown>, method: ApmMethod, now: Date, banks: readonly Bank[] = []): ApmCommand {
  const card = CARD_FIELDS.find((field) => body[field] !== undefined);
  if (card) throw invalid(card, `no ${card} with payment_method ${method.name}`);
  const parsed = apmPaymentRequest.parse(body);
  const order = orderDetails(parsed as Parameters<typeof orderDetails>[0], now);
  // A subscription charges a stored card again; an APM leaves no card to charge.
  if (order.subscription) throw invalid('subscription', `a card payment: ${method.name} cannot be charged again by the merchant`);
  if (parsed.person?.address_country) checkCountry(parsed.person.address_country, 'person.address_country');
  if (parsed.person?.fiscal_country) checkCountry(parsed.person.fiscal_country, 'person.fiscal_country');
  if (parsed.person?.birth_date) checkBirthDate(parsed.person.birth_date, now, 'person.birth_date');
  if (parsed.person?.document_number && parsed.person.document_type) {
    checkDocument(parsed.person.document_type, parsed.person.document_number);
  }
  checkMethodTakes(method, order);
  checkMethodNeeds(method, parsed, banks);
  return {
    order,
    method,
    identity: `apm\n${canonicalString(body as SignedBody)}`,
    record: storedRequest(body) as OrderRecord,
    returnUrl: lowerScheme(parsed.return_url),
    methodData: {
      ...(parsed.bank_code ? { bank_code: parsed.bank_code } : {}),
      ...(parsed.person ? { person: parsed.person } : {}),
    },
  };
}

/** The request as kept with the payment: no signature or ids, no uploaded document file. */
function storedRequest(body: Record<string, unknown>): Record<string, unknown> {
  const { encryption_data: _sig, merchant_id: _m, account_id: _a, ...rest } = body;
  const person = rest.person as Record<string, unknown> | undefined;
  const documents = person?.documents as Record<string, unknown> | undefined;
  if (documents?.file_data === undefined) return rest;
  const { file_data: _file, ...kept } = documents;
  return { ...rest, person: { ...person, documents: kept } };
}

function checkMethodTakes(method: ApmMethod, order: OrderDetails): void {
  const { currency } = order.amount;
  if (method.currencies && !method.currencies.includes(currency)) {
    throw new AppError('method_unavailable', `${method.name} does not take ${currency}: it takes ${method.currencies.join(', ')}`, { field: 'currency' });
  }
  if (method.countries) {
    if (!order.billingCountry) throw new AppError('missing_field', `billing_country is required for ${method.name}`, { field: 'billing_country' });
    if (!method.countries.includes(order.billingCountry)) {
      throw new AppError('method_unavailable', `${method.name} does not serve ${order.billingCountry}: it serves ${method.countries.join(', ')}`, {
        field: 'billing_country',
      });
    }
  }
}

function checkMethodNeeds(method: ApmMethod, body: ApmPaymentBody, banks: readonly Bank[]): void {
  if (method.needs.bankCode) {
    if (!body.bank_code) throw new AppError('missing_field', `bank_code is required for ${method.name}`, { field: 'bank_code' });
    if (!banks.some((bank) => bank.code === body.bank_code)) {
      throw invalid('bank_code', `one of ${banks.map((bank) => bank.code).join(', ')}`);
    }
  }
  if (method.needs.shopperEmail && !body.shopper_email) {
    throw new AppError('missing_field', `shopper_email is required for ${method.name}`, { field: 'shopper_email' });
  }
  for (const field of method.needs.person ?? ([] as PersonField[])) {
    if (body.person?.[field] === undefined) {
      throw new AppError('missing_field', `person.${field} is required for ${method.name}`, { field: `person.${field}` });
    }
  }
}

/** Check digits where the document has them (CPF, CNPJ), the shape elsewhere. */
export function checkDocument(type: string, number: string): void {
  const digits = number.replace(/[.\-/ ]/g, '');
  const ok = (() => {
    switch (type) {
      case 'CPF':
        return /^\d{11}$/.test(digits) && !/^(\d)\1{10}$/.test(digits) && mod11(digits, 9, 10) && mod11(digits, 10, 11);
      case 'CNPJ':
        return /^\d{14}$/.test(digits) && !/^(\d)\1{13}$/.test(digits) && cnpjDigit(digits, 12) && cnpjDigit(digits, 13);
      case 'CURP':
        return /^[A-Z]{4}\d{6}[HMX][A-Z]{5}[A-Z0-9]\d$/.test(digits.toUpperCase());
      case 'RFC':
        return /^[A-Z&Ñ]{3,4}\d{6}[A-Z0-9]{3}$/.test(digits.toUpperCase());
      default:
        return /^[0-9A-Za-z]{5,20}$/.test(digits);
    }
  })();
  if (!ok) throw invalid('person.document_number', `a valid ${type} number`);
}

/** CPF: the digit at `at` is the mod-11 check of the `at` digits before it, weighted `weight`..2. */
function mod11(digits: string, at: number, weight: number): boolean {
  let sum = 0;
  for (let i = 0; i < at; i++) sum += Number(digits[i]) * (weight - i);
  const rest = (sum * 10) % 11;
  return (rest === 10 ? 0 : rest) === Number(digits[at]);
}

function cnpjDigit(digits: string, at: number): boolean {
  const weights = at === 12 ? [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2] : [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
  const sum = weights.reduce((total, weight, i) => total + Number(digits[i]) * weight, 0);
  const rest = sum % 11;
  return (rest < 2 ? 0 : 11 - rest) === Number(digits[at]);
}
