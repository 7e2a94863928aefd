// What happens before an operation sees the body: size, readability, XML safety, duplicate keys,
// and the per-account rate limit (docs/api/authorise.md, Request and Refused request).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign } from '../../src/domain/signature.ts';
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

const paymentCount = async () => Number((await gw.database.query<{ n: string }>('SELECT count(*)::text AS n FROM payments'))[0]!.n);

describe('bodies', () => {
  it('refuses a body over 1 MiB with 413', async () => {
    const body = cardPayment(shop.ids, { custom: 'x'.repeat(1024 * 1024) });
    const answer = await shop.postRaw('/v1/authorise', JSON.stringify(body), 'application/json');
    expect(answer.status).toBe(413);
    expect(answer.body.result_info).toBe('4413:Body larger than 1 MiB');
  });

  it('refuses unreadable JSON and XML with 415, and non-UTF-8 bytes', async () => {
    expect((await shop.postRaw('/v1/authorise', '{"merchant_id": "M1",', 'application/json')).status).toBe(415);
    expect((await shop.postRaw('/v1/authorise', '<request><merchant_id>M1</request>', 'application/xml')).status).toBe(415);
    const latin1 = await shop.postRaw('/v1/authorise', Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]), 'application/json');
    expect([latin1.status, latin1.body.result_info]).toEqual([415, '4415:body is not valid UTF-8']);
  });

  it('refuses XML with a DOCTYPE or entities (400), even when correctly signed', async () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/passwd">]><request><merchant_id>${shop.ids.merchant_id}</merchant_id><note>&e;</note></request>`;
    const answer = await shop.postRaw('/v1/authorise', xml, 'application/xml');
    expect([answer.status, answer.body.result_info]).toEqual([400, '4013:DOCTYPE and entity declarations are not accepted']);
  });

  it('names an undefined entity with its digit runs masked, as a card number in a name would be', async () => {
    const xml = `<request><merchant_id>${shop.ids.merchant_id}</merchant_id><note>&a4111111111111111;</note></request>`;
    const answer = await shop.postRaw('/v1/authorise', xml, 'application/xml');
    expect([answer.status, answer.body.result_info]).toEqual([400, '4013:undefined entity &a411111******1111; in XML']);
    expect(answer.raw).not.toContain('4111111111111111');
    expect(gw.logs.text).not.toContain('4111111111111111');
  });

  it('refuses duplicate JSON keys (400) rather than picking one', async () => {
    const body = cardPayment(shop.ids);
    const signed = { ...body, encryption_data: sign(body as never, shop.secret) };
    const text = JSON.stringify(signed).replace('"amount":"10.00"', '"amount":"10.00","amount":"1000.00"');
    const answer = await shop.postRaw('/v1/authorise', text, 'application/json');
    expect([answer.status, answer.body.result_info]).toEqual([400, '4014:duplicate key amount in JSON body']);
  });

  it('reads JSON sent with a form content type, and a form sent as text/plain', async () => {
    const before = await paymentCount();
    expect((await shop.post('/v1/authorise', cardPayment(shop.ids), { format: 'json-as-form' })).body.result_info).toBe('0000:Success');
    expect((await shop.post('/v1/authorise', cardPayment(shop.ids), { format: 'form', headers: { 'content-type': 'text/plain' } })).body.result_info).toBe('0000:Success');
    expect((await shop.post('/v1/authorise', cardPayment(shop.ids), { format: 'xml', headers: { 'content-type': 'application/octet-stream' } })).body.result_info).toBe('0000:Success');
    expect(await paymentCount()).toBe(before + 3);
  });

  it('reads a body whose Content-Type is no media type at all (json, empty, a stray semicolon), or is absent', async () => {
    const before = await paymentCount();
    for (const type of ['json', '', 'application/json;;', 'xml']) {
      const answer = await shop.post('/v1/authorise', cardPayment(shop.ids), { headers: { 'content-type': type } });
      expect([type, answer.status, answer.body.result_info]).toEqual([type, 200, '0000:Success']);
    }
    const body = cardPayment(shop.ids);
    const response = await gw.gateway.server.app.inject({ method: 'POST', url: '/v1/authorise', payload: JSON.stringify({ ...body, encryption_data: sign(body as never, shop.secret) }) });
    expect(response.statusCode).toBe(200);
    expect(await paymentCount()).toBe(before + 5);
  });

  it('answers a body with no fields with 400 naming merchant_id', async () => {
    const answer = await shop.postRaw('/v1/authorise', '', 'application/x-www-form-urlencoded');
    expect([answer.status, answer.body.result_info]).toEqual([400, '4001:merchant_id is required']);
  });
});

describe('rate limit per account', () => {
  it('answers 429 with Retry-After past the account limit, and leaves other accounts alone', async () => {
    const limited = await gw.merchant({ rateLimitPerSecond: 5 });
    const bystander = await gw.merchant({ rateLimitPerSecond: 5 });
    const answers = await Promise.all(Array.from({ length: 8 }, () => limited.post('/v1/authorise', cardPayment(limited.ids))));
    const refused = answers.filter((a) => a.status === 429);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(refused).toHaveLength(3);
    expect(Number(refused[0]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused[0]!.body.result_info).toMatch(/^4429:/);
    expect(refused[0]!.signed).toBe(true);
    expect((await bystander.post('/v1/authorise', cardPayment(bystander.ids))).status).toBe(200);
  });

  it('allows the documented floor of 100 requests per second by default', () => {
    expect(gw.config.rateLimitPerSecond).toBeGreaterThanOrEqual(100);
  });
});
