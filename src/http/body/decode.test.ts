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
});
