// In the sandbox a 401 shows the canonical string the gateway computed, card masked and CVC left
// out, so a developer can diff it against their own; in live mode it shows nothing of the body.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalString } from '../../src/domain/signature.ts';
import { cardPayment } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let sandbox: TestGateway;
let live: TestGateway;
beforeAll(async () => {
  [sandbox, live] = await Promise.all([
    startTestGateway(),
    startTestGateway({
      env: { ACQUIRO_MODE: 'live', DATABASE_URL: 'postgresql://unused/only-for-the-config-check', ACQUIRO_VAULT_KEYS: `k1:${randomBytes(32).toString('base64')}` },
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([sandbox?.close(), live?.close()]);
});

const WRONG = 'ab'.repeat(32);

describe('a refused signature', () => {
  it('in the sandbox, says which canonical string the gateway computed, with the card masked and no CVC', async () => {
    const shop = await sandbox.merchant();
    // The order number's digits are no card number (a Visa prefix, but 15 digits): they stay as sent.
    const body = cardPayment(shop.ids, {
      card: '4111111111111111',
      security_code: '737',
      note: 'for 5555 5555 5555 4444',
      order_no: 'ORD-c55673b5-0b5e-4485-9113-7365482c9ab4',
    });
    const answer = await shop.post('/v1/authorise', { ...body, encryption_data: WRONG });
    expect(answer.status).toBe(401);
    const info = answer.body.result_info as string;
    const expected = canonicalString({ ...body, card: '411111******1111', security_code: undefined, note: 'for 555555******4444' } as never);
    expect(info).toBe(`4401:encryption_data does not match the body; sandbox: the gateway signed "${expected}" (card masked, security_code left out, fields this request does not define as ***)`);
    expect(info).toContain('card=411111******1111&');
    expect(info).toContain('order_no=ORD-c55673b5-0b5e-4485-9113-7365482c9ab4"');
    expect(answer.raw).not.toMatch(/4111111111111111|5555 5555 5555 4444|5555555555554444|security_code=|=737/);
    expect(answer.signed).toBe(true);
  });

  it('in the sandbox, shows a field the request does not define by its name only, whatever it is called', async () => {
    const shop = await sandbox.merchant();
    // A CVC or a card number sent under a name the operation does not define: refused 4019 once
    // signed, and never shown back in a 401, however it is named or nested.
    const strays = { cvv: '737', cvc: '7373', cvv2: '738', card_cvv: '739', CVV: '741', pan_last: '4242', card_number: '4000056655665556' };
    const body = cardPayment(shop.ids, { ...strays, subscription: { cvc: '742', contract_name: 'Gold' }, cart_items: '743', security_code: '736' });
    const answer = await shop.post('/v1/authorise', { ...body, encryption_data: WRONG });
    expect(answer.status).toBe(401);
    const info = answer.body.result_info as string;
    for (const name of Object.keys(strays)) expect(info).toContain(`${name}=***&`);
    expect(info).toContain('subscription.contract_name=Gold&subscription.cvc=***"');
    // Text where the operation takes a list of objects is no field's value either.
    expect(info).toContain('&cart_items=***&');
    // The fields the operation defines still read as the gateway signed them.
    expect(info).toContain(`&order_no=${body.order_no as string}&`);
    expect(info).toContain('card=411111******1111&');
    // Everything the answer says but its own signature, the order number left out (random digits).
    const said = JSON.stringify({ ...answer.body, encryption_data: '' }).replaceAll(body.order_no as string, '');
    expect(said).not.toMatch(/73[6-9]|74[1-3]|4242|5556|security_code=/);
  });

  it('in the sandbox, explains a batch refusal in return_message too', async () => {
    const shop = await sandbox.merchant();
    const body = { ...shop.ids, capture_orders: [{ transaction_id: 'T1', order_no: 'O1', currency: 'USD', amount: '1.00' }] };
    const answer = await shop.post('/v1/capture', { ...body, encryption_data: WRONG });
    expect(answer.body.return_message).toBe(
      `4401:encryption_data does not match the body; sandbox: the gateway signed "${canonicalString(body as never)}" (card masked, security_code left out, fields this request does not define as ***)`,
    );
  });

  it('in live mode, says only that the signature does not match', async () => {
    const shop = await live.merchant();
    const body = cardPayment(shop.ids, { card: '4111111111111111' });
    const answer = await shop.post('/v1/authorise', { ...body, encryption_data: WRONG });
    expect([answer.status, answer.body.result_info]).toEqual([401, '4401:encryption_data does not match the body']);
    expect(answer.raw).not.toContain('411111');
    const missing = await shop.post('/v1/authorise', { ...body, encryption_data: '' });
    expect([missing.status, missing.body.result_info]).toEqual([401, '4401:encryption_data is required']);
  });
});
