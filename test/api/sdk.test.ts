// The SDK against a real listening gateway: what a merchant's app does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcquiroClient, AnswerError, sign, verifyNotification } from '../../src/sdk/index.ts';
import { orderNo } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let client: AcquiroClient;
let secret: string;

beforeAll(async () => {
  gw = await startTestGateway();
  const { credentials } = await gw.merchant();
  secret = credentials.secret_key;
  const url = await gw.gateway.server.app.listen({ port: 0, host: '127.0.0.1' });
  client = new AcquiroClient({ baseUrl: url, merchantId: credentials.merchant_id, accountId: credentials.account_id, secretKey: credentials.secret_key });
});
afterAll(() => gw?.close());

const card = { card: '4111111111111111', expiration_month: '12', expiration_year: '2030', security_code: '123' };

describe('AcquiroClient', () => {
  it('pays and verifies the answer', async () => {
    const answer = await client.authorise({ order_no: orderNo(), currency: 'EUR', amount: '25.00', ...card });
    expect(answer).toMatchObject({ order_status: '1', result_info: '0000:Success', amount: '25.00', card: '411111******1111' });
    expect(answer.risk_reasons.length).toBeGreaterThan(0);
  });

  it('resolves a decline (it is a 200) and rejects a refusal with its code', async () => {
    const declined = await client.authorise({ order_no: orderNo(), currency: 'EUR', amount: '25.00', ...card, card: '4000000000000002' });
    expect(declined.order_status).toBe('0');
    const refused = await client.authorise({ order_no: orderNo(), currency: 'EUR', amount: '25,00', ...card }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AnswerError);
    expect((refused as AnswerError).status).toBe(400);
    expect((refused as AnswerError).message).toMatch(/4002:amount is invalid/);
  });

  it('refuses an answer that does not verify', async () => {
    const wrongKey = new AcquiroClient({ baseUrl: 'http://unused', merchantId: 'M', accountId: 'A', secretKey: 'other', fetch: async () => new Response('<respon><order_status>1</order_status><encryption_data>00</encryption_data></respon>') });
    await expect(wrongKey.authorise({ order_no: 'x', currency: 'EUR', amount: '1.00' })).rejects.toThrow(/does not verify/);
  });
});

describe('verifyNotification', () => {
  const now = new Date('2026-11-22T12:00:00Z');
  const body = (sentAt: number) => {
    const fields = { notify_id: 'EV1', notify_type: 'payment.captured', transaction_id: 'T1', notify_time: String(sentAt) };
    return { ...fields, encryption_data: sign(fields, secret) };
  };
  it('accepts a fresh, correctly signed body and refuses a stale or forged one', () => {
    const t = now.getTime() / 1000;
    expect(verifyNotification(body(t - 10), secret, { now })).toBe(true);
    expect(verifyNotification(body(t - 301), secret, { now })).toBe(false);
    expect(verifyNotification({ ...body(t), transaction_id: 'T2' }, secret, { now })).toBe(false);
  });
});
