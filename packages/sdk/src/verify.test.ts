import { describe, expect, it } from 'vitest';
import { verifyNotification } from './notifications.js';
import { verifyReturn } from './shopper-return.js';
import { sign } from './signature.js';

const SECRET = 'sk_test_4f3c2b1a';
const now = new Date('2026-11-22T12:00:00Z');
const t = now.getTime() / 1000;

describe('verifyNotification', () => {
  const body = (sentAt: number | string) => {
    const fields = { notify_id: 'EV1', notify_type: 'payment.captured', transaction_id: 'T1', notify_time: sentAt, risk_reasons: [{ name: 'blocklist', status: 'pass' }] };
    return { ...fields, encryption_data: sign(fields, SECRET) };
  };

  it('accepts a correctly signed body sent within 300 s, whichever side of the clock', () => {
    expect(verifyNotification(body(String(t - 300)), SECRET, { now })).toBe(true);
    expect(verifyNotification(body(t + 300), SECRET, { now })).toBe(true);
    expect(verifyNotification(body(String(t - 10)), ['rotated', SECRET], { now })).toBe(true);
  });

  it('refuses a stale, future, forged, untimed or non-object body', () => {
    expect(verifyNotification(body(String(t - 301)), SECRET, { now })).toBe(false);
    expect(verifyNotification(body(String(t + 301)), SECRET, { now })).toBe(false);
    expect(verifyNotification(body(String(t - 400)), SECRET, { now, toleranceSeconds: 600 })).toBe(true);
    expect(verifyNotification({ ...body(String(t)), transaction_id: 'T2' }, SECRET, { now })).toBe(false);
    expect(verifyNotification(body(String(t)), 'another key', { now })).toBe(false);
    expect(verifyNotification(body('soon'), SECRET, { now })).toBe(false);
    expect(verifyNotification(null, SECRET, { now })).toBe(false);
    expect(verifyNotification('{}', SECRET, { now })).toBe(false);
  });
});

describe('verifyReturn', () => {
  const outcome = {
    shop_ref: 'cart 42',
    merchant_id: 'M100001',
    account_id: 'A100001',
    order_no: 'ORD-2026-0042',
    transaction_id: 'T01KB3Q1A9C7E5G3J1K9N7Q5S3V',
    amount: '42.50',
    currency: 'USD',
    order_status: '1',
    result_info: '0000:Success',
    payment_method: 'card',
    card: '411111******1111',
    token_id: '',
    threeds_result: '',
    return_time: String(t - 5),
  };
  const url = new URL('https://shop.example/return');
  for (const [name, value] of Object.entries(outcome)) url.searchParams.set(name, value);
  url.searchParams.set('encryption_data', sign(outcome, SECRET));

  it('accepts the signed outcome as a URL string, a URL, URLSearchParams, a query string or an object', () => {
    for (const query of [url.href, url, url.searchParams, url.search, Object.fromEntries(url.searchParams)]) {
      expect(verifyReturn(query, SECRET)).toMatchObject({ order_status: '1', transaction_id: outcome.transaction_id, shop_ref: 'cart 42' });
    }
  });

  it('refuses a changed or unsigned outcome, and one older than maxAgeSeconds when asked', () => {
    const changed = new URL(url.href);
    changed.searchParams.set('amount', '0.01');
    expect(verifyReturn(changed, SECRET)).toBeNull();
    const unsigned = new URL(url.href);
    unsigned.searchParams.delete('encryption_data');
    expect(verifyReturn(unsigned, SECRET)).toBeNull();
    expect(verifyReturn(`${url.href}&extra=1`, SECRET)).toBeNull();
    expect(verifyReturn('?a=%E0%A4%A', SECRET)).toBeNull();
    expect(verifyReturn(url, SECRET, { now, maxAgeSeconds: 60 })).not.toBeNull();
  });

  it('refuses a name given twice: a value slipped in before the signed one, which a framework reading the first would act on', () => {
    const slipped = url.href.replace('?', '?amount=4250.00&');
    expect(new URL(slipped).searchParams.get('amount')).toBe('4250.00'); // what a first-value reader sees
    expect(verifyReturn(slipped, SECRET)).toBeNull();
    expect(verifyReturn(new URL(slipped), SECRET)).toBeNull();
    expect(verifyReturn(new URL(slipped).searchParams, SECRET)).toBeNull();
    expect(verifyReturn({ ...Object.fromEntries(url.searchParams), amount: ['4250.00', '42.50'] } as never, SECRET)).toBeNull();
    expect(verifyReturn(url, SECRET, { now: new Date(now.getTime() + 120_000), maxAgeSeconds: 60 })).toBeNull();
  });
});
