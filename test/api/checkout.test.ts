// /v1/checkout, the redirect / iFrame payment, through the HTTP interface: the hand-off page
// against every documented fields, the session's protection (forged, expired, replayed), and the
// hosted page's card attempts up to the shopper's return to return_url with a signed outcome.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALIAS_FIELDS, ROUTING_FIELDS } from '../../src/http/encoders/handoff.ts';
import { expireAbandonedPayments } from '../../src/app/apm/expire.ts';
import { resolveUnknownPayments, UNKNOWN_AFTER_MS } from '../../src/app/payments/resolve-unknown.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { orderNo } from '../support/fixtures.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';
import { hiddenFields, refreshTarget, returnedOutcome, shopper, type PageAnswer, type Shopper } from '../support/shopper.ts';

let gw: TestGateway;
let shop: SignedClient;
let browser: Shopper;
const clock = new FakeClock(new Date());

beforeAll(async () => {
  gw = await startTestGateway({ clock });
  shop = await gw.merchant({ name: 'Lojas Aurora' });
  browser = shopper(gw.gateway.server.app);
});
afterAll(() => gw?.close());

const rows = (sql: string, params: unknown[] = []) => gw.database.query<Record<string, any>>(sql, params);

function checkout(ids: { merchant_id: string; account_id: string }, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...ids, order_no: orderNo('CO'), currency: 'USD', amount: '25.00', return_url: 'https://shop.example/return', ...overrides };
}

const CARD = { holder_name: 'Ana Lima', card_number: '4111 1111 1111 1111', expiry: '12 / 30', security_code: '123' };

/** Merchant request → hand-off page → hosted page URL. */
async function openPage(client: SignedClient = shop, overrides: Record<string, unknown> = {}) {
  const body = checkout(client.ids, overrides);
  const handOffPage = await client.post('/v1/checkout', body);
  expect(handOffPage.status).toBe(200);
  const opened = await browser.handOff(handOffPage.raw);
  expect(opened.status).toBe(303);
  return { body, handOffPage, pageUrl: opened.location!, fields: new Map(hiddenFields(handOffPage.raw)) };
}

async function paymentOf(order: unknown) {
  const [row] = await rows('SELECT * FROM payments WHERE order_no = $1', [order]);
  return row!;
}


/**
 * Runs the unknown-outcome sweeper once the payments' answers count as lost, then puts the clock
 * back. The sweeper compares the row's update time (the database's clock) with the gateway's.
 */
async function askAgainAfterUnknownWindow(): Promise<void> {
  const before = clock.now();
  clock.set(new Date(Date.now() + UNKNOWN_AFTER_MS + 1_000));
  try {
    expect(await resolveUnknownPayments(gw.gateway.deps)).toBeGreaterThanOrEqual(1);
  } finally {
    clock.set(before);
  }
}

describe('the hand-off page (redirect payment response)', () => {
  const rich = {
    note: 'gift wrap',
    shopper_id: 'S-77',
    shopper_email: 'ana@example.com',
    shopper_phone: '+55 11 5555-0100',
    first_name: 'Ana',
    last_name: 'Lima',
    billing_address: 'Rua A 1',
    billing_city: 'São Paulo',
    billing_state: 'SP',
    billing_postal_code: '01000-000',
    billing_country: 'BR',
    delivery_firstname: 'Rui',
    delivery_lastname: 'Lima',
    delivery_address: 'Rua B 2',
    delivery_city: 'Campinas',
    delivery_state: 'SP',
    delivery_postal_code: '13000-000',
    delivery_country: 'BR',
    item_total: '20.00',
    tax_total: '3.00',
    shipping: '2.00',
    shipping_discount: '0.50',
    items: 'Mug#,#SKU1#,#10.00#,#2',
    notify_url: 'https://shop.example/notify',
    cancel_url: 'https://shop.example/cancel',
    default_lang: 'pt-BR',
    shopper_level: 'gold',
    open3d: '1',
    token_flag: '1',
    color_depth: '24',
    time_zone: '-180',
    cart_items: [{ basic_item_data: { name: 'Mug', quantity: '2', price: { amount_local_currency: '10.00', currency: 'USD' } } }],
  };

  it('is an HTML loading page whose form posts to {base_url}/v1/checkout, continue button included', async () => {
    const { handOffPage } = await openPage(shop, rich);
    expect(handOffPage.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(handOffPage.raw).toMatch(/<title>Carregando a página de pagamento…<\/title>/);
    expect(handOffPage.raw).toContain('<form id="handoff" method="post" action="http://gateway.test/v1/checkout">');
    expect(handOffPage.raw).toMatch(/<button type="submit" class="button">Continuar<\/button>/);
    expect([...handOffPage.raw.matchAll(/<script [^>]*>/g)].map((m) => m[0])).toEqual([
      expect.stringMatching(/^<script src="http:\/\/gateway\.test\/assets\/handoff\.js\?v=[0-9a-f]{12}" defer>$/),
    ]);
    expect(handOffPage.headers['content-security-policy']).toContain('script-src http://gateway.test/assets/handoff.js;');
  });

  it('carries every fixed routing field, every request field under its own name, every alias and allParams', async () => {
    const { body, fields, handOffPage } = await openPage(shop, rich);
    const names = hiddenFields(handOffPage.raw).map(([name]) => name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of [...ROUTING_FIELDS, ...ALIAS_FIELDS, 'allParams']) expect(fields.has(name), name).toBe(true);
    // The documented lists, spelled out, so a change to our constants cannot hide a missing field.
    expect([...ROUTING_FIELDS]).toEqual(
      'gbc_id connector_code account_name service pm_id apm_type descriptor orderprefix rrtimezone ordernumlength sendbgoods replacename send_bank_website replace_up_id replace_match_address to_pass_page'.split(' '),
    );
    expect([...ALIAS_FIELDS]).toEqual(
      'merNo gatewayNo orderNo orderCurrency orderAmount itemTotal taxTotal shipFee shippingDiscount goodsInfo remark firstName lastName email phone address city state zip country shipFirstName shipLastName shipAddress shipCity shipState shipZip shipCountry notifyUrl returnUrl cancelUrl return_url cancel_url source_notify_url defaultLang default_lang shopperId shopperLevel isOpen3D token paymentToken cardType card_type signInfo APMType payment_method merSendLogoNo logo_name verifyBillingAddress verify_billing_address source_request_ip'.split(
        ' ',
      ),
    );
    // Echoed under their original names, encryption_data included; nested fields in bracket notation.
    for (const [name, value] of Object.entries(body)) if (typeof value === 'string') expect(fields.get(name), name).toBe(value);
    expect(fields.get('encryption_data')).toMatch(/^[0-9a-f]{64}$/);
    expect(fields.get('cart_items[0][basic_item_data][price][amount_local_currency]')).toBe('10.00');
    expect(Object.fromEntries(['merNo', 'gatewayNo', 'orderNo', 'orderCurrency', 'orderAmount', 'itemTotal', 'taxTotal', 'shipFee', 'shippingDiscount', 'goodsInfo', 'remark'].map((n) => [n, fields.get(n)]))).toEqual({
      merNo: body.merchant_id,
      gatewayNo: body.account_id,
      orderNo: body.order_no,
      orderCurrency: 'USD',
      orderAmount: '25.00',
      itemTotal: '20.00',
      taxTotal: '3.00',
      shipFee: '2.00',
      shippingDiscount: '0.50',
      goodsInfo: 'Mug#,#SKU1#,#10.00#,#2',
      remark: 'gift wrap',
    });
    expect(
      Object.fromEntries(
        ['firstName', 'lastName', 'email', 'phone', 'address', 'city', 'state', 'zip', 'country', 'shipFirstName', 'shipLastName', 'shipAddress', 'shipCity', 'shipState', 'shipZip', 'shipCountry'].map((n) => [n, fields.get(n)]),
      ),
    ).toEqual({
      firstName: 'Ana',
      lastName: 'Lima',
      email: 'ana@example.com',
      phone: '+55 11 5555-0100',
      address: 'Rua A 1',
      city: 'São Paulo',
      state: 'SP',
      zip: '01000-000',
      country: 'BR',
      shipFirstName: 'Rui',
      shipLastName: 'Lima',
      shipAddress: 'Rua B 2',
      shipCity: 'Campinas',
      shipState: 'SP',
      shipZip: '13000-000',
      shipCountry: 'BR',
    });
    expect(
      Object.fromEntries(
        ['notifyUrl', 'returnUrl', 'cancelUrl', 'return_url', 'cancel_url', 'source_notify_url', 'defaultLang', 'default_lang', 'shopperId', 'shopperLevel', 'isOpen3D', 'payment_method', 'source_request_ip'].map((n) => [n, fields.get(n)]),
      ),
    ).toEqual({
      notifyUrl: 'https://shop.example/notify',
      returnUrl: 'https://shop.example/return',
      cancelUrl: 'https://shop.example/cancel',
      return_url: 'https://shop.example/return',
      cancel_url: 'https://shop.example/cancel',
      source_notify_url: 'https://shop.example/notify',
      defaultLang: 'pt-BR',
      default_lang: 'pt-BR',
      shopperId: 'S-77',
      shopperLevel: 'gold',
      isOpen3D: '1',
      payment_method: 'card',
      source_request_ip: '127.0.0.1',
    });
    expect(fields.get('signInfo')).toMatch(/^CS[0-9A-Z]{26}\.[0-9]+\.[A-Za-z0-9_-]{43}$/);
    expect(fields.get('gbc_id')).toBe(fields.get('signInfo')!.split('.')[0]);
    expect(fields.get('connector_code')).toBe('simulator');
    expect(fields.get('descriptor')).toBe('LOJAS AURORA');
    // allParams repeats the aliases, in the documented order, values URL-encoded.
    const all = new URLSearchParams(fields.get('allParams'));
    expect([...all.keys()]).toEqual([...ALIAS_FIELDS]);
    for (const name of ALIAS_FIELDS) expect(all.get(name), name).toBe(fields.get(name));
  });

  it('is the same page for the same order in JSON, form and XML, lists kept as lists', async () => {
    const body = checkout(shop.ids, { cart_items: [{ basic_item_data: { name: 'Mug', quantity: '1' } }] });
    const pages = [];
    for (const format of ['json', 'form', 'xml'] as const) pages.push(await shop.post('/v1/checkout', body, { format }));
    expect(pages.map((page) => page.status)).toEqual([200, 200, 200]);
    const signInfos = pages.map((page) => new Map(hiddenFields(page.raw)).get('signInfo'));
    expect(new Set(signInfos).size).toBe(1);
    expect(new Map(hiddenFields(pages[2]!.raw)).get('cart_items[0][basic_item_data][name]')).toBe('Mug');
  });

  it('refuses another checkout with the same order_no and different fields (4009), the original untouched', async () => {
    const body = checkout(shop.ids);
    const first = await shop.post('/v1/checkout', body);
    const other = await shop.post('/v1/checkout', { ...body, amount: '26.00' });
    expect(other.status).toBe(400);
    expect(other.signed).toBe(true);
    expect(other.body).toMatchObject({ order_no: body.order_no, order_status: '0', result_info: expect.stringMatching(/^4009:/) });
    const again = await shop.post('/v1/checkout', body);
    expect(again.raw).toBe(first.raw);
    expect(Number((await paymentOf(body.order_no)).amount)).toBe(2500);
  });

  it('creates one payment and one session for ten identical requests at once', async () => {
    const body = checkout(shop.ids);
    const pages = await Promise.all(Array.from({ length: 10 }, () => shop.post('/v1/checkout', body)));
    expect(new Set(pages.map((page) => page.status))).toEqual(new Set([200]));
    expect(new Set(pages.map((page) => new Map(hiddenFields(page.raw)).get('signInfo'))).size).toBe(1);
    const counted = await rows(
      `SELECT count(*)::int AS n, count(s.id)::int AS sessions FROM payments p LEFT JOIN checkout_sessions s ON s.payment_id = p.id WHERE p.order_no = $1`,
      [body.order_no],
    );
    expect(counted[0]).toEqual({ n: 1, sessions: 1 });
  });
});

describe('refusals before the hand-off answer in XML respon, and store nothing', () => {
  it.each([
    ['a card number', { card: '4111111111111111' }, 400, /^4002:card is invalid: expected no card in \/v1\/checkout/],
    ['a token_id', { token_id: 'TK00000000000000000000000000' }, 400, /^4002:token_id is invalid/],
    ['a javascript: return_url', { return_url: 'javascript:alert(1)' }, 400, /^4002:return_url is invalid/],
    ['a return_url giving a query name twice', { return_url: 'https://shop.example/return?tag=a&tag=b' }, 400, /^4002:return_url is invalid: expected each query name once \(tag is given twice\)$/],
    ['a cancel_url giving a query name twice', { cancel_url: 'https://shop.example/cancel?x=1&x=1' }, 400, /^4002:cancel_url is invalid: expected each query name once \(x is given twice\)$/],
    ['a return_url no URL parser reads', { return_url: 'https://[shop/return' }, 400, /^4002:return_url is invalid: expected an http\(s\) URL$/],
    ['an ftp: return_url', { return_url: 'ftp://shop.example/return' }, 400, /^4002:return_url is invalid/],
    ['a return_url that is no URL', { return_url: 'shop.example/return' }, 400, /^4002:return_url is invalid/],
    ['a javascript: cancel_url without return_url', { return_url: undefined, cancel_url: 'javascript:alert(1)' }, 400, /^4002:cancel_url is invalid/],
    ['a bad amount', { amount: '1.234' }, 400, /^4003:/],
    ['a storefront domain the account did not declare', { storefront_domains: 'https://evil.example' }, 400, /^4002:storefront_domains/],
  ])('%s', async (_case, overrides, status, info) => {
    const body = checkout(shop.ids, overrides);
    const answer = await shop.post('/v1/checkout', body);
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(answer.signed).toBe(true);
    expect(answer.body.result_info).toMatch(info);
    expect(answer.raw).not.toContain('4111111111111111');
    expect(await rows('SELECT 1 FROM payments WHERE order_no = $1', [body.order_no])).toHaveLength(0);
  });

  it('answers the retry of an accepted order with its session, after the storefront domain it names was removed from the account', async () => {
    const framed = await gw.merchant();
    const storefronts = (action: 'add' | 'remove') =>
      runCommand(['storefronts', action, '--merchant-id', framed.ids.merchant_id, '--account-id', framed.ids.account_id, '--domain', 'https://shop.example'], gw.gateway.deps);
    expect((await storefronts('add')).exitCode).toBe(0);
    gw.gateway.server.directory.forget();
    const body = checkout(framed.ids, { storefront_domains: 'https://shop.example' });
    const first = await framed.post('/v1/checkout', body);
    expect(first.status).toBe(200);
    expect((await storefronts('remove')).exitCode).toBe(0);
    gw.gateway.server.directory.forget();
    // A new order naming the domain is refused now; the retry of the accepted one finds its session.
    const fresh = await framed.post('/v1/checkout', { ...body, order_no: orderNo('CO') });
    expect([fresh.status, fresh.body.result_info]).toEqual([400, expect.stringMatching(/^4002:storefront_domains is invalid/)]);
    const retry = await framed.post('/v1/checkout', body);
    expect(retry.status).toBe(200);
    expect(new Map(hiddenFields(retry.raw)).get('signInfo')).toBe(new Map(hiddenFields(first.raw)).get('signInfo'));
    expect(await rows('SELECT 1 FROM payments WHERE order_no = $1', [body.order_no])).toHaveLength(1);
    // Other fields under that order_no are refused by the check, as a new order is.
    const other = await framed.post('/v1/checkout', { ...body, amount: '26.00' });
    expect([other.status, other.body.result_info]).toEqual([400, expect.stringMatching(/^4002:storefront_domains is invalid/)]);
  });

  it('401 for a wrong signature, 404 for an unknown account', async () => {
    const body = checkout(shop.ids);
    const unsigned = await shop.post('/v1/checkout', { ...body, encryption_data: 'ab'.repeat(32) });
    const unknown = await shop.post('/v1/checkout', { ...body, merchant_id: 'M999999' });
    expect([unsigned.status, unsigned.body.result_info.split('; sandbox:')[0]]).toEqual([401, '4401:encryption_data does not match the body']);
    expect([unknown.status, unknown.body.result_info]).toEqual([404, '4404:unknown merchant_id/account_id']);
    expect(await rows('SELECT 1 FROM payments WHERE order_no = $1', [body.order_no])).toHaveLength(0);
  });

  it('a signed request holding signInfo is the merchant\'s: 400 4019 naming it, in every format, even empty', async () => {
    for (const [format, signInfo] of [['json', 'CS0000.1.x'], ['form', 'CS0000.1.x'], ['xml', 'CS0000.1.x'], ['json', '']] as const) {
      const body = checkout(shop.ids, { signInfo });
      const answer = await shop.post('/v1/checkout', body, { format });
      expect([answer.status, answer.headers['content-type'], answer.body.result_info], `${format} ${signInfo}`).toEqual([
        400,
        'application/xml; charset=utf-8',
        '4019:signInfo is not a field of this request',
      ]);
      expect(answer.signed).toBe(true);
      expect(await rows('SELECT 1 FROM payments WHERE order_no = $1', [body.order_no])).toHaveLength(0);
    }
  });
});

describe('the hand-off is protected', () => {
  async function handOffFields() {
    const page = await shop.post('/v1/checkout', checkout(shop.ids));
    return hiddenFields(page.raw);
  }
  const withSignInfo = (fields: [string, string][], signInfo: string) => fields.map(([name, value]): [string, string] => [name, name === 'signInfo' ? signInfo : value]);

  it('opens the page once: a replayed hand-off is refused (409)', async () => {
    const fields = await handOffFields();
    const first = await browser.post('/v1/checkout', fields);
    const replay = await browser.post('/v1/checkout', fields);
    expect(first.status).toBe(303);
    expect(replay.status).toBe(409);
    expect(replay.body).toContain('This payment page was already opened');
    expect(replay.headers.location).toBeUndefined();
  });

  it('opens the page once for ten hand-offs at once: one page URL, the rest refused (409)', async () => {
    const fields = await handOffFields();
    const answers = await Promise.all(Array.from({ length: 10 }, () => browser.post('/v1/checkout', fields)));
    expect(answers.map((a) => a.status).sort()).toEqual([303, ...Array(9).fill(409)]);
    expect(answers.filter((a) => a.headers.location !== undefined)).toHaveLength(1);
  });

  it('refuses a forged signInfo (403): altered MAC, another session, expiry pushed out, garbage', async () => {
    const fields = await handOffFields();
    const signInfo = new Map(fields).get('signInfo')!;
    const [session, expiry, mac] = signInfo.split('.') as [string, string, string];
    const other = new Map(await handOffFields()).get('signInfo')!.split('.')[0]!;
    const forgeries = [
      `${session}.${expiry}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
      `${other}.${expiry}.${mac}`,
      `${session}.${Number(expiry) + 3600}.${mac}`,
      'CS0000.1.x',
      '',
    ];
    for (const forged of forgeries) {
      const answer = await browser.post('/v1/checkout', withSignInfo(fields, forged));
      expect(answer.status, forged).toBe(403);
      expect(answer.body).toContain('This payment link is not valid');
    }
    // The genuine one still opens.
    expect((await browser.post('/v1/checkout', fields)).status).toBe(303);
  });

  it('refuses an expired hand-off (410) after 30 minutes', async () => {
    const fields = await handOffFields();
    clock.advance(30 * 60_000 + 1000);
    try {
      const answer = await browser.post('/v1/checkout', fields);
      expect(answer.status).toBe(410);
      expect(answer.body).toContain('This payment page has expired');
    } finally {
      clock.advance(-(30 * 60_000 + 1000));
    }
  });

  it('ignores changed hidden fields: the session keeps the order as the merchant signed it', async () => {
    const fields = (await handOffFields()).map(([name, value]): [string, string] => [name, name === 'amount' || name === 'orderAmount' ? '0.01' : value]);
    const opened = await browser.post('/v1/checkout', fields);
    const page = await browser.get(opened.location!);
    expect(page.body).toContain('<p class="summary-amount" id="order-total">$25.00</p>');
  });

  it('opens a page only with its own token: another session or a wrong token is 404', async () => {
    const a = await openPage();
    const b = await openPage();
    const [, , sessionA, tokenA] = new URL(a.pageUrl).pathname.split('/');
    const [, , sessionB] = new URL(b.pageUrl).pathname.split('/');
    expect((await browser.get(`/checkout/${sessionB}/${tokenA}`)).status).toBe(404);
    expect((await browser.get(`/checkout/${sessionA}/${tokenA!.slice(0, -2)}xx`)).status).toBe(404);
    expect((await browser.post(`/checkout/${sessionB}/${tokenA}/pay`, CARD)).status).toBe(404);
    expect((await browser.get(a.pageUrl)).status).toBe(200);
  });
});

describe('the hosted payment page', () => {
  it('shows the order and a card form with labels, served with a strict CSP and no framing by default', async () => {
    const { pageUrl } = await openPage(shop, { items: 'Mug#,#SKU1#,#10.00#,#2#;#Tea#,#SKU2#,#5.00#,#1', shipping: '0.00' });
    const page = await browser.get(pageUrl);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<h1 class="summary-title">Payment to Lojas Aurora</h1>');
    expect(page.body).toMatch(/<span class="line-name">Mug<\/span><span class="line-qty">Qty 2<\/span><span class="line-amount">\$20\.00<\/span>/);
    for (const id of ['holder_name', 'card_number', 'expiry', 'security_code']) expect(page.body).toContain(`<label for="${id}">`);
    expect(page.body).toContain('autocomplete="cc-number"');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toBe(
      "default-src 'none'; script-src http://gateway.test/assets/checkout.js http://gateway.test/assets/submit-once.js; style-src http://gateway.test/assets/pages.css; img-src http://gateway.test data:; form-action http://gateway.test https://shop.example; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
  });

  it('pays with an approved card and returns the shopper to return_url with a signed outcome', async () => {
    const { body, pageUrl } = await openPage(shop, { return_url: 'https://shop.example/return?cart=42' });
    const paid = await browser.post(`${pageUrl}/pay`, CARD);
    expect(paid.status).toBe(303);
    expect(paid.location).toBe(pageUrl);
    const back = await browser.get(pageUrl);
    expect(back.status).toBe(303);
    const outcome = returnedOutcome(back.location!, shop.secret);
    expect(outcome.base).toBe('https://shop.example/return');
    expect(outcome.signed).toBe(true);
    expect(outcome.fields).toMatchObject({
      cart: '42',
      order_no: body.order_no,
      amount: '25.00',
      currency: 'USD',
      order_status: '1',
      result_info: '0000:Success',
      payment_method: 'card',
      card: '411111******1111',
    });
    const payment = await paymentOf(body.order_no);
    expect(payment).toMatchObject({ kind: 'checkout', status: 'captured', card_last4: '1111' });
    expect(outcome.fields.transaction_id).toBe(payment.id);
    const events = await rows('SELECT type FROM events WHERE payment_id = $1', [payment.id]);
    expect(events.map((e) => e.type)).toEqual(['payment.captured']);
    // A tampered outcome does not verify.
    const tampered = new URL(back.location!);
    tampered.searchParams.set('amount', '2500.00');
    expect(returnedOutcome(tampered.href, shop.secret).signed).toBe(false);
  });

  it('returns a payment held for review with order_status 3, every documented field, and the time it was sent', async () => {
    const { body, pageUrl } = await openPage();
    await browser.post(`${pageUrl}/pay`, { ...CARD, card_number: '4000 0000 0000 4954' });
    const back = await browser.get(pageUrl);
    const outcome = returnedOutcome(back.location!, shop.secret);
    expect(outcome.signed).toBe(true);
    const payment = await paymentOf(body.order_no);
    expect(outcome.fields).toEqual({
      merchant_id: shop.ids.merchant_id,
      account_id: shop.ids.account_id,
      order_no: body.order_no,
      transaction_id: payment.id,
      amount: '25.00',
      currency: 'USD',
      order_status: '3',
      result_info: '1003:Held for review',
      payment_method: 'card',
      card: '400000******4954',
      token_id: '',
      threeds_result: '',
      contract_name: '',
      recurring_id: '',
      recurring_deduction_period: '',
      recurring_deduction_time: '',
      return_time: String(Math.floor(clock.now().getTime() / 1000)),
      encryption_data: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // A merchant's own parameter under any of these names would be replaced by the outcome: the
    // request that gives one is refused, naming it, rather than the value lost on the way back.
    for (const name of Object.keys(outcome.fields)) {
      for (const field of ['return_url', 'cancel_url']) {
        const refused = await shop.post('/v1/checkout', checkout(shop.ids, { [field]: `https://shop.example/back?ref=7&${name}=mine` }));
        expect([refused.status, refused.body.result_info]).toEqual([
          400,
          `4002:${field} is invalid: expected query names of your own (${name} is one the gateway adds to the return)`,
        ]);
      }
    }
  });

  it('signs the return with the account’s current key: after a rotation, the new one', async () => {
    const rotating = await gw.merchant();
    const { pageUrl } = await openPage(rotating);
    const rotated = await runCommand(['keys', 'rotate', '--merchant-id', rotating.ids.merchant_id, '--account-id', rotating.ids.account_id, '--json'], gw.gateway.deps);
    expect(rotated.exitCode).toBe(0);
    const newSecret = (JSON.parse(rotated.stdout) as { secret_key: string }).secret_key;
    await browser.post(`${pageUrl}/pay`, CARD);
    const back = (await browser.get(pageUrl)).location!;
    expect([returnedOutcome(back, newSecret).signed, returnedOutcome(back, rotating.secret).signed]).toEqual([true, false]);
  });

  it('shows a declined card with the reason and lets the shopper try again; the merchant hears only the outcome', async () => {
    const { body, pageUrl } = await openPage();
    await browser.post(`${pageUrl}/pay`, { ...CARD, card_number: '4000000000009995' });
    const again = await browser.get(pageUrl);
    expect(again.status).toBe(200);
    expect(again.body).toContain('The card has insufficient funds. Try another card.');
    expect(again.body).toContain('Attempts left: 4');
    const waiting = await paymentOf(body.order_no);
    expect(waiting).toMatchObject({ status: 'requires_redirect', result_code: '1004' });
    await browser.post(`${pageUrl}/pay`, CARD);
    const done = await browser.get(pageUrl);
    expect(returnedOutcome(done.location!, shop.secret).fields.result_info).toBe('0000:Success');
    expect((await rows('SELECT type FROM events WHERE payment_id = $1', [waiting.id])).map((e) => e.type)).toEqual(['payment.captured']);
  });

  it('charges each card attempt on its own processor key: after two declined cards, an approved one is approved', async () => {
    // The sandbox honours idempotency keys as an acquirer does: a key it declined stays declined.
    const { body, pageUrl } = await openPage();
    await browser.post(`${pageUrl}/pay`, { ...CARD, card_number: '4000000000000002' });
    await browser.post(`${pageUrl}/pay`, { ...CARD, card_number: '4000000000009995' });
    expect((await browser.get(pageUrl)).body).toContain('The card has insufficient funds. Try another card.');
    await browser.post(`${pageUrl}/pay`, CARD);
    const done = await browser.get(pageUrl);
    expect(returnedOutcome(done.location!, shop.secret).fields).toMatchObject({ order_status: '1', result_info: '0000:Success' });
    const payment = await paymentOf(body.order_no);
    expect(payment).toMatchObject({ status: 'captured', processor_key: `${payment.id}-3`, connector_reference: `sim_${payment.id}-3` });
  });

  it('fails the payment after the fifth refused attempt', async () => {
    const { body, pageUrl } = await openPage();
    for (let i = 0; i < 5; i++) await browser.post(`${pageUrl}/pay`, { ...CARD, card_number: '4000000000000002' });
    const done = await browser.get(pageUrl);
    expect(returnedOutcome(done.location!, shop.secret).fields).toMatchObject({ order_status: '0', result_info: '2001:Declined' });
    const payment = await paymentOf(body.order_no);
    expect(payment.status).toBe('failed');
    expect((await rows('SELECT type FROM events WHERE payment_id = $1', [payment.id])).map((e) => e.type)).toEqual(['payment.failed']);
  });

  it('stores the card with token_flag and returns its token_id', async () => {
    const { pageUrl } = await openPage(shop, { token_flag: '1' });
    await browser.post(`${pageUrl}/pay`, CARD);
    const outcome = returnedOutcome((await browser.get(pageUrl)).location!, shop.secret);
    expect(outcome.fields.token_id).toMatch(/^TK[0-9A-Z]{26}$/);
    const [token] = await rows('SELECT last4 FROM card_tokens WHERE id = $1', [outcome.fields.token_id]);
    expect(token?.last4).toBe('1111');
  });

  it('returns a payment the processor has not answered as pending, and its outcome once known', async () => {
    const { body, pageUrl } = await openPage();
    await browser.post(`${pageUrl}/pay`, { ...CARD, card_number: '4000000000000259' });
    const back = await browser.get(pageUrl);
    expect(returnedOutcome(back.location!, shop.secret).fields).toMatchObject({ order_status: '2', result_info: '1000:Pending: awaiting the processor' });
    await askAgainAfterUnknownWindow();
    expect((await paymentOf(body.order_no)).status).toBe('captured');
    expect(returnedOutcome((await browser.get(pageUrl)).location!, shop.secret).fields.order_status).toBe('1');
  });

  it('asks about a later attempt the processor has not answered under that attempt, not the earlier one’s reference', async () => {
    const { body, pageUrl } = await openPage();
    // The first card is sent to a 3-D Secure challenge, which the shopper fails: the processor
    // gave that attempt a reference, and declined it.
    await browser.post(`${pageUrl}/pay`, { ...CARD, card_number: '4000000000003220' });
    await browser.answer(refreshTarget(await browser.get(pageUrl))!, { code: '0000', action: 'verify' });
    const declined = await paymentOf(body.order_no);
    expect(declined).toMatchObject({ status: 'requires_redirect', connector_reference: `sim_${declined.id}` });
    // The second card: the processor charges it, and its answer is lost.
    await browser.post(`${pageUrl}/pay`, { ...CARD, card_number: '4000000000000259' });
    expect(await paymentOf(body.order_no)).toMatchObject({ status: 'processing', connector_reference: null, processor_key: `${declined.id}-2` });
    await askAgainAfterUnknownWindow();
    expect(await paymentOf(body.order_no)).toMatchObject({ status: 'captured', connector_reference: `sim_${declined.id}-2` });
    expect(returnedOutcome((await browser.get(pageUrl)).location!, shop.secret).fields).toMatchObject({ order_status: '1', result_info: '0000:Success' });
  });

  it('checks the card form on the server too: field errors, no attempt used, nothing charged', async () => {
    const { body, pageUrl } = await openPage();
    const answer = await browser.post(`${pageUrl}/pay`, { holder_name: '', card_number: '4111111111111112', expiry: '01 / 20', security_code: '12' });
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('<span class="error" id="holder_name-error" aria-live="polite">Enter the name as it appears on the card.</span>');
    expect(answer.body).toContain('<span class="error" id="card_number-error" aria-live="polite">Enter a valid card number.</span>');
    expect(answer.body).toContain('aria-invalid="true"');
    expect(answer.body).not.toContain('4111111111111112');
    const [session] = await rows('SELECT attempts FROM checkout_sessions s JOIN payments p ON p.id = s.payment_id WHERE p.order_no = $1', [body.order_no]);
    expect(session?.attempts).toBe(0);
    expect(await paymentOf(body.order_no)).toMatchObject({ status: 'requires_redirect', card_last4: null });
  });

  it('refuses a card number typed into the name on the card, however it is spaced: it never reaches the processor or the page', async () => {
    const { body, pageUrl } = await openPage();
    // Full-width digits too, as a Chinese or Japanese input method types them, digits of other
    // scripts (Arabic-Indic, Persian, Devanagari), and groups apart by other dashes and spaces.
    for (const holder of [
      '4242 4242 4242 4242', '4242-4242-4242-4242', 'Ana 424 242', '４２４２　４２４２　４２４２　４２４２', 'Ana ４２４２４２',
      '4242–4242–4242–4242', '4242−4242−4242−4242', '4242ー4242ー4242ー4242', '4242\u00a04242\u00a04242\u00a04242',
      '٤٢٤٢ ٤٢٤٢ ٤٢٤٢ ٤٢٤٢', 'Ana ۴۲۴۲۴۲', 'अना ४२४२–४२४२–४२४२–४२४२',
    ]) {
      const answer = await browser.post(`${pageUrl}/pay`, { ...CARD, holder_name: holder });
      expect(answer.status).toBe(400);
      expect(answer.body).toContain('<span class="error" id="holder_name-error" aria-live="polite">Enter the name as it appears on the card.</span>');
      expect(answer.body).not.toContain(holder);
    }
    expect(await paymentOf(body.order_no)).toMatchObject({ status: 'requires_redirect', card_last4: null });
  });

  it('takes a card number, expiry and code typed in full-width digits (an input method’s), as the shopper’s own digits', async () => {
    const { body, pageUrl } = await openPage();
    const answer = await browser.post(`${pageUrl}/pay`, { holder_name: '李娜', card_number: '４１１１　１１１１　１１１１　１１１１', expiry: '１２／３０', security_code: '１２３' });
    expect([answer.status, answer.location]).toEqual([303, pageUrl]);
    expect(await paymentOf(body.order_no)).toMatchObject({ status: 'captured', card_last4: '1111' });
  });

  it('charges once when the pay button is submitted ten times at once', async () => {
    const { body, pageUrl } = await openPage();
    const answers = await Promise.all(Array.from({ length: 10 }, () => browser.post(`${pageUrl}/pay`, CARD)));
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([303]));
    const payment = await paymentOf(body.order_no);
    expect(payment.status).toBe('captured');
    const [session] = await rows('SELECT attempts FROM checkout_sessions WHERE payment_id = $1', [payment.id]);
    expect(session?.attempts).toBe(1);
    expect(await rows(`SELECT 1 FROM ledger_entries WHERE payment_id = $1 AND kind = 'capture'`, [payment.id])).toHaveLength(2);
  });

  it('tells one story when pay and cancel are pressed at once (two tabs): charged and captured, or cancelled with no card sent', async () => {
    const pages = await Promise.all(Array.from({ length: 6 }, () => openPage()));
    await Promise.all(pages.flatMap(({ pageUrl }) => [0, 1, 2].flatMap(() => [browser.post(`${pageUrl}/pay`, CARD), browser.post(`${pageUrl}/cancel`, {})])));
    for (const { body } of pages) {
      const payment = await paymentOf(body.order_no);
      const [session] = await rows('SELECT attempts FROM checkout_sessions WHERE payment_id = $1', [payment.id]);
      const events = (await rows('SELECT type FROM events WHERE payment_id = $1', [payment.id])).map((e) => e.type);
      const captured = await rows(`SELECT 1 FROM ledger_entries WHERE payment_id = $1 AND kind = 'capture'`, [payment.id]);
      if (payment.status === 'captured') {
        expect([session?.attempts, events, captured.length]).toEqual([1, ['payment.captured'], 2]);
      } else {
        expect([payment.status, payment.result_code, session?.attempts, events, captured.length]).toEqual(['failed', '2009', 0, ['payment.failed'], 0]);
      }
    }
  });

  it('sends the shopper who cancels to cancel_url with 2009, and tells the merchant', async () => {
    const { body, pageUrl } = await openPage(shop, { cancel_url: 'https://shop.example/cancelled' });
    const cancelled = await browser.post(`${pageUrl}/cancel`, {});
    expect(cancelled.status).toBe(303);
    const back = await browser.get(cancelled.location!);
    const outcome = returnedOutcome(back.location!, shop.secret);
    expect(outcome.base).toBe('https://shop.example/cancelled');
    expect(outcome.signed).toBe(true);
    expect(outcome.fields).toMatchObject({ order_status: '0', result_info: '2009:Shopper abandoned or let the payment expire' });
    const payment = await paymentOf(body.order_no);
    expect((await rows('SELECT type FROM events WHERE payment_id = $1', [payment.id])).map((e) => e.type)).toEqual(['payment.failed']);
    // Paying after cancelling charges nothing.
    await browser.post(`${pageUrl}/pay`, CARD);
    expect((await paymentOf(body.order_no)).status).toBe('failed');
  });

  it('expires after an hour: the page says so and links back with the signed 2009 outcome', async () => {
    const { body, pageUrl } = await openPage();
    clock.advance(60 * 60_000 + 1000);
    try {
      const page = await browser.get(pageUrl);
      expect(page.status).toBe(410);
      expect(page.body).toContain('This payment page has expired');
      const link = /<a class="button" href="([^"]+)">/.exec(page.body)![1]!.replace(/&amp;/g, '&');
      expect(returnedOutcome(link, shop.secret)).toMatchObject({ signed: true, fields: { result_info: expect.stringMatching(/^2009:/) } });
      expect((await paymentOf(body.order_no)).status).toBe('failed');
    } finally {
      clock.advance(-(60 * 60_000 + 1000));
    }
  });

  it('says it has expired, with the link back, also once the expiry task failed it before the shopper came back, and on every visit after', async () => {
    const { body, pageUrl } = await openPage(shop, { cancel_url: 'https://shop.example/cancelled' });
    clock.advance(60 * 60_000 + 1000);
    try {
      // The task runs every 30 s: a shopper coming back to a page left open finds it already failed.
      expect(await expireAbandonedPayments(gw.gateway.deps)).toBeGreaterThanOrEqual(1);
      expect((await paymentOf(body.order_no)).status).toBe('failed');
      for (let visit = 0; visit < 2; visit++) {
        const page = await browser.get(pageUrl);
        expect(page.status).toBe(410);
        expect(page.body).toContain('This payment page has expired');
        const link = /<a class="button" href="([^"]+)">/.exec(page.body)![1]!.replace(/&amp;/g, '&');
        expect(returnedOutcome(link, shop.secret)).toMatchObject({ base: 'https://shop.example/cancelled', signed: true, fields: { result_info: expect.stringMatching(/^2009:/) } });
      }
    } finally {
      clock.advance(-(60 * 60_000 + 1000));
    }
  });

  it.each([
    [{ browser_lang: 'pt-BR' }, 'Pagar', 'pt-BR', 'pt', 'BRL', 'Número do cartão'],
    [{ default_lang: 'es' }, 'Pagar', 'es-ES', 'es', 'USD', 'Número de tarjeta'],
    [{ browser_lang: 'zh-CN' }, '支付', 'zh-CN', 'zh-Hans', 'USD', '卡号'],
    [{ browser_lang: 'de-DE', default_lang: 'fr' }, 'Pay', 'en-US', 'en', 'USD', 'Card number'],
  ])('speaks the shopper’s language: %o', async (lang, pay, locale, htmlLang, currency, numberLabel) => {
    const { pageUrl } = await openPage(shop, { ...lang, currency });
    const page = await browser.get(pageUrl);
    const amount = new Intl.NumberFormat(locale, { style: 'currency', currency }).format(25);
    expect(page.body).toContain(`<html lang="${htmlLang}">`);
    expect(page.body).toContain(`>${pay} ${amount}</button>`);
    expect(page.body).toContain(`<label for="card_number">${numberLabel}</label>`);
  });

  it('lets only the account’s storefront domains frame the pages, narrowed by the request', async () => {
    const framed = await gw.merchant();
    await rows(`UPDATE accounts SET storefront_domains = ARRAY['https://shop.example', 'https://m.shop.example', 'javascript:x'] WHERE id = $1`, [framed.ids.account_id]);
    gw.gateway.server.directory.forget();
    const all = await openPage(framed);
    expect(String((await browser.get(all.pageUrl)).headers['content-security-policy'])).toContain('frame-ancestors https://shop.example https://m.shop.example;');
    expect(all.handOffPage.headers['content-security-policy']).toContain('frame-ancestors https://shop.example https://m.shop.example;');
    const narrowed = await openPage(framed, { storefront_domains: 'https://m.shop.example' });
    const page = await browser.get(narrowed.pageUrl);
    expect(String(page.headers['content-security-policy'])).toContain("frame-ancestors https://m.shop.example;");
    expect(page.headers['x-frame-options']).toBeUndefined();
  });
});

describe('a hosted page without return_url shows the shopper the outcome itself', () => {
  const NO_RETURN = { return_url: undefined, notify_url: 'https://shop.example/notify' };

  /** A page of the gateway's own, 200, that sends the shopper nowhere: no redirect, link or form. */
  function expectOutcome(page: PageAnswer, orderNo: string, title: string) {
    expect(page.status).toBe(200);
    expect(page.location).toBeUndefined();
    expect(page.body).toContain(`<h1 id="outcome-title">${title}</h1>`);
    expect(page.body).toContain(`<dd id="outcome-order">${orderNo}</dd>`);
    expect(page.body).toContain('<dd class="grand" id="outcome-amount">$25.00</dd>');
    expect(page.body).toContain('You can close this window now.');
    expect(page.body).not.toMatch(/<a |<form|<script/);
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'none'; style-src http://gateway.test/assets/pages.css; img-src http://gateway.test data:; form-action http://gateway.test; frame-ancestors 'none'; base-uri 'none'",
    );
  }

  async function eventsOf(order: unknown) {
    const payment = await paymentOf(order);
    return rows('SELECT type, notify_url FROM events WHERE payment_id = $1 ORDER BY created_at', [payment.id]);
  }

  it('is accepted: the hand-off leaves the return fields empty and opens the card form', async () => {
    const { body, fields, pageUrl } = await openPage(shop, NO_RETURN);
    expect(['return_url', 'returnUrl', 'cancel_url', 'cancelUrl'].map((name) => fields.get(name))).toEqual(['', '', '', '']);
    expect(fields.get('allParams')).toContain('&returnUrl=&cancelUrl=&return_url=&cancel_url=&');
    const payment = await paymentOf(body.order_no);
    expect(payment).toMatchObject({ kind: 'checkout', status: 'requires_redirect' });
    expect(payment.request.return_url).toBeUndefined();
    const page = await browser.get(pageUrl);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<form id="card-form" method="post"');
    expect(String(page.headers['content-security-policy'])).toContain('form-action http://gateway.test;');
    // There is no store to return to: the cancel button says what it does.
    expect(page.body).toContain('<button type="submit" class="linklike">Cancel payment</button>');
    expect(page.body).not.toContain('return to the store');
  });

  it('pays with an approved card: the page answers 200 with the paid outcome, and the merchant is notified', async () => {
    const { body, pageUrl } = await openPage(shop, NO_RETURN);
    const paid = await browser.post(`${pageUrl}/pay`, CARD);
    expect([paid.status, paid.location]).toEqual([303, pageUrl]);
    const page = await browser.get(pageUrl);
    expectOutcome(page, body.order_no as string, 'Payment successful');
    expect(page.body).toContain('<div class="panel outcome outcome-paid" role="status">');
    expect(page.body).toContain('Your payment was approved.');
    expect(await eventsOf(body.order_no)).toEqual([{ type: 'payment.captured', notify_url: 'https://shop.example/notify' }]);
    // Seen again (a reload), the same page.
    expect((await browser.get(pageUrl)).body).toBe(page.body);
  });

  it('fails after the fifth declined card: 200 with the reason the form gave, and the merchant is notified', async () => {
    const { body, pageUrl } = await openPage(shop, NO_RETURN);
    for (let i = 0; i < 5; i++) await browser.post(`${pageUrl}/pay`, { ...CARD, card_number: '4000000000009995' });
    const page = await browser.get(pageUrl);
    expectOutcome(page, body.order_no as string, 'Payment not completed');
    expect(page.body).toContain('<p id="outcome-reason">The card has insufficient funds.</p>');
    expect(page.body).toContain('Nothing was charged. To try again, start over from the store.');
    expect((await paymentOf(body.order_no)).status).toBe('failed');
    expect(await eventsOf(body.order_no)).toEqual([{ type: 'payment.failed', notify_url: 'https://shop.example/notify' }]);
  });

  it('shows a payment the processor has not answered as pending, then its outcome once known', async () => {
    const { body, pageUrl } = await openPage(shop, NO_RETURN);
    await browser.post(`${pageUrl}/pay`, { ...CARD, card_number: '4000000000000259' });
    const pending = await browser.get(pageUrl);
    expectOutcome(pending, body.order_no as string, 'Payment being confirmed');
    expect(pending.body).toContain('<meta http-equiv="refresh" content="10">'); // it looks again by itself
    await askAgainAfterUnknownWindow();
    const settled = await browser.get(pageUrl);
    expectOutcome(settled, body.order_no as string, 'Payment successful');
    expect(settled.body).not.toContain('http-equiv="refresh"');
  });

  it('after a 3-D Secure challenge, brings the shopper back to the hosted page’s outcome', async () => {
    const { body, pageUrl } = await openPage(shop, NO_RETURN);
    await browser.post(`${pageUrl}/pay`, { ...CARD, card_number: '4000000000003220' });
    const acsUrl = refreshTarget(await browser.get(pageUrl))!;
    expect(acsUrl).toMatch(/\/sandbox\/acs\//);
    const verified = await browser.answer(acsUrl, { code: '1234', action: 'verify' });
    expect([verified.status, verified.location]).toEqual([303, pageUrl]);
    expectOutcome(await browser.get(pageUrl), body.order_no as string, 'Payment successful');
    expect((await paymentOf(body.order_no)).status).toBe('captured');
  });

  it('shows a shopper who cancels, with no cancel_url either, that the payment is cancelled', async () => {
    const { body, pageUrl } = await openPage(shop, NO_RETURN);
    const cancelled = await browser.post(`${pageUrl}/cancel`, {});
    expect([cancelled.status, cancelled.location]).toEqual([303, pageUrl]);
    const page = await browser.get(pageUrl);
    expectOutcome(page, body.order_no as string, 'Payment cancelled');
    expect(page.body).not.toContain('outcome-reason');
    expect(await eventsOf(body.order_no)).toEqual([{ type: 'payment.failed', notify_url: 'https://shop.example/notify' }]);
  });

  it('expires after an hour with no link back', async () => {
    const { pageUrl } = await openPage(shop, NO_RETURN);
    clock.advance(60 * 60_000 + 1000);
    try {
      const page = await browser.get(pageUrl);
      expect(page.status).toBe(410);
      expect(page.body).toContain('This payment page has expired');
      expect(page.body).not.toContain('<a ');
    } finally {
      clock.advance(-(60 * 60_000 + 1000));
    }
  });

  it('says it has expired, not that the shopper cancelled, once the expiry task failed it', async () => {
    const { body, pageUrl } = await openPage(shop, NO_RETURN);
    clock.advance(60 * 60_000 + 1000);
    try {
      expect(await expireAbandonedPayments(gw.gateway.deps)).toBeGreaterThanOrEqual(1);
      expect((await paymentOf(body.order_no)).status).toBe('failed');
      const page = await browser.get(pageUrl);
      expect(page.status).toBe(410);
      expect(page.body).toContain('This payment page has expired');
      expect(page.body).not.toContain('Payment cancelled');
      expect(page.body).not.toContain('<a ');
    } finally {
      clock.advance(-(60 * 60_000 + 1000));
    }
  });

  it('speaks the shopper’s language and escapes the order number', async () => {
    const order = `X"><img/src=x/onerror=alert(1)>${Date.now()}`;
    const { pageUrl } = await openPage(shop, { ...NO_RETURN, order_no: order, browser_lang: 'pt-BR', currency: 'BRL' });
    await browser.post(`${pageUrl}/pay`, CARD);
    const page = await browser.get(pageUrl);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<html lang="pt">');
    expect(page.body).toContain('<h1 id="outcome-title">Pagamento concluído</h1>');
    expect(page.body).toContain(`<dd class="grand" id="outcome-amount">${new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(25)}</dd>`);
    expect(page.body).toContain(`<dd id="outcome-order">X&quot;&gt;&lt;img/src=x/onerror=alert(1)&gt;`);
    expect(page.body).not.toMatch(/<img/);
  });
});

describe('nothing the merchant or the shopper sends runs as script', () => {
  const PAYLOADS = [`"><script>alert(1)</script>`, `'><img src=x onerror=alert(1)>`, `</textarea><svg onload=alert(1)>`, `{{7*7}}&lt;b&gt;`];
  // Every text field of the checkout request that takes free text (the others are shape-checked).
  const FREE_TEXT = [
    'note', 'custom', 'service', 'shopper_id', 'shopper_level', 'first_name', 'last_name', 'document', 'billing_state', 'billing_city',
    'billing_address', 'delivery_firstname', 'delivery_lastname', 'delivery_state', 'delivery_city', 'delivery_address', 'os',
    'browser', 'session_id', 'device_fingerprint', 'user_agent', 'device_type', 'order_type', 'antifraud_token_cookie',
    'installments_id', 'platform_source', 'price_id', 'quote_id',
  ];
  const SHORT = ['billing_postal_code', 'delivery_postal_code'];

  it.each(PAYLOADS)('echoes %s escaped in every field of the hand-off, the hosted page and its answers', async (payload) => {
    const overrides: Record<string, unknown> = Object.fromEntries(FREE_TEXT.map((field) => [field, payload]));
    for (const field of SHORT) overrides[field] = `"'<b>&`;
    overrides.order_no = `X${payload.replace(/\s/g, '')}`.slice(0, 64);
    overrides.items = `${payload}#,#${payload}#,#1.00#,#1`;
    overrides.cart_items = [{ basic_item_data: { name: payload, productId: 'p' } }];
    overrides.return_url = `https://shop.example/return?q=${encodeURIComponent(payload)}`;
    const { handOffPage, fields, pageUrl } = await openPage(shop, overrides);
    for (const field of FREE_TEXT) expect(fields.get(field), field).toBe(payload);
    for (const field of SHORT) expect(fields.get(field), field).toBe(`"'<b>&`);
    expect(fields.get('order_no')).toBe(overrides.order_no);
    const page = await browser.get(pageUrl);
    const declined = (await browser.post(`${pageUrl}/pay`, { ...CARD, holder_name: payload, card_number: '4000000000000002' })).status;
    const again = await browser.get(pageUrl);
    expect(declined).toBe(303);
    for (const html of [handOffPage.raw, page.body, again.body]) {
      expect(html).not.toContain(payload);
      expect(html).not.toMatch(/<(img|svg)\b/);
      expect(html).not.toMatch(/<script(?![^>]* src="http:\/\/gateway\.test\/assets\/[a-z-]+\.js\?v=[0-9a-f]{12}" defer>)/);
    }
    expect(page.body).toContain(`<span class="line-name">${payload.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')}</span>`);
  });
});

describe('the page token', () => {
  it('never reaches a log line: whoever reads the logs cannot open, pay or cancel a shopper’s page', async () => {
    const { pageUrl } = await openPage();
    const token = pageUrl.split('/').pop()!;
    await browser.get(pageUrl);
    await browser.post(`${pageUrl}/pay`, { ...CARD, card_number: '4000000000000002' });
    await browser.post(`${pageUrl}/cancel`, {});
    expect(gw.logs.text).toContain(pageUrl.split('/')[4]); // the session id stays, to follow a shopper's steps
    expect(gw.logs.text).not.toContain(token);
  });

  it('stays out of the log when the card form’s URL is opened as a page, which leads back to the page', async () => {
    const { pageUrl } = await openPage();
    const token = pageUrl.split('/').pop()!;
    // A refused card form answers at …/pay: the address bar the shopper reloads with Enter, or a restored tab, opens it with GET.
    const refused = await browser.post(`${pageUrl}/pay`, { ...CARD, expiry: '13 / 30' });
    expect(refused.status).toBe(400);
    for (const url of [`${pageUrl}/pay`, `${pageUrl}/cancel`]) expect(await browser.get(url)).toMatchObject({ status: 303, location: pageUrl });
    expect((await browser.get(pageUrl)).status).toBe(200);
    // Paths no route matches are logged too, without what follows the session id.
    for (const url of [`${pageUrl}/`, `${pageUrl}/pay/again`]) expect((await browser.get(url)).status).toBe(404);
    expect(gw.logs.text).not.toContain(token);
  });
});

describe('card data', () => {
  it('never reaches a row, a log line, a page or a URL', async () => {
    const cvc = '947';
    const pages: string[] = [];
    const { body, pageUrl } = await openPage();
    for (const number of ['4000000000000002', '4111111111111111']) {
      const answer = await browser.post(`${pageUrl}/pay`, { ...CARD, card_number: number, security_code: cvc });
      pages.push(answer.body, answer.location ?? '');
      const next = await browser.get(pageUrl);
      pages.push(next.body, next.location ?? '');
    }
    const invalid = await browser.post(`${pageUrl}/pay`, { ...CARD, card_number: '4111111111111112', security_code: cvc });
    pages.push(invalid.body);
    const payment = await paymentOf(body.order_no);
    expect(payment.status).toBe('captured');
    const dump = (await rows(`SELECT t::text AS row FROM payments t UNION ALL SELECT t::text FROM checkout_sessions t UNION ALL SELECT t::text FROM events t`)).map((r) => r.row).join('\n');
    for (const text of [dump, gw.logs.text, pages.join('\n')]) {
      for (const pan of ['4000000000000002', '4111111111111111', '4111111111111112']) expect(text).not.toContain(pan);
      // As a value (quoted, in markup, in a form or URL), not as any number: "ms":947 in a log is a duration.
      expect(text).not.toMatch(new RegExp(`["'>=]${cvc}(["'<&]|$)`, 'm'));
    }
  });
});
