// Signs requests as a merchant would (with the gateway's own sign) and sends them through Fastify's
// inject in JSON, form (bracket notation) or XML; reads answers and checks their signatures.
import { XMLParser } from 'fast-xml-parser';
import type { FastifyInstance } from 'fastify';
import qs from 'qs';
import { toXml } from '../../src/http/encoders/xml.ts';
import { sign, verify } from '../../src/domain/signature.ts';
import type { Credentials } from '../../src/app/merchants/credentials.ts';

export type Format = 'json' | 'form' | 'xml' | 'json-as-form';

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  readonly raw: string;
  /** The parsed answer: XML `respon` children or the JSON object. */
  readonly body: Record<string, any>;
  /** Whether encryption_data verifies with the merchant's secret key. */
  readonly signed: boolean;
}

export function encode(body: Record<string, unknown>, format: Format): { payload: string; contentType: string } {
  switch (format) {
    case 'json':
      return { payload: JSON.stringify(body), contentType: 'application/json' };
    case 'json-as-form':
      return { payload: JSON.stringify(body), contentType: 'application/x-www-form-urlencoded' };
    case 'form':
      return { payload: qs.stringify(body, { arrayFormat: 'indices', encodeValuesOnly: true }), contentType: 'application/x-www-form-urlencoded' };
    case 'xml':
      return { payload: toXml('request', body), contentType: 'application/xml' };
  }
}

const ANSWER_LISTS = new Set(['risk_reasons', 'fraud_check_result', 'capture_orders', 'review_orders', 'cancel_orders', 'refund_orders', 'orders_list']);
const xml = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  // A value is its element's text as sent, spaces at its ends included (docs/signing.md).
  trimValues: false,
  // Character references (`&#13;`) read as their characters, as any XML reader reads them.
  htmlEntities: true,
  isArray: (_name, jPath) => ANSWER_LISTS.has(String(jPath).split('.').slice(1).join('.')),
});

/** An answer's fields: the JSON object, or the children of XML `respon` (lists kept lists). */
export function parseAnswer(text: string): Record<string, unknown> {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) return JSON.parse(trimmed) as Record<string, unknown>;
  const root = (xml.parse(trimmed) as Record<string, unknown>).respon;
  const body = (typeof root === 'object' && root !== null ? root : {}) as Record<string, unknown>;
  for (const list of ANSWER_LISTS) if (body[list] === '') body[list] = [];
  return body;
}

export function readAnswer(raw: string, secret: string): { body: Record<string, any>; signed: boolean } {
  const text = raw.trimStart();
  // An HTML page (the hand-off, the hosted page) is no answer to read.
  if ((!text.startsWith('<') && !text.startsWith('{')) || /^<!doctype html/i.test(text)) return { body: {}, signed: false };
  const body = parseAnswer(text) as Record<string, any>;
  return { body, signed: verify(body, secret) };
}

export interface SignedClient {
  /** Signs `body` with the account's key (unless it already has encryption_data) and posts it. */
  post(path: string, body: Record<string, unknown>, options?: { format?: Format; secret?: string; remoteAddress?: string; headers?: Record<string, string> }): Promise<Answer>;
  /** Posts bytes as they are. */
  postRaw(path: string, payload: string | Buffer, contentType?: string): Promise<Answer>;
  readonly secret: string;
  /** merchant_id and account_id, for building bodies. */
  readonly ids: { merchant_id: string; account_id: string };
}

type Send = (path: string, payload: string | Buffer, contentType: string, remoteAddress?: string, headers?: Record<string, string>) => Promise<Answer>;

/** A client that signs with the account's key and sends through `send`. */
function clientOver(send: Send, credentials: Credentials): SignedClient {
  return {
    secret: credentials.secret_key,
    ids: { merchant_id: credentials.merchant_id, account_id: credentials.account_id },
    async post(path, body, options = {}) {
      const signedBody = 'encryption_data' in body ? body : { ...body, encryption_data: sign(body as never, options.secret ?? credentials.secret_key) };
      const { payload, contentType } = encode(signedBody, options.format ?? 'json');
      return send(path, payload, contentType, options.remoteAddress, options.headers);
    },
    postRaw: (path, payload, contentType = 'application/x-www-form-urlencoded') => send(path, payload, contentType),
  };
}

export function signedClient(app: FastifyInstance, credentials: Credentials): SignedClient {
  return clientOver(async (path, payload, contentType, remoteAddress, headers = {}) => {
    const response = await app.inject({
      method: 'POST',
      url: path,
      payload,
      headers: { 'content-type': contentType, ...headers },
      ...(remoteAddress ? { remoteAddress } : {}),
    });
    return { status: response.statusCode, headers: response.headers, raw: response.body, ...readAnswer(response.body, credentials.secret_key) };
  }, credentials);
}

/**
 * The same client over real HTTP, for gateways running as processes: each request goes to the
 * next of `urls` in turn, so concurrent requests are spread over every gateway (`remoteAddress`
 * cannot be chosen: it is this process's).
 */
export function httpClient(urls: readonly string[], credentials: Credentials): SignedClient {
  let next = 0;
  return clientOver(async (path, payload, contentType, _remoteAddress, headers = {}) => {
    const url = urls[next++ % urls.length]!;
    const response = await fetch(`${url}${path}`, { method: 'POST', body: payload, headers: { 'content-type': contentType, ...headers } });
    const raw = await response.text();
    return { status: response.status, headers: Object.fromEntries(response.headers), raw, ...readAnswer(raw, credentials.secret_key) };
  }, credentials);
}
