// Properties: the SDK's signature and the gateway's agree on every body docs/signing.md defines,
// with the values that break naive implementations (`%`, `&`, `=`, escapes that look done
// already, non-ASCII, astral characters, line breaks, empty values, nested objects and lists).
// Requests the SDK signs verify at the gateway; answers (XML and JSON, as the gateway writes
// them) and notifications (as the gateway posts them) verify in the SDK; and through a listening
// gateway, the client's payments with such values are accepted and their echoes verify.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationBody } from '../../../src/app/notifications/deliver.ts';
import { canonicalString as gatewayCanonical, sign as gatewaySign, verify as gatewayVerify, type SignedBody } from '../../../src/domain/signature.ts';
import { toXml, xmlText } from '../../../src/http/encoders/xml.ts';
import { GATEWAY_RETURN_NAMES } from '../../../src/domain/return-fields.ts';
import { orderNo } from '../../../test/support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { shopper } from '../../../test/support/shopper.ts';
import { AcquiroClient, canonicalString, parseAnswer, sign, verify, verifyNotification, verifyReturn } from '../src/index.ts';

const SECRET = 'sk_test_4f3c2b1a';

/** Text a merchant's customers type, and text built to look like separators or escapes. */
const awkward = fc.oneof(
  fc.constantFrom('', ' ', '%', '&', '=', '%26', '%3D', '%25', 'a&b=c%d', 'x&notify_url=https://evil.example/?a=1%', '100% cotton', 'Zoë Ånström', '東京都', '😀 gift', '+ ?#/ <b>&amp;</b>', ']]>', 'line one\r\nline two', 'bell\u0007', '\tta b\n'),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: fc.constantFrom('%', '&', '=', '2', '5', '6', 'D', ' ', 'é', '😀', '\r', '\n'), maxLength: 12 }),
);
/** A field name as docs/signing.md allows them: letters, digits and `_`. */
const fieldName = fc.stringMatching(/^[A-Za-z0-9_]{1,6}$/).filter((name) => name !== 'encryption_data');
/** The names of answer fields, which are also XML element names: none begins with a digit. */
const answerName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,5}$/).filter((name) => name !== 'encryption_data' && name !== 'risk_reasons');
const leaf = fc.oneof({ weight: 4, arbitrary: awkward }, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
const tree = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('node'), { maxLength: 12 }), fc.dictionary(fieldName, tie('node'), { maxKeys: 5 })),
})).node;
const body = fc.dictionary(fieldName, tree, { maxKeys: 8 });

/** The body as it crosses the wire in JSON: what the receiving side parses. */
const overJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('the SDK and the gateway sign alike', () => {
  it('builds the same canonical string and signature for any body', () => {
    fc.assert(
      fc.property(body, (fields) => {
        const sent = overJson(fields);
        expect(canonicalString(sent)).toBe(gatewayCanonical(sent as SignedBody));
        expect(sign(sent, SECRET)).toBe(gatewaySign(sent as SignedBody, SECRET));
      }),
      { numRuns: 500 },
    );
  });

  it('a request the SDK signs verifies at the gateway, and one changed after signing does not', () => {
    fc.assert(
      fc.property(body, awkward, (fields, extra) => {
        const signed = overJson({ ...fields, encryption_data: sign(fields, SECRET) });
        expect(gatewayVerify(signed as SignedBody, SECRET)).toBe(true);
        // A value moved into a field of its own, or one more field: never the same signature.
        const changed = { ...signed, zz_added: extra === '' ? 'x' : extra };
        expect(gatewayVerify(changed as SignedBody, SECRET)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('an XML answer as the gateway writes it verifies in the SDK, with its values read back as signed', () => {
    const answerField = fc.oneof(awkward, fc.array(fc.record({ name: awkward, status: awkward }), { maxLength: 3 }));
    fc.assert(
      fc.property(fc.dictionary(answerName, awkward, { maxKeys: 8 }), answerField, (fields, reasons) => {
        // As sendAnswer (src/http/operation.ts): the text XML can carry, signed, then written.
        const answer = xmlText({ ...fields, order_status: '1', risk_reasons: Array.isArray(reasons) ? reasons : [{ name: reasons, status: 'pass' }] });
        const xml = toXml('respon', { ...answer, encryption_data: gatewaySign(answer as SignedBody, SECRET) });
        const read = parseAnswer(xml);
        expect(verify(read, SECRET)).toBe(true);
        for (const [name, value] of Object.entries(answer)) if (name !== 'risk_reasons' && value !== '') expect(read[name]).toBe(value);
      }),
      { numRuns: 500 },
    );
  });

  it('a JSON answer as the gateway writes it verifies in the SDK', () => {
    fc.assert(
      fc.property(body, (fields) => {
        const text = JSON.stringify({ ...fields, encryption_data: gatewaySign(fields as SignedBody, SECRET) });
        expect(verify(parseAnswer(text), SECRET)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('a notification as the gateway posts it verifies with verifyNotification', () => {
    const now = new Date('2026-11-24T12:00:00Z');
    fc.assert(
      fc.property(body, fc.integer({ min: -300, max: 300 }), (payload, skew) => {
        const claim = { id: 'EV01', payload: { ...payload, notify_type: 'payment.captured' }, notifyTime: String(now.getTime() / 1000 + skew) };
        const posted = JSON.parse(JSON.stringify(notificationBody(claim as never, SECRET))) as unknown;
        expect(verifyNotification(posted, SECRET, { now })).toBe(true);
        expect(verifyNotification(posted, 'another key', { now })).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('through a listening gateway', () => {
  let gw: TestGateway;
  let client: AcquiroClient;
  let secret: string;
  beforeAll(async () => {
    gw = await startTestGateway();
    const url = await gw.gateway.server.app.listen({ port: 0, host: '127.0.0.1' });
    const { credentials } = await gw.merchant();
    client = new AcquiroClient({ baseUrl: url, merchantId: credentials.merchant_id, accountId: credentials.account_id, secretKey: credentials.secret_key });
    secret = credentials.secret_key;
  });
  afterAll(() => gw?.close());

  /** Free text the payment request takes (note, custom, names): no control characters, not blank. */
  const freeText = awkward.map((text) => text.replace(/[\p{Cc}]/gu, '').trim()).filter((text) => text !== '' && text.length <= 40);

  it('accepts the payments the SDK signs with such values, in nested objects and lists too, and its answers verify', async () => {
    await fc.assert(
      fc.asyncProperty(freeText, freeText, freeText, freeText, async (note, custom, lastName, item) => {
        const answer = await client.authorise({
          order_no: orderNo(),
          currency: 'EUR',
          amount: '12.00',
          card: '4111111111111111',
          expiration_month: '12',
          expiration_year: '2030',
          security_code: '123',
          note,
          custom,
          account_owner: [{ last_name: lastName, past_orders_count: 3 }],
          cart_items: [{ basic_item_data: { name: item, quantity: '1', price: { amount_usd: '12.00', currency: 'USD' } } }],
          subscription: { contract_name: item, contract_amount: '12.00', interval: 'month' },
        });
        expect(answer).toMatchObject({ order_status: '1', note, contract_name: item });
      }),
      { numRuns: 25 },
    );
  });

  it('signs the shopper return over the return_url own parameters, whatever they hold, and verifyReturn agrees', async () => {
    const parameter = fc.tuple(fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/).filter((name) => !GATEWAY_RETURN_NAMES.has(name)), awkward);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(parameter, { selector: ([name]) => name, maxLength: 4 }), async (own) => {
        const returnUrl = new URL('https://shop.example/back');
        for (const [name, value] of own) returnUrl.searchParams.append(name, value);
        const apm = await client.authoriseApm({ order_no: orderNo(), currency: 'EUR', amount: '3.00', payment_method: 'sandbox_redirect', return_url: returnUrl.href });
        const back = await shopper(gw.gateway.server.app).answer(apm.issuer_url, { action: 'approve' });
        const outcome = verifyReturn(back.location!, secret);
        expect(outcome).toMatchObject({ transaction_id: apm.transaction_id, order_status: '1', ...Object.fromEntries(own) });
        expect(verifyReturn(new URL(back.location!), secret)).toEqual(outcome);
      }),
      { numRuns: 20 },
    );
  });
});
