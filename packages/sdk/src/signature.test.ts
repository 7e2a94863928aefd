import { describe, expect, it } from 'vitest';
import { canonicalString, sign, verify } from './signature.js';

const SECRET = 'sk_test_4f3c2b1a';

describe('the canonical string and encryption_data', () => {
  it('matches the worked example of the signing docs', () => {
    const body = {
      merchant_id: 'M100001',
      account_id: 'A100001',
      capture_orders: [
        { transaction_id: 'T0001', order_no: 'ORD-1', currency: 'USD', amount: '10.00' },
        { transaction_id: 'T0002', order_no: 'ORD-2', currency: 'EUR', amount: '5.50' },
      ],
    };
    expect(canonicalString(body)).toBe(
      'account_id=A100001&capture_orders[0].amount=10.00&capture_orders[0].currency=USD&capture_orders[0].order_no=ORD-1&capture_orders[0].transaction_id=T0001&capture_orders[1].amount=5.50&capture_orders[1].currency=EUR&capture_orders[1].order_no=ORD-2&capture_orders[1].transaction_id=T0002&merchant_id=M100001',
    );
    expect(sign(body, SECRET)).toBe('82b9f118bf679e82c29d2b97c49a1d43c13889278e1d1bd3d008bb520a8edbbb');
  });

  it('matches the worked example of values holding &, = and %', () => {
    const body = {
      merchant_id: 'M100001',
      account_id: 'A100001',
      order_no: 'ORD-2',
      currency: 'USD',
      amount: '42.50',
      note: 'gift&notify_url=http://x.example/',
      custom: 'size=M; 100% cotton',
      account_owner: [{ last_name: 'Smith&amount=0.01' }],
    };
    expect(canonicalString(body)).toBe(
      'account_id=A100001&account_owner[0].last_name=Smith%26amount%3D0.01&amount=42.50&currency=USD&custom=size%3DM; 100%25 cotton&merchant_id=M100001&note=gift%26notify_url%3Dhttp://x.example/&order_no=ORD-2',
    );
    expect(sign(body, SECRET)).toBe('b2b46792de8048ad3da31f3c80198637aafac784183f9607312f970bf955fa2c');
  });

  it('escapes %, & and = in values, so a value cannot pose as further pairs', () => {
    const smuggled = { merchant_id: 'M1', note: 'x&notify_url=https://evil.example/?a=1%', encryption_data: 'ignored' };
    expect(canonicalString(smuggled)).toBe('merchant_id=M1&note=x%26notify_url%3Dhttps://evil.example/?a%3D1%25');
    const split = { merchant_id: 'M1', note: 'x', notify_url: 'https://evil.example/?a=1%' };
    expect(sign(smuggled, SECRET)).not.toBe(sign(split, SECRET));
    expect(canonicalString({ cookie_new: 'a=1&b=2' })).toBe('cookie_new=a%3D1%26b%3D2');
  });

  it('leaves out empty and null leaves, sorts by path in byte order, reads numbers and booleans as text', () => {
    expect(canonicalString({ b: '', a: null, Z: 1, z: true, y: [], x: { k: undefined, j: 2.5 } })).toBe('Z=1&x.j=2.5&z=true');
    // Astral characters sort after every BMP character, as their UTF-8 bytes do.
    expect(canonicalString({ '\u{1F600}': '1', '\uFFFD': '2' })).toBe('\uFFFD=2&\u{1F600}=1');
  });

  it('verifies in either hex case, with any of several keys, and refuses a changed body', () => {
    const body = { merchant_id: 'M1', amount: '1.00' };
    const signature = sign(body, SECRET);
    expect(verify({ ...body, encryption_data: signature.toUpperCase() }, SECRET)).toBe(true);
    expect(verify({ ...body, encryption_data: signature }, ['old', SECRET])).toBe(true);
    expect(verify({ ...body, amount: '2.00', encryption_data: signature }, SECRET)).toBe(false);
    expect(verify({ ...body, encryption_data: signature.slice(1) }, SECRET)).toBe(false);
    expect(verify(body, SECRET)).toBe(false);
  });
});
