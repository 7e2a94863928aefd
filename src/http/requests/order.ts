// The order fields every payment request shares (/v1/authorise, APM, /v1/checkout) and their format
// rules. Every field is accepted; optional ones are checked when present. The schema checks
// shapes; `orderDetails` checks what a schema cannot (currency exponents, real dates). Each
// request's own fields are beside it: card-payment.ts, apm-payment.ts, checkout.ts.
import Type, { type Static } from 'typebox';
import type { OrderDetails } from '../../app/payments/command.ts';
import { AppError } from '../../domain/errors.ts';
import { addIntervals, withinCalendar, type Interval } from '../../domain/subscriptions/schedule.ts';
import type { SubscriptionTerms } from '../../domain/subscriptions/subscription.ts';
import {
  checkAmount,
  checkBreakdownAmount,
  checkCountry,
  checkCurrency,
  checkIp,
  checkReturnTarget,
  Country,
  CurrencyCode,
  Decimal,
  Email,
  Flag,
  Integer,
  invalid,
  List,
  lowerScheme,
  Text,
  Url,
} from './validation.ts';

const Name = Text({ max: 64 });
const Short = Text({ max: 32 });
const Long = Text({ max: 1024 });
// Text a person types: scanned for card numbers typed by mistake (docs/security.md).
const FreeName = Text({ max: 64, freeText: true });
const FreeLine = Text({ max: 256, freeText: true });
const FreePostalCode = Text({ max: 16, freeText: true });

// One `items` record: name#,#item number#,#unit price#,#quantity. Only `#,#` and `#;#` separate: a
// `#` on its own belongs to the name or the item number ("Pack #2"). Each character is read by
// one alternative only, so the pattern takes linear time.
const ITEM_TEXT = '(?:[^#]|#(?![,;]#))';
const ITEM_RECORD = `${ITEM_TEXT}+#,#${ITEM_TEXT}*#,#[0-9]+(\\.[0-9]{1,6})?#,#[1-9][0-9]*`;

/** Fields shared by direct, APM and hosted (checkout) payment requests. */
export const OrderFields = {
  merchant_id: Text({ max: 32 }),
  account_id: Text({ max: 32 }),
  // No comma: the query and the refund search take order_no as a comma-separated list, where an
  // order_no with a comma would select other orders (docs/api/query.md).
  order_no: Text({ max: 64, pattern: '^[\\x21-\\x2b\\x2d-\\x7e]+$', hint: '1 to 64 printable characters without spaces or commas' }),
  currency: CurrencyCode,
  amount: Decimal,
  item_total: Type.Optional(Decimal),
  shipping: Type.Optional(Decimal),
  handling: Type.Optional(Decimal),
  tax_total: Type.Optional(Decimal),
  insurance: Type.Optional(Decimal),
  shipping_discount: Type.Optional(Decimal),
  discount: Type.Optional(Decimal),
  service: Type.Optional(Name),
  items: Type.Optional(
    Text({
      max: 4000,
      pattern: `^${ITEM_RECORD}(#;#${ITEM_RECORD})*$`,
      hint: 'records name#,#item number#,#unit price#,#quantity joined by #;#',
      freeText: true,
    }),
  ),
  note: Type.Optional(Text({ max: 500, freeText: true })),
  custom: Type.Optional(Text({ max: 1024, freeText: true })),
  shopper_id: Type.Optional(Name),
  shopper_email: Type.Optional(Email),
  // The longest address text (45 characters, an IPv6 whose last 32 bits are written as IPv4),
  // then a zone (`%` and an interface name of up to 15), which the check drops.
  shopper_ip: Type.Optional(Text({ max: 61 })),
  // Digits, spaces and ()- with a + only first, as written by hand: `(555) 123-4567` begins with a
  // parenthesis. At least one digit; nothing before the first digit may be one, so the pattern
  // reads the text once (linear time, whatever its length).
  shopper_phone: Type.Optional(Text({ min: 4, max: 20, pattern: '^\\+?[ ()-]*[0-9][0-9 ()-]*$', hint: 'a phone number of 4 to 20 characters: digits, spaces and +()-' })),
  shopper_level: Type.Optional(Short),
  first_name: Type.Optional(FreeName),
  last_name: Type.Optional(FreeName),
  document: Type.Optional(Name),
  birth_date: Type.Optional(Text({ max: 10, pattern: '^[0-9]{1,2}-[0-9]{1,2}-[0-9]{4}$', hint: 'DD-MM-YYYY' })),
  open3d: Type.Optional(Flag),
  token_flag: Type.Optional(Flag),
  billing_country: Type.Optional(Country),
  billing_state: Type.Optional(FreeName),
  billing_city: Type.Optional(FreeName),
  billing_address: Type.Optional(FreeLine),
  billing_postal_code: Type.Optional(FreePostalCode),
  delivery_firstname: Type.Optional(FreeName),
  delivery_lastname: Type.Optional(FreeName),
  delivery_country: Type.Optional(Country),
  delivery_state: Type.Optional(FreeName),
  delivery_city: Type.Optional(FreeName),
  delivery_address: Type.Optional(FreeLine),
  delivery_postal_code: Type.Optional(FreePostalCode),
  os: Type.Optional(Name),
  browser: Type.Optional(Name),
  browser_lang: Type.Optional(Text({ max: 35, pattern: '^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$', hint: 'a language tag such as en-US' })),
  time_zone: Type.Optional(Text({ max: 7, pattern: '^[+-]?[0-9]{1,3}(\\.[0-9]{1,2})?$', hint: 'a numeric UTC offset such as -180 or +8' })),
  resolution: Type.Optional(Text({ max: 11, pattern: '^[0-9]{2,5}x[0-9]{2,5}$', hint: '<width>x<height>' })),
  cookie_new: Type.Optional(Text({ max: 4096, pattern: '^[^=&]+=[^&]*(&[^=&]+=[^&]*)*$', hint: 'name=value pairs joined by &' })),
  cookie_old: Type.Optional(Text({ max: 4096, pattern: '^[^=&]+=[^&]*(&[^=&]+=[^&]*)*$', hint: 'name=value pairs joined by &' })),
  challenge_window_size: Type.Optional(Text({ max: 2, pattern: '^0[1-5]$', hint: 'a two-digit code 01 to 05' })),
  session_id: Type.Optional(Text({ max: 128 })),
  device_fingerprint: Type.Optional(Long),
  user_agent: Type.Optional(Long),
  color_depth: Type.Optional(Text({ max: 2, pattern: '^[0-9]{1,2}$', hint: 'bits per pixel, such as 24' })),
  device_type: Type.Optional(Short),
  order_type: Type.Optional(Short),
  antifraud_token_cookie: Type.Optional(Long),
  notify_url: Type.Optional(Url),
  installments: Type.Optional(Text({ max: 2, pattern: '^[0-9]{1,2}$', hint: 'a number of instalments' })),
  installments_id: Type.Optional(Name),
  platform_source: Type.Optional(Name),
  storefront_domains: Type.Optional(Long),
  price_id: Type.Optional(Name),
  quote_id: Type.Optional(Name),
  quote_price: Type.Optional(Decimal),
  checkout_time: Type.Optional(Integer),
  encryption_data: Text({ max: 128 }),
  cart_items: Type.Optional(
    List(
      Type.Object({
        // The entry is its basic_item_data; each of its fields is optional (decisions.md §4).
        basic_item_data: Type.Object({
          name: Type.Optional(Text({ max: 256, freeText: true })),
          quantity: Type.Optional(Integer),
          type: Type.Optional(Short),
          price: Type.Optional(
            Type.Object({
              amount_usd: Type.Optional(Decimal),
              amount_local_currency: Type.Optional(Decimal),
              currency: Type.Optional(CurrencyCode),
            }),
          ),
          category: Type.Optional(FreeName),
          productId: Type.Optional(Name),
        }),
      }),
    ),
  ),
  account_owner: Type.Optional(
    List(
      Type.Object({
        first_name: Type.Optional(FreeName),
        last_name: Type.Optional(FreeName),
        email: Type.Optional(Email),
        account_id: Type.Optional(Name),
        created: Type.Optional(Integer),
        past_orders_count: Type.Optional(Integer),
        past_orders_sum: Type.Optional(Decimal),
        lastLogin_ip: Type.Optional(Text({ max: 45 })),
        registration_ip: Type.Optional(Text({ max: 45 })),
      }),
    ),
  ),
  total_discount: Type.Optional(
    List(Type.Object({ coupon_code_used: Type.Optional(Name), discount_type: Type.Optional(Short) })),
  ),
  additional_information: Type.Optional(
    List(
      Type.Object({
        mpi_info: Type.Optional(
          Type.Object({
            eci: Type.Optional(Text({ max: 2, pattern: '^[0-9]{2}$', hint: 'a two-digit ECI' })),
            cavv: Type.Optional(Text({ max: 64 })),
            xid: Type.Optional(Text({ max: 64 })),
            dsTransID: Type.Optional(Text({ max: 64 })),
          }),
        ),
      }),
    ),
  ),
  subscription: Type.Optional(
    Type.Object({
      contract: Type.Optional(Name),
      contract_name: Type.Optional(Name),
      contract_amount: Type.Optional(Decimal),
      interval: Type.Optional(Text({ max: 5, pattern: '^(day|week|month|year)$', hint: 'day, week, month or year' })),
      interval_count: Type.Optional(Integer),
      billing_cycle: Type.Optional(Integer),
      promotion_cycle: Type.Optional(Integer),
      contract_start: Type.Optional(Text({ max: 10, pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', hint: 'a date YYYY-MM-DD' })),
      contract_end: Type.Optional(Text({ max: 10, pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', hint: 'a date YYYY-MM-DD' })),
      price_id: Type.Optional(Name),
    }),
  ),
};

/** XML list fields of payment requests (repeated elements). */
export const PAYMENT_LISTS = new Set(['cart_items', 'account_owner', 'total_discount', 'additional_information']);

export type { OrderDetails } from '../../app/payments/command.ts';

type OrderBody = Static<ReturnType<typeof Type.Object<typeof OrderFields>>>;

/** Checks of the order fields that the schema cannot express. */
export function orderDetails(body: OrderBody, now: Date): OrderDetails {
  const currency = checkCurrency(body.currency);
  const minor = checkAmount(body.amount, currency);
  for (const field of ['item_total', 'shipping', 'handling', 'tax_total', 'insurance', 'shipping_discount', 'discount'] as const) {
    const value = body[field];
    if (value !== undefined) checkBreakdownAmount(value, currency, field);
  }
  if (body.items) checkItems(body.items, currency);
  if (body.billing_country) checkCountry(body.billing_country, 'billing_country');
  if (body.delivery_country) checkCountry(body.delivery_country, 'delivery_country');
  if (body.birth_date) checkBirthDate(body.birth_date, now);
  // Card, APM and hosted payments: where the shopper comes back with the signed outcome.
  const targets = body as { return_url?: string; cancel_url?: string };
  for (const field of ['return_url', 'cancel_url'] as const) {
    const url = targets[field];
    if (url !== undefined) checkReturnTarget(url, field);
  }
  body.cart_items?.forEach((item, i) => {
    const code = item.basic_item_data.price?.currency;
    if (code) checkCurrency(code, `cart_items[${i}].basic_item_data.price.currency`);
  });
  body.account_owner?.forEach((owner, i) => {
    if (owner.lastLogin_ip) checkIp(owner.lastLogin_ip, `account_owner[${i}].lastLogin_ip`);
    if (owner.registration_ip) checkIp(owner.registration_ip, `account_owner[${i}].registration_ip`);
  });
  const mpi = body.additional_information?.find((info) => info.mpi_info?.cavv)?.mpi_info;
  // Empty leaves are dropped as the signature drops them: a subscription whose every field was
  // empty is no subscription (docs/subscriptions.md: any field present makes one).
  const subscription = body.subscription && Object.keys(body.subscription).length > 0 ? subscriptionTerms(body.subscription, currency, now) : undefined;
  return {
    merchantId: body.merchant_id,
    accountId: body.account_id,
    orderNo: body.order_no,
    amount: { minor, currency },
    ...(body.shopper_email ? { shopperEmail: body.shopper_email.toLowerCase() } : {}),
    ...(body.shopper_ip ? { shopperIp: checkIp(body.shopper_ip, 'shopper_ip') } : {}),
    ...(body.billing_country ? { billingCountry: body.billing_country } : {}),
    ...(body.notify_url ? { notifyUrl: lowerScheme(body.notify_url) } : {}),
    requestThreeDS: body.open3d === '1',
    // A subscription charges the card again later: it is kept in the vault whatever token_flag says.
    storeCard: body.token_flag === '1' || subscription !== undefined,
    ...(subscription ? { subscription } : {}),
    ...(mpi
      ? { authentication: { eci: mpi.eci, cavv: mpi.cavv, xid: mpi.xid, dsTransId: mpi.dsTransID } }
      : {}),
  };
}

type SubscriptionBody = NonNullable<OrderBody['subscription']>;

/** The `subscription` object's rules (docs/subscriptions.md): any field present makes the three terms required. */
function subscriptionTerms(body: SubscriptionBody, currency: string, now: Date): SubscriptionTerms {
  for (const field of ['contract_name', 'contract_amount', 'interval'] as const) {
    // A contract_name of nothing but spaces names no contract (and the cancel must repeat it): missing.
    if (body[field] === undefined || body[field].trim() === '') {
      throw new AppError('missing_field', `subscription.${field} is required with a subscription`, { field: `subscription.${field}` });
    }
  }
  const count = (field: 'interval_count' | 'billing_cycle' | 'promotion_cycle', min: number, fallback: number) => {
    const text = body[field];
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isSafeInteger(value) || value < min || value > MAX_CYCLES) throw invalid(`subscription.${field}`, `an integer from ${min} to ${MAX_CYCLES}`);
    return value;
  };
  const interval = body.interval as Interval;
  const intervalCount = count('interval_count', 1, 1);
  // A period that puts the first recurring charge past the year 9999 names a date no record can
  // carry (recurring_deduction_time is YYYY-MM-DD): refused before anything is charged.
  if (!withinCalendar(addIntervals(now, interval, intervalCount))) throw invalid('subscription.interval_count', 'a period whose first charge falls due before the year 10000');
  const start = body.contract_start === undefined ? undefined : checkDay(body.contract_start, 'subscription.contract_start');
  const end = body.contract_end === undefined ? undefined : checkDay(body.contract_end, 'subscription.contract_end');
  // Not before today: the use case's to ask, once it knows the order is new (a retry sent after
  // contract_end is answered with the stored outcome: passedDate, src/app/payments).
  if (start !== undefined && end !== undefined && end < start) throw invalid('subscription.contract_end', 'a date not before contract_start');
  return {
    contractName: body.contract_name!,
    ...(body.contract ? { contract: body.contract } : {}),
    ...(body.price_id ? { priceId: body.price_id } : {}),
    contractAmountMinor: checkAmount(body.contract_amount!, currency, 'subscription.contract_amount'),
    interval,
    intervalCount,
    billingCycles: count('billing_cycle', 0, 0),
    promotionCycles: count('promotion_cycle', 0, 0),
    ...(start ? { contractStart: start } : {}),
    ...(end ? { contractEnd: end } : {}),
  };
}

/** Cycle counts beyond this are refused: 10,000 daily charges are 27 years. */
const MAX_CYCLES = 10_000;

/** A real `YYYY-MM-DD` day. */
function checkDay(text: string, field: string): string {
  const day = new Date(`${text}T00:00:00Z`);
  if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== text) throw invalid(field, 'a real date YYYY-MM-DD');
  return text;
}

function checkItems(items: string, currency: string): void {
  items.split('#;#').forEach((record, i) => {
    const price = record.split('#,#')[2]!;
    checkBreakdownAmount(price, currency, `items[${i}] unit price`);
  });
}

export function checkBirthDate(text: string, now: Date, field = 'birth_date'): void {
  const [first, second, year] = text.split('-').map(Number) as [number, number, number];
  const isDate = (day: number, month: number) => {
    const date = new Date(Date.UTC(year, month - 1, day));
    return date.getUTCMonth() === month - 1 && date.getUTCDate() === day && date <= now;
  };
  if (year < 1900 || !(isDate(first, second) || isDate(second, first))) {
    throw invalid(field, 'a real past date, DD-MM-YYYY');
  }
}
