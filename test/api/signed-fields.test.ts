// Issue 8, items 1 and 7, through HTTP: a signed body cannot be rearranged without breaking its
// signature (values escape `%`, `&` and `=` in the canonical string), a request holds only the
// fields its operation defines, with well-formed names (4019, nothing stored), and a card number
// typed into a free-text field is masked before it is stored, echoed, logged or notified.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverDueNotifications } from '../../src/app/notifications/deliver.ts';
import { sign } from '../../src/domain/signature.ts';
import { cardPayment, orderNo } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { parseAnswer, type Format, type SignedClient } from '../support/client.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { allowQueriesFrom } from '../support/lifecycle.ts';
import { hiddenFields } from '../support/shopper.ts';

let gw: TestGateway;
let shop: SignedClient;
let receiver: Receiver;

beforeAll(async () => {
  gw = await startTestGateway();
  shop = await gw.merchant();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await gw?.close();
});

const rows = (sql: string, params: unknown[] = []) => gw.database.query<Record<string, any>>(sql, params);
const count = async (table: string) => Number((await rows(`SELECT count(*)::text AS n FROM ${table}`))[0]!.n);
const stored = async () => ({ payments: await count('payments'), sessions: await count('checkout_sessions'), operations: await count('payment_operations'), refunds: await count('refunds') });

/**
 * docs/signing.md as a merchant would write it, apart from the gateway's code: leaves as
 * `path=value`, values escaping `%`, `&` and `=`, sorted by path, joined with `&`, HMAC-SHA256.
 */
function merchantSignature(body: Record<string, unknown>, secret: string): string {
  const pairs: [string, string][] = [];
  const leaves = (path: string, node: unknown): void => {
    if (node === null || node === undefined || node === '') return;
    if (Array.isArray(node)) node.forEach((child, i) => leaves(`${path}[${i}]`, child));
    else if (typeof node === 'object') for (const [key, child] of Object.entries(node)) leaves(`${path}.${key}`, child);
    else pairs.push([path, String(node).replace(/%/g, '%25').replace(/&/g, '%26').replace(/=/g, '%3D')]);
  };
  for (const [key, value] of Object.entries(body)) if (key !== 'encryption_data') leaves(key, value);
  pairs.sort(([p], [q]) => (Buffer.from(p) < Buffer.from(q) ? -1 : 1));
  return createHmac('sha256', secret).update(pairs.map(([path, value]) => `${path}=${value}`).join('&'), 'utf8').digest('hex');
}

function checkout(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...shop.ids, order_no: orderNo('CO'), currency: 'USD', amount: '42.50', return_url: 'https://shop.example/return', ...overrides };
}

describe('a signed body cannot be rearranged (issue 8, item 1)', () => {
  it('refuses the checkout forgery: a last_name holding "&amount=0.01" and a key "amount=42.50&billing_country"', async () => {
    const signed = checkout({ billing_country: 'US', account_owner: [{ last_name: 'Smith&amount=0.01' }] });
    const signature = sign(signed as never, shop.secret);
    const { account_owner: _owner, billing_country: _country, ...rest } = signed;
    const forged = { ...rest, amount: '0.01', account_owner: [{ last_name: 'Smith' }], 'amount=42.50&billing_country': 'US', encryption_data: signature };
    const before = await stored();
    const answer = await shop.post('/v1/checkout', forged);
    expect([400, 401]).toContain(answer.status);
    expect(answer.body.result_info).toMatch(/^4(401|019):/);
    expect(await stored()).toEqual(before);
    expect(await rows('SELECT id FROM payments WHERE order_no = $1', [signed.order_no])).toEqual([]);
  });

  it('refuses a signed note "gift&notify_url=…" split into two fields', async () => {
    const signed = cardPayment(shop.ids, { note: `gift&notify_url=${receiver.url}` });
    const forged = { ...signed, note: 'gift', notify_url: receiver.url, encryption_data: sign(signed as never, shop.secret) };
    const before = await stored();
    const answer = await shop.post('/v1/authorise', forged);
    // In sandbox the refusal goes on to show the canonical string the gateway computed.
    expect([answer.status, answer.body.result_info.split('; sandbox:')[0]]).toEqual([401, '4401:encryption_data does not match the body']);
    expect(await stored()).toEqual(before);
  });

  it('refuses a key that is not a field name, even when the merchant signed it', async () => {
    const before = await stored();
    const answer = await shop.post('/v1/checkout', checkout({ 'amount=42.50&billing_country': 'US' }));
    expect([answer.status, answer.body.result_info]).toEqual([400, '4019:amount=42.50&billing_country is not a field name: letters, digits and _ only']);
    expect(answer.signed).toBe(true);
    expect(await stored()).toEqual(before);
  });

  // The canonical string is written out here, not computed by the gateway's code: this is the
  // rule of docs/signing.md as a merchant's own implementation would apply it.
  it.each<Format>(['json', 'form', 'xml'])('accepts %s values holding &, = and a per cent sign, signed by the documented rule, and its answer verifies', async (format) => {
    const order = orderNo('AMP');
    const body = {
      ...cardPayment(shop.ids, { order_no: order }),
      note: 'fish & chips = 100% tasty',
      custom: 'a=b&c=d%26',
      account_owner: [{ last_name: 'Smith&Jones' }],
    };
    const { merchant_id: m, account_id: a } = shop.ids;
    const canonical =
      `account_id=${a}&account_owner[0].last_name=Smith%26Jones&amount=10.00&card=4111111111111111&currency=USD&custom=a%3Db%26c%3Dd%2526` +
      `&expiration_month=12&expiration_year=2030&merchant_id=${m}&note=fish %26 chips %3D 100%25 tasty&order_no=${order}&security_code=123`;
    const encryption_data = createHmac('sha256', shop.secret).update(canonical, 'utf8').digest('hex');
    const answer = await shop.post('/v1/authorise', { ...body, encryption_data }, { format });
    expect([answer.status, answer.body.result_info]).toEqual([200, '0000:Success']);
    expect(answer.body.note).toBe('fish & chips = 100% tasty');
    expect(answer.body.encryption_data).toBe(merchantSignature(answer.body, shop.secret));
    const [payment] = await rows('SELECT request FROM payments WHERE order_no = $1', [order]);
    expect(payment!.request).toMatchObject({ note: 'fish & chips = 100% tasty', custom: 'a=b&c=d%26', account_owner: [{ last_name: 'Smith&Jones' }] });
  });

  // decisions.md §2: values are the text as sent. In XML that is an element's text exactly: spaces
  // at either end kept, a CDATA section taken literally; only the indentation between elements
  // is no field's text.
  it('reads an XML value as sent: spaces at its ends kept, CDATA literal, indentation between elements ignored', async () => {
    const order = orderNo('XML');
    const fields = { ...cardPayment(shop.ids, { order_no: order }), note: '  two spaces each side  ', custom: 'a &amp; <b> stays &amp;' };
    const leaves = Object.entries(fields)
      .filter(([name]) => name !== 'custom')
      .map(([name, value]) => `  <${name}>${String(value).replace(/&/g, '&amp;')}</${name}>`)
      .join('\n');
    const xml = `<?xml version="1.0"?>\n<request>\n${leaves}\n  <custom><![CDATA[a &amp; <b> stays &amp;]]></custom>\n  <encryption_data>${merchantSignature(fields, shop.secret)}</encryption_data>\n</request>\n`;
    const answer = await shop.postRaw('/v1/authorise', xml, 'application/xml');
    expect([answer.status, answer.body.result_info]).toEqual([200, '0000:Success']);
    // The answer echoes the note as sent, and signs it so.
    expect([answer.body.note, answer.signed]).toEqual(['  two spaces each side  ', true]);
    const [payment] = await rows('SELECT request FROM payments WHERE order_no = $1', [order]);
    expect(payment!.request).toMatchObject({ note: '  two spaces each side  ', custom: 'a &amp; <b> stays &amp;' });
  });

  // XML 1.0 §2.11: a reader turns every raw CR LF, and every lone CR, into LF before anything
  // else; only a character reference (&#13;) reads back as a CR. An answer that echoes a CR raw is
  // read with another note than the one it signed, and verifies with no XML library.
  it('writes a carriage return in an XML answer so that an XML reader reads the note as sent, and the signature verifies', async () => {
    const note = 'line one\r\nline two\rline three';
    const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { note }));
    const read = parseAnswer(answer.raw.replace(/\r\n?/g, '\n'));
    expect([answer.status, read.result_info, read.note]).toEqual([200, '0000:Success', note]);
    expect(read.encryption_data).toBe(merchantSignature(read, shop.secret));
  });

  // XML 1.0 has no way to write most control characters, not even as references: an answer
  // holding one is no XML document, and no XML reader reads it, let alone verifies it.
  it('answers in well-formed XML when an echoed value holds a control character XML cannot carry', async () => {
    // eslint-disable-next-line no-control-regex -- these characters are what it finds
    const NOT_XML = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/;
    const paid = await shop.post('/v1/authorise', cardPayment(shop.ids, { note: 'bell\u0007 and escape\u001b' }));
    expect([paid.status, paid.body.result_info, paid.raw.match(NOT_XML)]).toEqual([200, '0000:Success', null]);
    expect([paid.body.note, paid.signed]).toEqual(['bell\uFFFD and escape\uFFFD', true]);
    const refused = await shop.post('/v1/authorise', cardPayment(shop.ids, { order_no: 'ORD\u0001' }));
    expect([refused.status, refused.body.result_info, refused.raw.match(NOT_XML)]).toEqual([400, expect.stringMatching(/^4002:order_no is invalid/), null]);
    expect(refused.signed).toBe(true);
  });

  it('signs the return to return_url by the same rule, the merchant\'s own parameters holding & and = included', async () => {
    const page = await shop.post('/v1/checkout', checkout({ return_url: 'https://shop.example/return?next=%2Fcart%3Fstep%3D2%26gift%3D1' }));
    const opened = await gw.gateway.server.app.inject({
      method: 'POST',
      url: '/v1/checkout',
      payload: new URLSearchParams(hiddenFields(page.raw)).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const pagePath = new URL(opened.headers.location!, 'http://gateway.test').pathname;
    await gw.gateway.server.app.inject({
      method: 'POST',
      url: `${pagePath}/pay`,
      payload: new URLSearchParams({ holder_name: 'Ana Lima', card_number: '4111 1111 1111 1111', expiry: '12 / 30', security_code: '123' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const back = await gw.gateway.server.app.inject({ method: 'GET', url: pagePath });
    const returned = Object.fromEntries(new URL(back.headers.location!).searchParams);
    expect(returned).toMatchObject({ next: '/cart?step=2&gift=1', result_info: '0000:Success' });
    expect(returned.encryption_data).toBe(merchantSignature(returned, shop.secret));
  });
});

describe('only the fields an operation defines (issue 8, item 1)', () => {
  const notAField = (path: string) => `4019:${path} is not a field of this request`;

  it.each<[string, Record<string, unknown>, string]>([
    ['a top-level field', { colour: 'red' }, 'colour'],
    ['a field of a nested object', { subscription: { contract_name: 'Gold', contract_amount: '10.00', interval: 'month', colour: 'red' } }, 'subscription.colour'],
    ['a field of a list entry', { account_owner: [{ last_name: 'Lima', colour: 'red' }] }, 'account_owner[0].colour'],
    ['a field two levels down a list', { cart_items: [{ basic_item_data: { name: 'Tee', colour: 'red' } }] }, 'cart_items[0].basic_item_data.colour'],
    ["an APM request's field", { bank_code: 'SBX001' }, 'bank_code'],
    ["a hosted page's field", { cancel_url: 'https://shop.example/cancel' }, 'cancel_url'],
  ])('refuses %s in a card payment, naming it, before anything is stored', async (_name, extra, path) => {
    const before = await stored();
    const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, extra));
    expect([answer.status, answer.body.result_info, answer.body.order_status]).toEqual([400, notAField(path), '0']);
    expect(answer.signed).toBe(true);
    expect(await stored()).toEqual(before);
  });

  // decisions.md §2: a signed request "with any other key" is refused; an empty value, which the
  // canonical string leaves out, does not make the key defined.
  it.each<[string, Record<string, unknown>, Format, string]>([
    ['an empty top-level field', { colour: '' }, 'json', notAField('colour')],
    ['a null field', { colour: null }, 'json', notAField('colour')],
    ['an empty field of a nested object', { subscription: { contract_name: 'Gold', contract_amount: '10.00', interval: 'month', colour: '' } }, 'json', notAField('subscription.colour')],
    ['an empty field in a form', { colour: '' }, 'form', notAField('colour')],
    ['an empty field in XML', { colour: '' }, 'xml', notAField('colour')],
    ['an empty ill-named key', { 'first-name': '' }, 'json', '4019:first-name is not a field name: letters, digits and _ only'],
  ])('refuses %s, naming it', async (_name, extra, format, info) => {
    const before = await stored();
    const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, extra), { format });
    expect([answer.status, answer.body.result_info]).toEqual([400, info]);
    expect(await stored()).toEqual(before);
  });

  it.each<Format>(['form', 'xml'])('refuses an unknown field sent as %s', async (format) => {
    const before = await stored();
    const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { colour: 'red' }), { format });
    expect([answer.status, answer.body.result_info]).toEqual([400, notAField('colour')]);
    expect(await stored()).toEqual(before);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a dotted key', { 'first.name': 'Ana' }, 'first.name'],
    ['a dashed key', { 'first-name': 'Ana' }, 'first-name'],
    ['an ill-named key in a list entry', { account_owner: [{ 'last name': 'Lima' }] }, 'account_owner[0].last name'],
  ])('refuses %s', async (_name, extra, path) => {
    const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, extra));
    expect([answer.status, answer.body.result_info]).toEqual([400, `4019:${path} is not a field name: letters, digits and _ only`]);
  });

  it('knows the APM fields when payment_method names an APM, and nothing more', async () => {
    const apm = { ...shop.ids, order_no: orderNo('APM'), currency: 'USD', amount: '10.00', payment_method: 'sandbox_redirect', return_url: 'https://shop.example/back' };
    const accepted = await shop.post('/v1/authorise', { ...apm, delivery_street_name: 'Rua A', person: { social_name: 'Ana' } });
    expect([accepted.status, accepted.body.result_info]).toEqual([200, '1002:Redirect the shopper to issuer_url']);
    const before = await stored();
    for (const [extra, path] of [
      [{ person: { social_name: 'Ana', colour: 'red' } }, 'person.colour'],
      [{ accept: 'text/html' }, 'accept'],
      [{ cart_items: [{ basic_item_data: { name: 'Tee' } }] }, 'cart_items'],
    ] as const) {
      const refused = await shop.post('/v1/authorise', { ...apm, order_no: orderNo('APM'), ...extra });
      expect([refused.status, refused.body.result_info]).toEqual([400, notAField(path)]);
    }
    expect(await stored()).toEqual(before);
  });

  it('refuses an unknown field of /v1/checkout and still serves the hand-off post', async () => {
    const before = await stored();
    const refused = await shop.post('/v1/checkout', checkout({ colour: 'red' }));
    expect([refused.status, refused.body.result_info]).toEqual([400, notAField('colour')]);
    expect(await stored()).toEqual(before);

    const page = await shop.post('/v1/checkout', checkout());
    expect(page.status).toBe(200);
    const handOff = await gw.gateway.server.app.inject({
      method: 'POST',
      url: '/v1/checkout',
      payload: new URLSearchParams(hiddenFields(page.raw)).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(handOff.statusCode).toBe(303);
  });

  it('refuses an unknown field of a batch order record, and of a query, in their own format', async () => {
    const paid = await shop.post('/v1/authorise', cardPayment(shop.ids));
    const order = { transaction_id: paid.body.transaction_id, order_no: paid.body.order_no, currency: 'USD', amount: '10.00' };
    const before = await stored();
    const refund = await shop.post('/v1/refund', { ...shop.ids, refund_orders: [{ ...order, refund_amount: '1.00' }, { ...order, refund_amount: '1.00', note: 'x' }] });
    expect([refund.status, refund.body.return_status, refund.body.return_message]).toEqual([400, '0', notAField('refund_orders[1].note')]);
    const capture = await shop.post('/v1/capture', { ...shop.ids, capture_orders: [order], notify_url: receiver.url });
    expect([capture.status, capture.body.return_message]).toEqual([400, notAField('notify_url')]);
    expect(await stored()).toEqual(before);

    // From a registered address: any other is answered 403 whatever the request holds (test/api/query.test.ts).
    await allowQueriesFrom(gw, [shop], '127.0.0.1');
    const query = await shop.post('/v1/retrievalTrans', { ...shop.ids, order_no: order.order_no, status: '1' }, { remoteAddress: '127.0.0.1' });
    expect([query.status, query.body.return_message]).toEqual([400, notAField('status')]);
  });
});

describe('card numbers typed into free text are masked (issue 8, item 7)', () => {
  const VISA = '4111111111111111';
  const MASTERCARD = '5555555555554444';
  const AMEX = '378282246310005';
  const clear = (text: string) => text.replace(/[ -]/g, '');
  const holdsNoCard = (text: string) => {
    for (const card of [VISA, MASTERCARD, AMEX]) expect(clear(text)).not.toContain(card);
  };

  it('masks them before storing, echoing, logging and notifying; identifiers are left alone', async () => {
    const order = `ORD-${VISA}`;
    const body = cardPayment(shop.ids, {
      order_no: order,
      notify_url: receiver.url,
      note: 'please charge 4111 1111 1111 1111 next time',
      first_name: `Ana ${MASTERCARD}`,
      billing_address: `Rua ${AMEX}-1`,
      custom: `card=${VISA};`,
      items: `Tee ${MASTERCARD}#,#SKU-1#,#10.00#,#1`,
      cart_items: [{ basic_item_data: { name: `Mug 5555-5555-5555-4444` } }],
      account_owner: [{ last_name: `Lima ${VISA}` }],
    });
    const answer = await shop.post('/v1/authorise', body);
    expect([answer.status, answer.body.result_info]).toEqual([200, '0000:Success']);
    expect(answer.body.note).toBe('please charge 411111******1111 next time');
    expect(answer.body.order_no).toBe(order);

    const [payment] = await rows('SELECT * FROM payments WHERE order_no = $1', [order]);
    const request = payment!.request as Record<string, any>;
    expect(request).toMatchObject({
      note: 'please charge 411111******1111 next time',
      first_name: 'Ana 555555******4444',
      billing_address: 'Rua 378282*****0005-1',
      custom: 'card=411111******1111;',
      items: 'Tee 555555******4444#,#SKU-1#,#10.00#,#1',
      cart_items: [{ basic_item_data: { name: 'Mug 555555******4444' } }],
      account_owner: [{ last_name: 'Lima 411111******1111' }],
    });
    holdsNoCard(JSON.stringify(request).replaceAll(order, ''));

    await deliverDueNotifications(gw.gateway.deps);
    const sent = receiver.received.filter((r) => r.body.order_no === order);
    expect(sent.length).toBeGreaterThan(0);
    for (const notification of sent) holdsNoCard(notification.raw.replaceAll(order, ''));
    holdsNoCard(gw.logs.text.replaceAll(order, ''));
  });

  it('masks them in what the hand-off page echoes and in a refund_reason', async () => {
    const page = await shop.post('/v1/checkout', checkout({ note: `gift ${VISA}`, delivery_address: `Av ${AMEX}` }));
    const fields = new Map(hiddenFields(page.raw));
    expect(fields.get('note')).toBe('gift 411111******1111');
    expect(fields.get('remark')).toBe('gift 411111******1111');
    expect(fields.get('delivery_address')).toBe('Av 378282*****0005');
    holdsNoCard(page.raw);

    const paid = await shop.post('/v1/authorise', cardPayment(shop.ids));
    const refund = await shop.post('/v1/refund', {
      ...shop.ids,
      refund_orders: [{ transaction_id: paid.body.transaction_id, order_no: paid.body.order_no, currency: 'USD', amount: '10.00', refund_amount: '1.00', refund_reason: `typo ${MASTERCARD}` }],
    });
    expect(refund.body.refund_orders[0]).toMatchObject({ refund_status: '1', refund_reason: 'typo 555555******4444' });
    const [row] = await rows('SELECT reason FROM refunds WHERE payment_id = $1', [paid.body.transaction_id]);
    expect(row!.reason).toBe('typo 555555******4444');
  });

  it('masks one typed in full-width digits (a CJK input method), mixed with ASCII digits and full-width separators', async () => {
    const wide = (text: string) => text.replace(/[0-9]/g, (digit) => String.fromCharCode(digit.charCodeAt(0) + 0xff10 - 0x30));
    const clearAscii = (text: string) => clear(text.replace(/[\uff10-\uff19]/g, (digit) => String.fromCharCode(digit.charCodeAt(0) - 0xff10 + 0x30)).replace(/[\u3000\uff0d]/g, ''));
    const note = `请用卡 ${wide('4111')}\u3000${wide('1111')}\u30001111\u3000${wide('1111')} 付款`;
    const order = orderNo('FW');
    const paid = await shop.post('/v1/authorise', cardPayment(shop.ids, { order_no: order, note, first_name: wide('5555－5555－5555－4444') }));
    expect([paid.status, paid.body.note]).toEqual([200, '请用卡 411111******1111 付款']);
    const [payment] = await rows('SELECT request FROM payments WHERE order_no = $1', [order]);
    expect(payment!.request).toMatchObject({ note: '请用卡 411111******1111 付款', first_name: '555555******4444' });
    for (const card of [VISA, MASTERCARD]) expect(clearAscii(JSON.stringify(payment!.request))).not.toContain(card);

    const refund = await shop.post('/v1/refund', {
      ...shop.ids,
      refund_orders: [{ transaction_id: paid.body.transaction_id, order_no: order, currency: 'USD', amount: '10.00', refund_amount: '1.00', refund_reason: `误填 ${wide(AMEX)}` }],
    });
    expect(refund.body.refund_orders[0]).toMatchObject({ refund_status: '1', refund_reason: '误填 378282*****0005' });
    const [row] = await rows('SELECT reason FROM refunds WHERE payment_id = $1', [paid.body.transaction_id]);
    expect(row!.reason).toBe('误填 378282*****0005');
    expect(clearAscii(gw.logs.text)).not.toContain(AMEX);
  });

  it('masks one typed in other digit scripts (Arabic-Indic, Persian, Devanagari) with en dashes, minus signs or ー between groups', async () => {
    const script = (zero: number) => (text: string) => text.replace(/[0-9]/g, (digit) => String.fromCodePoint(zero + Number(digit)));
    const [arabic, persian, devanagari] = [script(0x660), script(0x6f0), script(0x966)];
    const toAscii = (text: string) =>
      [0x660, 0x6f0, 0x966].reduce((typed, zero) => typed.replace(/\p{Nd}/gu, (digit) => (digit.codePointAt(0)! - zero >= 0 && digit.codePointAt(0)! - zero <= 9 ? String(digit.codePointAt(0)! - zero) : digit)), text);
    const clearAll = (text: string) => clear(toAscii(text).replace(/[\u2013\u2212\u30fc]/g, ''));
    const note = `البطاقة ${arabic('4111–1111–1111–1111')} شكرا`;
    const order = orderNo('ND');
    const paid = await shop.post('/v1/authorise', cardPayment(shop.ids, { order_no: order, note, first_name: `${persian('5555')}\u2212${persian('5555')}\u2212${persian('5555')}\u2212${persian('4444')}`, billing_address: 'カード4111ー1111ー1111ー1111' }));
    expect([paid.status, paid.body.note]).toEqual([200, 'البطاقة 411111******1111 شكرا']);
    const [payment] = await rows('SELECT request FROM payments WHERE order_no = $1', [order]);
    expect(payment!.request).toMatchObject({ note: 'البطاقة 411111******1111 شكرا', first_name: '555555******4444', billing_address: 'カード411111******1111' });
    for (const card of [VISA, MASTERCARD]) expect(clearAll(JSON.stringify(payment!.request))).not.toContain(card);

    const refund = await shop.post('/v1/refund', {
      ...shop.ids,
      refund_orders: [{ transaction_id: paid.body.transaction_id, order_no: order, currency: 'USD', amount: '10.00', refund_amount: '1.00', refund_reason: `गलती ${devanagari(AMEX)}` }],
    });
    expect(refund.body.refund_orders[0]).toMatchObject({ refund_status: '1', refund_reason: 'गलती 378282*****0005' });
    const [row] = await rows('SELECT reason FROM refunds WHERE payment_id = $1', [paid.body.transaction_id]);
    expect(row!.reason).toBe('गलती 378282*****0005');
    expect(clearAll(gw.logs.text)).not.toContain(AMEX);
    // Not a card number (a wrong check digit): left as typed, in its script and with its dashes.
    const other = await shop.post('/v1/authorise', cardPayment(shop.ids, { note: `مرجع ${arabic('4111–1111–1111–1112')}` }));
    expect(other.body.note).toBe(`مرجع ${arabic('4111–1111–1111–1112')}`);
  });

  it('leaves a number that fails the Luhn check, or has no brand, as it was typed', async () => {
    const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { note: 'ref 4111111111111112 and 9999 9999 9999 9995' }));
    expect(answer.body.note).toBe('ref 4111111111111112 and 9999 9999 9999 9995');
  });
});
