// Every body goes through one parser that reads it by content (docs/api/authorise.md, Request); the Content-Type
// header is not trusted to say what the body is.
import type { FastifyInstance } from 'fastify';
import { decodeBody } from '../body/decode.ts';
import { operationOf } from '../operation.ts';

export const BODY_LIMIT = 1024 * 1024;
const NO_LISTS: ReadonlySet<string> = new Set();

export function installBodyParsing(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  // Fastify answers 415 itself, before any parser, when the header is no media type (`json`, an
  // empty value, `application/json;;`). The header says nothing we read, so an operation's body
  // is handed to the parser below under a neutral type, whatever the merchant's client wrote.
  app.addHook('onRequest', async (request) => {
    if (operationOf(request) && request.headers['content-type'] !== undefined) request.headers['content-type'] = 'application/octet-stream';
  });
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (request, raw, done) => {
    try {
      const operation = operationOf(request);
      done(null, decodeBody(raw as Buffer, operation?.lists ?? NO_LISTS, operation?.batchList));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
