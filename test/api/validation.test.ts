// Bad input of every kind the documented format rules imply: a 400 whose result_info names the field,
// and nothing stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardPayment } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';

let gw: TestGateway;
let shop: SignedClient;

beforeAll(async () => {
  gw = await startTestGateway();
  shop = await gw.merchant();
});
afterAll(() => gw?.close());

const without = (field: string) => (body: Record<string, unknown>) => {
  const copy = { ...body };
  delete copy[field];
  return copy;
};
const withField = (fields: Record<string, unknown>) => (body: Record<string, unknown>) => ({ ...body, ...fields });

const CASES: [string, (body: Record<string, unknown>) => Record<string, unknown>, string][] = [
  // required fields
  ['order_no missing', without('order_no'), '4001:order_no is required'],
  ['currency missing', without('currency'), '4001:currency is required'],
  ['amount missing', without('amount'), '4001:amount is required'],
  ['card missing', without('card'), '4001:card is required (or token_id)'],
  ['expiration_month missing', without('expiration_month'), '4001:expiration_month is required (or token_id)'],
  ['expiration_year missing', without('expiration_year'), '4001:expiration_year is required (or token_id)'],
  ['security_code missing', without('security_code'), '4001:security_code is required (or token_id)'],
  ['order_no empty', withField({ order_no: '' }), '4001:order_no is required'],
  // order
  ['order_no too long', withField({ order_no: 'x'.repeat(65) }), '4002:order_no is invalid: expected 1 to 64 printable characters without spaces or commas'],
  ['order_no with a comma', withField({ order_no: 'ORD-1,ORD-2' }), '4002:order_no is invalid: expected 1 to 64 printable characters without spaces or commas'],
  ['order_no with a space', withField({ order_no: 'a b' }), '4002:order_no is invalid: expected 1 to 64 printable characters without spaces or commas'],
  ['currency lower case', withField({ currency: 'usd' }), '4002:currency is invalid: expected an ISO 4217 three-letter currency code'],
  ['currency unknown', withField({ currency: 'ABC' }), '4004:currency ABC is not a supported ISO 4217 currency'],
  ['currency not tender', withField({ currency: 'XAU' }), '4004:currency XAU is not a supported ISO 4217 currency'],
  ['currency a fund code', withField({ currency: 'CLF' }), '4004:currency CLF is not a supported ISO 4217 currency'],
  ['return_url carrying a name of the outcome', withField({ return_url: 'https://shop.example/back?cart=9&order_status=paid' }), '4002:return_url is invalid: expected query names of your own (order_status is one the gateway adds to the return)'],
  ['return_url giving a query name twice', withField({ return_url: 'https://shop.example/back?order_status=1&order_status=1' }), '4002:return_url is invalid: expected each query name once (order_status is given twice)'],
  ['amount with a comma', withField({ amount: '10,00' }), '4002:amount is invalid: expected a decimal such as 10.00'],
  ['amount negative', withField({ amount: '-1.00' }), '4002:amount is invalid: expected a decimal such as 10.00'],
  ['amount zero', withField({ amount: '0.00' }), '4003:amount is invalid: expected an amount greater than zero'],
  ['amount too precise', withField({ amount: '10.001' }), '4003:amount is invalid: expected at most the decimals USD has'],
  ['amount in yen with cents', withField({ currency: 'JPY', amount: '100.50' }), '4003:amount is invalid: expected at most the decimals JPY has'],
  ['amount enormous', withField({ amount: '99999999999999.00' }), '4003:amount is invalid: expected a smaller amount'],
  ['amount of 20 digits', withField({ amount: '12345678901234567890' }), '4003:amount is invalid: expected a smaller amount'],
  ['shipping too precise', withField({ shipping: '1.001' }), '4003:shipping is invalid: expected at most the decimals USD has'],
  ['discount not a number', withField({ discount: 'ten' }), '4002:discount is invalid: expected a decimal such as 10.00'],
  // card
  ['card failing Luhn', withField({ card: '4111111111111112' }), '4005:card fails the Luhn or length check'],
  ['card too short', withField({ card: '4111' }), '4005:card must be 12 to 19 digits'],
  ['card with letters', withField({ card: '4111abcd11111111' }), '4002:card is invalid: expected the card number'],
  ['month 13', withField({ expiration_month: '13' }), '4006:expiration_month must be 01 to 12'],
  ['two-digit year', withField({ expiration_year: '30' }), '4002:expiration_year is invalid: expected the four-digit year'],
  ['expired card', withField({ expiration_year: '2020' }), '4006:the card has expired: expiration_month and expiration_year name a past month'],
  ['CVC of 2 digits', withField({ security_code: '12' }), '4002:security_code is invalid: expected 3 or 4 digits'],
  ['CVC of 4 digits on Visa', withField({ security_code: '1234' }), '4007:security_code must be 3 digits for this card'],
  ['CVC of 3 digits on Amex', withField({ card: '378282246310005', security_code: '123' }), '4007:security_code must be 4 digits for this card'],
  ['token_id malformed', withField({ token_id: 'abc' }), '4002:token_id is invalid: expected a token_id this gateway issued'],
  // the documented format rules
  ['items with three parts', withField({ items: 'Mug#,#SKU#,#5.00' }), '4002:items is invalid: expected records name#,#item number#,#unit price#,#quantity joined by #;#'],
  ['items with a zero quantity', withField({ items: 'Mug#,#SKU#,#5.00#,#0' }), '4002:items is invalid: expected records name#,#item number#,#unit price#,#quantity joined by #;#'],
  ['items with a separator inside a name', withField({ items: 'Mug#;#x#,#SKU#,#5.00#,#1' }), '4002:items is invalid: expected records name#,#item number#,#unit price#,#quantity joined by #;#'],
  ['items price too precise', withField({ items: 'Mug#,#SKU#,#5.001#,#1' }), '4003:items[0] unit price is invalid: expected at most the decimals USD has'],
  ['birth_date year first', withField({ birth_date: '1990-01-31' }), '4002:birth_date is invalid: expected DD-MM-YYYY'],
  ['birth_date impossible', withField({ birth_date: '31-02-1990' }), '4002:birth_date is invalid: expected a real past date, DD-MM-YYYY'],
  ['birth_date in the future', withField({ birth_date: '01-01-2099' }), '4002:birth_date is invalid: expected a real past date, DD-MM-YYYY'],
  ['time_zone not numeric', withField({ time_zone: 'UTC' }), '4002:time_zone is invalid: expected a numeric UTC offset such as -180 or +8'],
  ['resolution without x', withField({ resolution: '1920*1080' }), '4002:resolution is invalid: expected <width>x<height>'],
  ['cookie_new not pairs', withField({ cookie_new: 'just-a-value' }), '4002:cookie_new is invalid: expected name=value pairs joined by &'],
  ['cookie_old empty name', withField({ cookie_old: '=x' }), '4002:cookie_old is invalid: expected name=value pairs joined by &'],
  ['challenge_window_size one digit', withField({ challenge_window_size: '5' }), '4002:challenge_window_size is invalid: expected a two-digit code 01 to 05'],
  ['challenge_window_size out of range', withField({ challenge_window_size: '09' }), '4002:challenge_window_size is invalid: expected a two-digit code 01 to 05'],
  ['billing_country three letters', withField({ billing_country: 'USA' }), '4002:billing_country is invalid: expected an ISO 3166 two-letter country code'],
  ['billing_country not a country', withField({ billing_country: 'XX' }), '4002:billing_country is invalid: expected an ISO 3166 two-letter country code'],
  ['delivery_country lower case', withField({ delivery_country: 'us' }), '4002:delivery_country is invalid: expected an ISO 3166 two-letter country code'],
  ['checkout_time not an integer', withField({ checkout_time: '17.5' }), '4002:checkout_time is invalid: expected an integer'],
  ['shopper_email malformed', withField({ shopper_email: 'not-an-email' }), '4002:shopper_email is invalid: expected an email address'],
  ['shopper_ip malformed', withField({ shopper_ip: '300.1.1.1' }), '4002:shopper_ip is invalid: expected an IPv4 or IPv6 address'],
  ['notify_url not http', withField({ notify_url: 'ftp://example.com/x' }), '4002:notify_url is invalid: expected an http(s) URL'],
  ['open3d not a flag', withField({ open3d: 'yes' }), '4002:open3d is invalid: expected 0 or 1'],
  ['token_flag not a flag', withField({ token_flag: '2' }), '4002:token_flag is invalid: expected 0 or 1'],
  ['note too long', withField({ note: 'n'.repeat(501) }), '4002:note is invalid: expected at most 500 characters'],
  ['payment_method too long on a card payment', withField({ payment_method: 'c'.repeat(33) }), '4002:payment_method is invalid: expected at most 32 characters'],
  ['shopper_phone with a letter', withField({ shopper_phone: '555-CALL-NOW' }), '4002:shopper_phone is invalid: expected a phone number of 4 to 20 characters: digits, spaces and +()-'],
  ['shopper_phone without a digit', withField({ shopper_phone: '(  )-' }), '4002:shopper_phone is invalid: expected a phone number of 4 to 20 characters: digits, spaces and +()-'],
  ['shopper_phone too short', withField({ shopper_phone: '123' }), '4002:shopper_phone is invalid: expected a phone number of 4 to 20 characters: digits, spaces and +()-'],
  // nested objects
  ['subscription not an object', withField({ subscription: 'monthly' }), '4002:subscription is invalid: expected an object'],
  ['subscription interval unknown', withField({ subscription: { interval: 'fortnight' } }), '4002:subscription.interval is invalid: expected day, week, month or year'],
  ['subscription billing_cycle not integer', withField({ subscription: { billing_cycle: 'x' } }), '4002:subscription.billing_cycle is invalid: expected an integer'],
  ['cart_items not a list', withField({ cart_items: { basic_item_data: { name: 'x' } } }), '4002:cart_items is invalid: expected a list'],
  ['cart_items entry without basic_item_data', withField({ cart_items: [{}] }), '4001:cart_items[0].basic_item_data is required'],
  ['cart_items price currency unknown', withField({ cart_items: [{ basic_item_data: { name: 'x', price: { currency: 'ZZZ' } } }] }), '4004:cart_items[0].basic_item_data.price.currency ZZZ is not a supported ISO 4217 currency'],
  ['account_owner ip malformed', withField({ account_owner: [{ registration_ip: 'nope' }] }), '4002:account_owner[0].registration_ip is invalid: expected an IPv4 or IPv6 address'],
  ['mpi_info eci malformed', withField({ additional_information: [{ mpi_info: { eci: '5' } }] }), '4002:additional_information[0].mpi_info.eci is invalid: expected a two-digit ECI'],
  ['total_discount empty list', withField({ total_discount: [] }), '4002:total_discount is invalid: expected a list of 1 to 100 entries'],
  ['a field sent twice in a form', withField({ amount: ['10.00', '20.00'] }), '4002:amount is invalid: expected text'],
];

describe('refusals name the field', () => {
  it.each(CASES)('%s', async (_name, mutate, info) => {
    const body = mutate(cardPayment(shop.ids));
    const answer = await shop.post('/v1/authorise', body);
    expect(answer.body.result_info).toBe(info);
    expect(answer.status).toBe(400);
    expect(answer.signed).toBe(true);
    const stored = await gw.database.query('SELECT 1 FROM payments WHERE order_no = $1', [String(body.order_no ?? '')]);
    expect(stored).toHaveLength(0);
  });

  it('reports the refusal in the same way whatever the body format', async () => {
    for (const format of ['form', 'xml'] as const) {
      const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { amount: '10,00' }), { format });
      expect([answer.status, answer.body.result_info]).toEqual([400, '4002:amount is invalid: expected a decimal such as 10.00']);
    }
  });

  // decisions.md §4: beyond the required fields every field is optional, validated when present. A
  // cart item described by its product id and price alone was refused 4001 for its name.
  it('takes a cart item without a name, in every body format', async () => {
    const cart_items = [{ basic_item_data: { productId: 'SKU-7', quantity: '2', price: { amount_local_currency: '5.00', currency: 'USD' } } }, { basic_item_data: { name: 'Mug' } }];
    for (const format of ['json', 'form', 'xml'] as const) {
      const body = cardPayment(shop.ids, { cart_items });
      const answer = await shop.post('/v1/authorise', body, { format });
      expect([answer.status, answer.body.result_info, answer.signed]).toEqual([200, '0000:Success', true]);
      const [row] = await gw.database.query<{ cart: unknown }>("SELECT request->'cart_items' AS cart FROM payments WHERE order_no = $1", [body.order_no]);
      expect(row?.cart).toEqual(cart_items);
    }
  });

  // docs/api/authorise.md: only `#,#` and `#;#` separate; a `#` on its own is part of a name or an
  // item number ("Pack #2", "#A-100"), and was refused 4002.
  it.each([
    ['Pack #2#,#SKU-2#,#5.00#,#1', 'Pack #2'],
    ['Mug#,##A-100#,#5.00#,#2#;#Tea # green#,#T#1#,#3.00#,#1', 'Mug'],
    ['Ticket ##,#X#,#1.00#,#1', 'Ticket #'],
  ])('takes items %s, in every body format', async (items, firstName) => {
    for (const format of ['json', 'form', 'xml'] as const) {
      const body = cardPayment(shop.ids, { items });
      const answer = await shop.post('/v1/authorise', body, { format });
      expect([answer.status, answer.body.result_info, answer.signed]).toEqual([200, '0000:Success', true]);
      const [row] = await gw.database.query<{ items: string }>("SELECT request->>'items' AS items FROM payments WHERE order_no = $1", [body.order_no]);
      expect(row?.items).toBe(items);
      expect(items.split('#;#')[0]!.split('#,#')[0]).toBe(firstName);
    }
  });

  // docs/api/authorise.md: digits, spaces, `+()-`, 4 to 20 characters. A number written with its
  // area code in parentheses first was refused: the pattern wanted a digit (or +) first.
  it.each(['(555) 123-4567', '(11) 98765-4321', '+1 (555) 123-4567', '+(44) 20 7946 0958', '555-0100', '+123'])('takes shopper_phone %s, in every body format', async (phone) => {
    for (const format of ['json', 'form', 'xml'] as const) {
      const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { shopper_phone: phone }), { format });
      expect([answer.status, answer.body.result_info, answer.signed]).toEqual([200, '0000:Success', true]);
    }
  });

  it('accepts every optional documented field at once', async () => {
    const answer = await shop.post(
      '/v1/authorise',
      cardPayment(shop.ids, {
        item_total: '8.00', shipping: '1.00', handling: '0.50', tax_total: '0.50', insurance: '0', shipping_discount: '0.00', discount: '0.00',
        service: 'online', items: 'Mug#,#SKU1#,#8.00#,#1', note: 'n', custom: 'c',
        shopper_id: 'S1', shopper_email: 'ana@example.com', shopper_ip: '203.0.113.9', shopper_phone: '+55 11 99999-0000', shopper_level: 'gold',
        first_name: 'Ana', last_name: 'Silva', document: '123', birth_date: '31-01-1990', open3d: '0', token_flag: '0',
        billing_country: 'US', billing_state: 'CA', billing_city: 'SF', billing_address: '1 Main', billing_postal_code: '94000',
        delivery_firstname: 'Ana', delivery_lastname: 'Silva', delivery_country: 'US', delivery_state: 'CA', delivery_city: 'SF',
        delivery_address: '1 Main', delivery_postal_code: '94000', os: 'iOS', browser: 'Safari', browser_lang: 'pt-BR', time_zone: '-180',
        resolution: '390x844', cookie_new: 'a=1&b=2', cookie_old: 'c=3', challenge_window_size: '05', session_id: 's', device_fingerprint: 'f',
        user_agent: 'Mozilla/5.0', color_depth: '24', accept: 'text/html', device_type: 'mobile', order_type: 'goods', antifraud_token_cookie: 't',
        notify_url: 'https://merchant.example/notify', installments: '3', installments_id: 'i', platform_source: 'shopify',
        storefront_domains: 'shop.example', price_id: 'p', quote_id: 'q', quote_price: '10.00', checkout_time: '1795000000',
        account_owner: [{ first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com', account_id: 'u1', created: '1700000000', past_orders_count: '2', past_orders_sum: '30.00', lastLogin_ip: '203.0.113.9', registration_ip: '2001:db8::1' }],
        total_discount: [{ coupon_code_used: 'X', discount_type: 'fixed' }],
        additional_information: [{ mpi_info: { eci: '05', cavv: 'AAABBB', xid: 'x', dsTransID: 'd' } }],
        subscription: { contract: 'c', contract_name: 'n', contract_amount: '10.00', interval: 'month', interval_count: '1', billing_cycle: '12', promotion_cycle: '0', contract_start: '2026-12-01', contract_end: '2027-12-01', price_id: 'p' },
      }),
    );
    expect([answer.status, answer.body.result_info]).toEqual([200, '0000:Success']);
  });
});
