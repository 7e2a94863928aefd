import { describe, expect, it } from 'vitest';
import { AppError } from '../../domain/errors.ts';
import { decodeBody, normaliseBody } from './decode.ts';

const lists = new Set(['capture_orders', 'cart_items']);
const decode = (text: string) => decodeBody(Buffer.from(text, 'utf8'), lists);
const refusal = (text: string) => {
  try {
    decode(text);
  } catch (error) {
    return (error as AppError).code;
  }
  return 'accepted';
};

describe('bodies are read by their content', () => {
  it('reads JSON, form with bracket notation, and XML into the same tree', () => {
    const tree = { merchant_id: 'M1', capture_orders: [{ amount: '10.00', order_no: 'A' }] };
    expect(decode(JSON.stringify(tree))).toEqual(tree);
    expect(decode('merchant_id=M1&capture_orders[0][amount]=10.00&capture_orders[0][order_no]=A')).toEqual(tree);
    expect(decode('<request><merchant_id>M1</merchant_id><capture_orders><amount>10.00</amount><order_no>A</order_no></capture_orders></request>')).toEqual(tree);
  });

  it('reads a declared XML list as a list even with one entry, and repeated elements in order', () => {
    const xml = '<r><capture_orders><amount>1</amount></capture_orders><capture_orders><amount>2</amount></capture_orders><note>n</note></r>';
    expect(decode(xml)).toEqual({ capture_orders: [{ amount: '1' }, { amount: '2' }], note: 'n' });
  });

  it('decodes XML character references and the five predefined entities', () => {
    expect(decode('<r><c>a=1&amp;b=2 &#x41;&#66;&lt;&gt;&quot;&apos;</c></r>')).toEqual({ c: 'a=1&b=2 AB<>"\'' });
  });

  it('reads an XML value as sent: spaces at its ends kept, CDATA literal, indentation dropped, other text beside elements refused', () => {
    const xml = '<?xml version="1.0"?>\n<r>\n  <a>  x  </a>\n  <b><![CDATA[1 &amp; <2>]]></b>\n  <capture_orders>\n    <amount>1</amount>\n  </capture_orders>\n</r>\n';
    expect(decode(xml)).toEqual({ a: '  x  ', b: '1 &amp; <2>', capture_orders: [{ amount: '1' }] });
    expect(decode('<r>\n</r>')).toEqual({});
    expect(refusal('<r><a>1</a>text</r>')).toBe('4000');
  });

  it('refuses DOCTYPE, entity declarations and undefined entities with 4013', () => {
    expect(refusal('<!DOCTYPE r [<!ENTITY x "y">]><r><a>&x;</a></r>')).toBe('4013');
    expect(refusal('<?xml version="1.0"?>\n<!doctype r SYSTEM "file:///etc/passwd"><r/>')).toBe('4013');
    expect(refusal('<r><a>&nbsp;</a></r>')).toBe('4013');
  });

  it('refuses unreadable bodies with 4415', () => {
    expect(refusal('{"a":')).toBe('4415');
    expect(refusal('<r><a></r>')).toBe('4415');
    expect(() => decodeBody(Buffer.from([0x7b, 0xff, 0xfe]), lists)).toThrow(AppError);
  });

  it('refuses duplicate JSON keys at any depth, also when escaped differently', () => {
    expect(refusal('{"a":"1","a":"2"}')).toBe('4014');
    expect(refusal('{"o":{"k":1,"k":2}}')).toBe('4014');
    expect(refusal('{"a":"1","\\u0061":"2"}')).toBe('4014');
    expect(refusal('{"a":[{"k":1},{"k":2}],"b":{"a":1}}')).toBe('accepted');
    expect(refusal('{"a":"x\\"a\\":"}')).toBe('accepted');
  });

  it('reads JSON sent under a form content type (the parser looks at the content only)', () => {
    expect(decode('  {"merchant_id":"M1"}')).toEqual({ merchant_id: 'M1' });
  });

  it('normalises leaves to the signed text and drops empty ones', () => {
    expect(normaliseBody({ a: 10.5, b: true, c: '', d: null, e: { f: '' }, g: [1, null] })).toEqual({ a: '10.5', b: 'true', e: {}, g: ['1', null] });
  });

  it('reads percent-encoding and + in forms, brackets encoded or not, and a key without value', () => {
    expect(decode('a=1+2%26%3D&b%5B0%5D%5Bc%5D=x&b[1][c]=y&e')).toEqual({ a: '1 2&=', b: [{ c: 'x' }, { c: 'y' }], e: '' });
    expect(decode('b[1][c]=y&b[0][c]=x')).toEqual({ b: [{ c: 'x' }, { c: 'y' }] });
  });

  it('refuses form notation that could be read two ways', () => {
    expect(refusal('a=1&a=2')).toBe('4014');
    expect(refusal('a[0]=1&a[2]=2')).toBe('4000');
    expect(refusal('a[0]=1&a[b]=2')).toBe('4000');
    expect(refusal('a=1&a[b]=2')).toBe('4000');
    expect(refusal('a[]=1')).toBe('4000');
    expect(refusal('a[b=1')).toBe('4000');
    expect(refusal('[a]=1')).toBe('4000');
    expect(refusal('=1')).toBe('4000');
    expect(refusal('__proto__[a]=1')).toBe('4000');
    expect(refusal('a=%E9')).toBe('4002');
  });

  it('quotes a name the sender wrote without a card number in it', () => {
    expect(() => decode('4111111111111111=1&4111111111111111=2')).toThrow('411111******1111 is given more than once');
    expect(() => decode('{"4111111111111111":1,"4111111111111111":2}')).toThrow('duplicate key 411111******1111 in JSON body');
  });

  it('bounds forms: fields, list entries and depth refused with 400, in time linear in the size', () => {
    const started = performance.now();
    expect(refusal(Array.from({ length: 10_000 }, (_, i) => `x[${i}]=1`).join('&'))).toBe('4010');
    expect(refusal(Array.from({ length: 10_000 }, (_, i) => `k${i}=1`).join('&'))).toBe('4000');
    expect(refusal(Array.from({ length: 10_000 }, () => 'x=1').join('&'))).toBe('4014');
    expect(refusal(`a${'[b]'.repeat(8)}=1`)).toBe('4000');
    expect(refusal(`a${'[b]'.repeat(6)}=1`)).toBe('accepted');
    expect(refusal(Array.from({ length: 4_900 }, (_, i) => `x[${i % 100}][k${i}]=1`).join('&'))).toBe('accepted');
    // qs took seconds for the first of these; a wide margin for a loaded machine.
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('refuses JSON and XML nested deeper than the deepest operation, before parsing them', () => {
    expect(refusal(`{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`)).toBe('4000');
    expect(refusal(`<r>${'<a>'.repeat(1000)}x${'</a>'.repeat(1000)}</r>`)).toBe('4000');
    // 8 containers, the body's own included, and not one more.
    expect(refusal(`{"a":${'{"b":'.repeat(7)}1${'}'.repeat(7)}}`)).toBe('accepted');
    expect(refusal(`{"a":${'{"b":'.repeat(8)}1${'}'.repeat(8)}}`)).toBe('4000');
    expect(refusal(`<r>${'<a>'.repeat(8)}x${'</a>'.repeat(8)}</r>`)).toBe('accepted');
    expect(refusal(`<r>${'<a>'.repeat(9)}x${'</a>'.repeat(9)}</r>`)).toBe('4000');
    expect(refusal(`<r><!-- <a><a><a><a><a><a><a><a><a> --><a x="<b><b><b><b><b><b><b><b><b>">1</a></r>`)).toBe('accepted');
  });

  it('refuses a NUL or an unpaired surrogate in any format, naming the field', () => {
    const named = (text: string) => {
      try {
        decode(text);
      } catch (error) {
        return `${(error as AppError).code} ${(error as AppError).field}`;
      }
      return 'accepted';
    };
    expect(named('{"a":{"b":["x\\u0000"]}}')).toBe('4002 a.b[0]');
    expect(named('{"note":"\\uD800"}')).toBe('4002 note');
    expect(named('{"note":"\\ud83d\\ude00 \\\\u0000"}')).toBe('accepted');
    expect(named('<r><note>x&#0;</note></r>')).toBe('4002 note');
    expect(named('<r><note>&#xD800;</note></r>')).toBe('4002 note');
    expect(named('<r><note>\0</note></r>')).toBe('4002 note');
    expect(named('note=a%00b')).toBe('4002 note');
    expect(named('note=%ED%A0%80')).toBe('4002 note');
  });

  it('leaves bad text in a batch order to the batch, which refuses that order alone', () => {
    expect(decodeBody(Buffer.from('{"capture_orders":[{"amount":"\\u0000"}]}'), lists, 'capture_orders')).toEqual({ capture_orders: [{ amount: '\0' }] });
    expect(() => decodeBody(Buffer.from('{"note":"\\u0000","capture_orders":[]}'), lists, 'capture_orders')).toThrow(AppError);
  });
});
