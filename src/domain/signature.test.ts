import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalString, escapeValue, matchingSecret, sign, verify, type SignedBody } from './signature.ts';

// docs/signing.md, the first worked example.
const example = {
  merchant_id: 'M100001',
  account_id: 'A100001',
  capture_orders: [
    { transaction_id: 'T0001', order_no: 'ORD-1', currency: 'USD', amount: '10.00' },
    { transaction_id: 'T0002', order_no: 'ORD-2', currency: 'EUR', amount: '5.50' },
  ],
};

describe('encryption_data', () => {
  it('reproduces the worked example of docs/signing.md', () => {
    expect(canonicalString(example)).toBe(
      'account_id=A100001&capture_orders[0].amount=10.00&capture_orders[0].currency=USD&capture_orders[0].order_no=ORD-1&capture_orders[0].transaction_id=T0001&capture_orders[1].amount=5.50&capture_orders[1].currency=EUR&capture_orders[1].order_no=ORD-2&capture_orders[1].transaction_id=T0002&merchant_id=M100001',
    );
    expect(sign(example, 'sk_test_4f3c2b1a')).toBe('82b9f118bf679e82c29d2b97c49a1d43c13889278e1d1bd3d008bb520a8edbbb');
  });

  it('escapes %, & and = in values, and nothing else (docs/signing.md, the second worked example)', () => {
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
    expect(sign(body, 'sk_test_4f3c2b1a')).toBe('b2b46792de8048ad3da31f3c80198637aafac784183f9607312f970bf955fa2c');
    expect(escapeValue('%26')).toBe('%2526');
    expect(escapeValue('a=b&c%d')).toBe('a%3Db%26c%25d');
    expect(escapeValue('plain text + ?#/é <b>')).toBe('plain text + ?#/é <b>');
  });

  it('keeps a value from posing as further pairs', () => {
    // Issue 8: a signed note split into two fields, and a value and a key rearranged.
    const signed = { a: 'A', note: 'gift&notify_url=http://evil.example/' };
    const split = { a: 'A', note: 'gift', notify_url: 'http://evil.example/' };
    expect(canonicalString(signed)).not.toBe(canonicalString(split));
    const checkout = { amount: '42.50', billing_country: 'US', account_owner: [{ last_name: 'Smith&amount=0.01' }] };
    const forged = { amount: '0.01', account_owner: [{ last_name: 'Smith' }], 'amount=42.50&billing_country': 'US' };
    expect(canonicalString(checkout)).toBe('account_owner[0].last_name=Smith%26amount%3D0.01&amount=42.50&billing_country=US');
    expect(canonicalString(forged)).not.toBe(canonicalString(checkout));
    expect(canonicalString({ v: '%26' })).not.toBe(canonicalString({ v: '&' }));
  });

  it('leaves out the top-level encryption_data, nulls and empty strings, and nothing else', () => {
    const body = { b: '', a: null, c: 'x', encryption_data: 'zz', nested: { encryption_data: 'kept' } };
    expect(canonicalString(body)).toBe('c=x&nested.encryption_data=kept');
  });

  it('writes numbers and booleans as JavaScript String() and nests objects with dots', () => {
    expect(canonicalString({ n: 10.5, t: true, s: { interval: 'month', count: 3 } })).toBe('n=10.5&s.count=3&s.interval=month&t=true');
  });

  it('sorts in byte order: capitals before lower case, astral characters after the BMP', () => {
    expect(canonicalString({ b: '1', B: '2', a_: '3', 'a.': '4' })).toBe('B=2&a.=4&a_=3&b=1');
    expect(canonicalString({ '\u{1F600}': '1', '\uFF01': '2' })).toBe('\uFF01=2&\u{1F600}=1');
  });

  it('verifies in any hex case and refuses 63 or 65 characters', () => {
    const signature = sign(example, 'k');
    expect(verify({ ...example, encryption_data: signature.toUpperCase() }, 'k')).toBe(true);
    expect(verify({ ...example, encryption_data: signature.slice(1) }, 'k')).toBe(false);
    expect(verify({ ...example, encryption_data: `${signature}0` }, 'k')).toBe(false);
    expect(verify({ ...example, encryption_data: signature }, 'other')).toBe(false);
  });

  it('finds which of several keys signed (key rotation)', () => {
    const body = { ...example, encryption_data: sign(example, 'old') };
    expect(matchingSecret(body, body.encryption_data, ['new', 'old'])).toBe(1);
    expect(matchingSecret(body, body.encryption_data, ['new'])).toBe(-1);
  });

  it('orders lists by the text of their indexes and keys by what follows them in the path', () => {
    const list = Array.from({ length: 12 }, (_, i) => String(i));
    expect(canonicalString({ l: list }).split('&').slice(0, 4)).toEqual(['l[0]=0', 'l[10]=10', 'l[11]=11', 'l[1]=1']);
    // `[` sorts after capitals and digits, `.` before them.
    expect(canonicalString({ a: ['x'], aB: '1', a1: '2', b: { c: '3' }, bB: '4' })).toBe('a1=2&aB=1&a[0]=x&b.c=3&bB=4');
  });

  it('orders each object by its own keys and children, whatever objects of another shape came before', () => {
    // An object's key order is kept per shape: the same keys with a list, an object or a leaf
    // under one of them, or other keys after the same first one, each have an order of their own.
    const bodies: [SignedBody, string][] = [
      [{ items: [{ a: 'x', aB: 'y' }] }, 'items[0].a=x&items[0].aB=y'],
      [{ items: [{ a: ['x'], aB: 'y' }] }, 'items[0].aB=y&items[0].a[0]=x'],
      [{ items: [{ a: { c: 'x' }, aB: 'y' }] }, 'items[0].a.c=x&items[0].aB=y'],
      [{ items: [{ a: 'x', aB: 'y', a1: 'z' }] }, 'items[0].a=x&items[0].a1=z&items[0].aB=y'],
      [{ items: [{ a: 'x', 'a-b': 'y' }] }, 'items[0].a=x&items[0].a-b=y'],
    ];
    for (const round of [bodies, [...bodies].reverse(), bodies]) {
      for (const [body, expected] of round) expect(canonicalString(body)).toBe(expected);
    }
  });

  // The definition, written out: every leaf's path=value, sorted by path in code point order.
  const definition = (body: Record<string, unknown>): string => {
    const pairs: [string, string][] = [];
    const visit = (path: string, node: unknown): void => {
      if (node === null || node === undefined || node === '') return;
      if (Array.isArray(node)) node.forEach((child, i) => visit(`${path}[${i}]`, child));
      else if (typeof node === 'object') for (const [key, child] of Object.entries(node)) visit(`${path}.${key}`, child);
      else pairs.push([path, escapeValue(String(node))]);
    };
    for (const [key, value] of Object.entries(body)) if (key !== 'encryption_data') visit(key, value);
    const codePoints = (text: string) => Array.from(text, (c) => c.codePointAt(0)!);
    const compare = (a: string, b: string) => {
      const [x, y] = [codePoints(a), codePoints(b)];
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
      return x.length - y.length;
    };
    return pairs
      .sort((p, q) => compare(p[0], q[0]))
      .map(([path, value]) => `${path}=${value}`)
      .join('&');
  };

  it('builds the canonical string of the definition for any body: plain field names or not, lists of any length', () => {
    // Names that are prefixes of each other, with the characters around `.`, `[` and `]` in byte order.
    const name = fc.constantFrom('a', 'aB', 'a1', 'a_', 'a0', 'aa', 'A', 'b', 'Z', '0', '1', '10', '2', '_', 'encryption_data');
    const oddName = fc.constantFrom('a.b', 'a[', 'a]', '', 'é', '\u{1F600}', '\uFF01', 'a-b', 'a=b');
    const leaf = fc.oneof(fc.constantFrom('', 'x', 'a&b=c%', '10.00'), fc.integer(), fc.boolean(), fc.constant(null));
    const tree = (names: fc.Arbitrary<string>) =>
      fc.letrec<{ node: unknown }>((tie) => ({
        node: fc.oneof(
          { depthSize: 'small', withCrossShrink: true },
          leaf,
          fc.array(tie('node'), { maxLength: 13 }),
          fc.dictionary(names, tie('node'), { maxKeys: 6 }),
        ),
      })).node;
    for (const names of [name, fc.oneof(name, oddName)]) {
      fc.assert(
        fc.property(fc.dictionary(names, tree(names), { maxKeys: 8 }), (body) => {
          expect(canonicalString(body as never)).toBe(definition(body));
        }),
        { numRuns: 500 },
      );
    }
  });
});
