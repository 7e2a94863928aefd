// What the shared pipeline needs to know of an operation before its handler runs: which XML
// fields are lists, which fields a request may hold, how its answers are encoded, and what its
// refusal looks like.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { SigningAccount } from '../app/accounts/directory.ts';
import type { AccountRow } from '../db/schema.ts';
import type { AppError } from '../domain/errors.ts';
import { sign } from '../domain/signature.ts';
import { toXml, xmlText } from './encoders/xml.ts';

export interface Operation {
  readonly name: string;
  /** Paths, relative to the XML root, of list fields. */
  readonly lists: ReadonlySet<string>;
  /** A batch operation's list, whose entries are refused one by one in the answer. */
  readonly batchList?: string;
  readonly format: 'xml' | 'json';
  /**
   * The request's fields, at every depth: a signed body with a key this schema does not define is
   * refused before the handler runs (src/http/plugins/request-fields.ts). A function when the
   * fields depend on the body and the account that signed it (/v1/authorise: card or APM
   * payment, by the methods the account's connector offers); without an account, the catalogue's
   * view of the operation.
   */
  readonly schema: TSchema | ((body: Record<string, unknown>, account?: AccountRow) => TSchema);
  /**
   * Refuses a caller the operation does not answer at all (the read operations: registered IPs
   * only). Asked right after the signature, before the field names are: a caller it refuses
   * learns nothing of the request's shape.
   */
  readonly admitCaller?: (account: AccountRow, ip: string) => Promise<void>;
  /** Accepts an Idempotency-Key header (operations that move money and have no order_no to key on). */
  readonly idempotencyKey?: boolean;
  /** The operation's answer to a refused request; `body` is whatever could be read of it. */
  errorAnswer(body: Record<string, unknown>, error: AppError): Record<string, unknown>;
  /**
   * A body the shopper's browser posts to the same path (the hosted page's hand-off), when the
   * account it names does not sign it: served without the merchant's signature, and the route
   * checks the body's own credential instead. A body it matches that the account did sign is the
   * merchant's request, checked as any (src/http/plugins/signed-request.ts).
   */
  readonly shopperPost?: (body: Record<string, unknown>) => boolean;
}

export interface Signing {
  readonly account: SigningAccount['account'];
  /** The key that verified the request (a rotated key in its grace period signs its answers too). */
  readonly secret: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    operation?: Operation;
  }
  interface FastifyRequest {
    signing: Signing | null;
  }
}

export function operationOf(request: FastifyRequest): Operation | undefined {
  return request.routeOptions.config.operation;
}

/** The signed request's account: routes behind the signed-request plugin always have one. */
export function signingOf(request: FastifyRequest): Signing {
  if (!request.signing) throw new Error(`${request.url} is served without a verified signature`);
  return request.signing;
}

/** Signs `fields` with the request's key, when it has one, and sends them in the operation's format. */
export function sendAnswer(reply: FastifyReply, status: number, fields: Record<string, unknown>): FastifyReply {
  const request = reply.request;
  const xml = operationOf(request)?.format === 'xml';
  // An XML answer signs the text it can write (xmlText), so that it verifies as read.
  const answer = xml ? xmlText(fields) : fields;
  const signed = { ...answer, encryption_data: request.signing ? sign(answer as never, request.signing.secret) : '' };
  reply.code(status);
  if (xml) return reply.type('application/xml; charset=utf-8').send(toXml('respon', signed));
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(signed));
}

/** A field of a body that may be anything, as text when it is text. */
export function textField(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}
