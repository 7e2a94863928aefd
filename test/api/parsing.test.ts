// What a body costs and may hold before any credential is checked: a form's size is bounded and
// read in linear time, nesting is bounded in every format, and text the database cannot store (a
// NUL, an unpaired surrogate) is refused naming its field — in a batch, as that order's refusal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign } from '../../src/domain/signature.ts';
import type { SignedClient } from '../support/client.ts';
import { cardPayment } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { BATCH_PATHS, batch, orderOf, pay } from '../support/lifecycle.ts';

let gw: TestGateway;
let shop: SignedClient;

beforeAll(async () => {
  gw = await startTestGateway();
  shop = await gw.merchant({ rateLimitPerSecond: 10_000 });
});
afterAll(() => gw?.close());

const paymentCount = async () => Number((await gw.database.query<{ n: string }>('SELECT count(*)::text AS n FROM payments'))[0]!.n);
const signed = (body: Record<string, unknown>) => ({ ...body, encryption_data: sign(body as never, shop.secret) });
const BAD_TEXT = 'is invalid: expected text without NUL characters or unpaired surrogates';

describe('form bodies', () => {
  it('answers five 97 KB forms of 10,000 list entries at once with 400, in a blink, and /health meanwhile', async () => {
    const body = `merchant_id=${shop.ids.merchant_id}&${Array.from({ length: 9999 }, (_, i) => `x[${i}]=1`).join('&')}`;
    expect(body.length).toBeGreaterThan(97_000);
    const started = performance.now();
    const [health, ...answers] = await Promise.all([
      gw.gateway.server.app.inject({ method: 'GET', url: '/health' }),
      ...Array.from({ length: 5 }, () => shop.postRaw('/v1/authorise', body)),
    ]);
    const ms = performance.now() - started;
    expect(health.statusCode).toBe(200);
    for (const answer of answers) expect([answer.status, answer.body.result_info]).toEqual([400, '4010:x holds more than 100 entries: at most 100 per list']);
    // qs took 1.3-2.5 s per body here, 6-12 s for the five; a wide margin for a loaded machine.
    expect(ms).toBeLessThan(2000);
  });

  it('refuses more fields than any operation takes, quickly, and still reads a full batch of 100 orders', async () => {
    const many = Array.from({ length: 10_000 }, (_, i) => `k${i}=1`).join('&');
    const refused = await shop.postRaw('/v1/authorise', many);
    expect([refused.status, refused.body.result_info]).toEqual([400, '4000:form body holds more than 5000 fields']);
    const txn = await pay(shop);
    const orders = Array.from({ length: 100 }, () => orderOf(txn));
    const answer = await batch(shop, 'capture_orders', orders, { format: 'form' });
    expect([answer.status, answer.body.capture_orders.length]).toEqual([200, 100]);
  });

  it('refuses an XML element given twice where no list is declared, at the top and in a batch order, as JSON and forms do', async () => {
    const xml = (fields: string) => `<request><merchant_id>${shop.ids.merchant_id}</merchant_id>${fields}</request>`;
    const top = await shop.postRaw('/v1/authorise', xml('<amount>10.00</amount><amount>1000.00</amount>'), 'application/xml');
    expect([top.status, top.body.result_info]).toEqual([400, '4014:amount is given more than once']);
    const order = '<transaction_id>T1</transaction_id><refund_amount>1.00</refund_amount>';
    const nested = await shop.postRaw('/v1/refund', xml(`<refund_orders>${order}</refund_orders><refund_orders>${order}<refund_amount>9.00</refund_amount></refund_orders>`), 'application/xml');
    expect([nested.status, nested.body.return_message]).toEqual([400, '4014:refund_orders[1].refund_amount is given more than once']);
  });

  it('refuses a parameter given twice rather than reading it as a list', async () => {
    const text = `merchant_id=${shop.ids.merchant_id}&amount=10.00&amount=1000.00`;
    const answer = await shop.postRaw('/v1/authorise', text);
    expect([answer.status, answer.body.result_info]).toEqual([400, '4014:amount is given more than once']);
  });
});

describe('nesting', () => {
  it('refuses JSON 5,000 lists deep and XML 1,000 elements deep with 400, not 500', async () => {
    const json = `{"merchant_id":"${shop.ids.merchant_id}","note":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const xml = `<request><merchant_id>${shop.ids.merchant_id}</merchant_id>${'<note>'.repeat(1000)}x${'</note>'.repeat(1000)}</request>`;
    const form = `merchant_id=${shop.ids.merchant_id}&note${'[a]'.repeat(50)}=x`;
    for (const [payload, type] of [[json, 'application/json'], [xml, 'application/xml'], [form, 'application/x-www-form-urlencoded']]) {
      const answer = await shop.postRaw('/v1/authorise', payload!, type);
      expect([answer.status, answer.body.result_info]).toEqual([400, '4000:body nests deeper than 8 levels']);
    }
  });

  it('still takes the deepest field of every operation', async () => {
    const before = await paymentCount();
    const item = { basic_item_data: { name: 'Mug', quantity: '1', price: { amount_usd: '10.00', currency: 'USD' } } };
    for (const format of ['json', 'form', 'xml'] as const) {
      const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { cart_items: [item] }), { format });
      expect(answer.body.result_info).toBe('0000:Success');
    }
    expect(await paymentCount()).toBe(before + 3);
  });
});

describe('XML element names that are JavaScript internals', () => {
  it.each(['__proto__', 'constructor', 'prototype'])('refuses <%s> with 400, not 500, at the top or in a batch order', async (name) => {
    const top = `<request><merchant_id>${shop.ids.merchant_id}</merchant_id><${name}><amount>0.01</amount></${name}></request>`;
    const nested = `<request><merchant_id>${shop.ids.merchant_id}</merchant_id><capture_orders><${name}>1</${name}></capture_orders></request>`;
    for (const [path, xml] of [['/v1/authorise', top], ['/v1/capture', nested]] as const) {
      const answer = await shop.postRaw(path, xml, 'application/xml');
      const info = path === '/v1/authorise' ? answer.body.result_info : answer.body.return_message;
      expect([answer.status, info]).toEqual([400, `4000:element ${name} is not accepted`]);
    }
    expect(gw.logs.text).not.toContain('"msg":"request failed"');
  });

  it.each(['toString', 'hasOwnProperty', 'valueOf'])('reads <%s> under its own name: a signed body is refused 4019 naming it, as in JSON', async (name) => {
    for (const format of ['xml', 'json'] as const) {
      const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { [name]: 'x' }), { format });
      expect([format, answer.status, answer.body.result_info]).toEqual([format, 400, `4019:${name} is not a field of this request`]);
    }
  });
});

describe('empty batch lists', () => {
  it.each(Object.entries(BATCH_PATHS))('refuses an empty XML %s 4010 naming the list, as an empty JSON list', async (list, path) => {
    const limit = list === 'capture_orders' || list === 'review_orders' ? 100 : 50;
    const expected = [400, '0', `4010:${list} holds 0 orders: 1 to ${limit} per request`];
    const json = await shop.post(path, { ...shop.ids, [list]: [] });
    expect([json.status, json.body.return_status, json.body.return_message]).toEqual(expected);
    const ids = `<merchant_id>${shop.ids.merchant_id}</merchant_id><account_id>${shop.ids.account_id}</account_id>`;
    // An empty list signs as no field: the signature covers the ids alone.
    const signature = `<encryption_data>${sign(shop.ids as never, shop.secret)}</encryption_data>`;
    for (const element of [`<${list}/>`, `<${list}></${list}>`]) {
      const answer = await shop.postRaw(path, `<request>${ids}${element}${signature}</request>`, 'application/xml');
      expect([answer.status, answer.body.return_status, answer.body.return_message], element).toEqual(expected);
    }
  });
});

describe('text the database cannot store', () => {
  it.each([
    ['a JSON \\u0000', 'json', '\0'],
    ['a JSON lone surrogate', 'json', '\uD800'],
    ['a form %00', 'form', 'a\0b'],
  ] as const)('refuses %s in note with 400 naming the field, nothing stored', async (_name, format, text) => {
    const before = await paymentCount();
    const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { note: `gift ${text}` }), { format });
    expect([answer.status, answer.body.result_info]).toEqual([400, `4002:note ${BAD_TEXT}`]);
    expect(await paymentCount()).toBe(before);
  });

  it.each([
    ['&#0;', '\0'],
    ['&#xD800;', '\uD800'],
  ])('refuses XML %s in a nested field with 400 naming it, nothing stored', async (reference, text) => {
    const before = await paymentCount();
    const body = signed(cardPayment(shop.ids, { cart_items: [{ basic_item_data: { name: `Mug${text}` } }] }));
    const fields = Object.entries(body)
      .filter(([key]) => key !== 'cart_items')
      .map(([key, value]) => `<${key}>${String(value)}</${key}>`)
      .join('');
    const xml = `<request>${fields}<cart_items><basic_item_data><name>Mug${reference}</name></basic_item_data></cart_items></request>`;
    const answer = await shop.postRaw('/v1/authorise', xml, 'application/xml');
    expect([answer.status, answer.body.result_info]).toEqual([400, `4002:cart_items[0].basic_item_data.name ${BAD_TEXT}`]);
    expect(await paymentCount()).toBe(before);
  });

  it('refuses a NUL in one order of a batch as that order\'s refusal, and refunds the others', async () => {
    const [first, second] = [await pay(shop), await pay(shop)];
    const answer = await batch(shop, 'refund_orders', [
      orderOf(first, { refund_amount: '10.00', refund_reason: 'broken\0' }),
      orderOf(second, { refund_amount: '10.00', refund_reason: 'returned' }),
    ]);
    expect(answer.status).toBe(200);
    expect(answer.body.refund_orders.map((entry: Record<string, string>) => [entry.refund_status, entry.error_message])).toEqual([
      ['0', `4002:refund_reason ${BAD_TEXT}`],
      ['1', ''],
    ]);
  });

  it('refuses a NUL in the transaction_id of one order of a capture, cancel or review batch as that order\'s refusal, and does the others', async () => {
    const manual = await gw.merchant({ captureMode: 'manual', rateLimitPerSecond: 10_000 });
    const cases = [
      { list: 'capture_orders', status: 'capture_status', order: orderOf(await pay(manual)) },
      { list: 'cancel_orders', status: 'cancel_status', order: orderOf(await pay(manual)) },
      { list: 'review_orders', status: 'review_status', order: orderOf(await pay(manual, { card: '4000000000004954' }), { review_flag: '1' }) },
    ] as const;
    for (const { list, status, order } of cases) {
      const answer = await batch(manual, list, [{ ...order, transaction_id: `${order.transaction_id}\0` }, order]);
      expect([list, answer.status]).toEqual([list, 200]);
      expect(answer.body[list].map((entry: Record<string, string>) => [entry[status], entry.error_message])).toEqual([
        ['0', `4002:transaction_id ${BAD_TEXT}`],
        ['1', ''],
      ]);
    }
  });
});
