// GET /openapi.json: the API's description (src/http/openapi.ts), the same text as docs/openapi.json.
import type { FastifyInstance } from 'fastify';
import { openApiText } from '../openapi.ts';

export function openApiRoutes(app: FastifyInstance): void {
  let text: string | undefined;
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send((text ??= openApiText())));
}
