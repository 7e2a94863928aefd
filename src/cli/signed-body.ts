// A body in any of the three formats (JSON, XML, form), as the merchant wrote it, with fields
// added or replaced in that same format, so that `acquiro sign` prints what the merchant would
// send. The signature itself is src/domain/signature.ts's, over the body as the gateway reads it.
import { escapeXml } from '../http/encoders/xml.ts';
import { decodeBody } from '../http/body/decode.ts';
import { canonicalString, sign, type SignedBody } from '../domain/signature.ts';

export type BodyFormat = 'json' | 'xml' | 'form';

export const CONTENT_TYPES: Record<BodyFormat, string> = {
  json: 'application/json',
  xml: 'application/xml',
  form: 'application/x-www-form-urlencoded',
};

/** The format the gateway will read the text as: by its first non-blank character. */
export function formatOf(text: string): BodyFormat {
  const first = text.trimStart()[0];
  return first === '{' ? 'json' : first === '<' ? 'xml' : 'form';
}

const XML_ROOT = /^(\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<([A-Za-z_][\w.-]*)[^>]*>)([\s\S]*)(<\/\2>\s*)$/;

function withFieldXml(text: string, name: string, value: string, position: 'first' | 'last'): string {
  const match = XML_ROOT.exec(text);
  if (!match) return text;
  const [, open, , inner, close] = match as unknown as [string, string, string, string, string];
  const element = new RegExp(`\\s*<${name}(\\s*/>|>[^<]*</${name}>)`, 'g');
  const indent = /\n([ \t]+)</.exec(inner)?.[1];
  const line = indent === undefined ? `<${name}>${escapeXml(value)}</${name}>` : `\n${indent}<${name}>${escapeXml(value)}</${name}>`;
  const rest = inner.replace(element, '');
  return position === 'first' ? `${open}${line}${rest}${close}` : `${open}${rest.replace(/\s*$/, '')}${line}${indent === undefined ? '' : '\n'}${close}`;
}

function withFieldForm(text: string, name: string, value: string, position: 'first' | 'last'): string {
  const pairs = text
    .trim()
    .split('&')
    .filter((pair) => pair !== '' && decodeURIComponent(pair.split('=')[0]!.replace(/\+/g, ' ')) !== name);
  const pair = `${name}=${encodeURIComponent(value)}`;
  return (position === 'first' ? [pair, ...pairs] : [...pairs, pair]).join('&');
}

/** `text` with the top-level field `name` set to `value`, in the text's own format. */
export function withField(text: string, name: string, value: string, position: 'first' | 'last'): string {
  switch (formatOf(text)) {
    case 'json': {
      const { [name]: _old, ...rest } = JSON.parse(text) as Record<string, unknown>;
      return JSON.stringify(position === 'first' ? { [name]: value, ...rest } : { ...rest, [name]: value });
    }
    case 'xml':
      return withFieldXml(text, name, value, position);
    case 'form':
      return withFieldForm(text, name, value, position);
  }
}

export interface Signed {
  /** The body to send: `text` with merchant_id/account_id filled in where missing, and encryption_data. */
  readonly text: string;
  readonly signature: string;
  /** The string the signature is over, for comparing with one's own code (it holds the card: never log it). */
  readonly canonical: string;
}

/**
 * Signs `text` as the gateway will read it. `lists` are the XML list fields of the operation (a
 * one-entry list reads as a list). merchant_id and account_id are added first when absent.
 */
export function signBody(text: string, secretKey: string, lists: ReadonlySet<string>, ids: { merchant_id?: string; account_id?: string } = {}): Signed {
  let body = text.trim();
  const read = (raw: string): SignedBody => decodeBody(Buffer.from(raw, 'utf8'), lists);
  for (const field of ['account_id', 'merchant_id'] as const) {
    const given = read(body)[field];
    const value = ids[field];
    if ((given === undefined || given === null || given === '') && value) body = withField(body, field, value, 'first');
  }
  const tree = read(body);
  const signature = sign(tree, secretKey);
  return { text: withField(body, 'encryption_data', signature, 'last'), signature, canonical: canonicalString(tree) };
}
