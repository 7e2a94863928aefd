// Every body goes through one parser that reads it by content (decisions §1); the Content-Type
// header is not trusted to say what the body is.
import type { FastifyInstance } from 'fastify';
import { decodeBody } from '../body/decode.ts';
import { operationOf } from '../operation.ts';

export const BODY_LIMIT = 1024 * 1024;
const NO_LISTS: ReadonlySet<string> = new Set();

export function installBodyParsing(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (request, raw, done) => {
    try {
      const operation = operationOf(request);
      done(null, decodeBody(raw as Buffer, operation?.lists ?? NO_LISTS, operation?.batchList));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
