// GET /assets/:name: the pages' scripts and stylesheet, from our own origin.
import type { FastifyInstance } from 'fastify';
import { asset } from '../../web/assets.ts';

export function assetRoutes(app: FastifyInstance): void {
  app.get<{ Params: { name: string } }>('/assets/:name', async (request, reply) => {
    const found = asset(request.params.name);
    if (!found) return reply.code(404).type('text/plain; charset=utf-8').send('not found');
    const etag = `"${found.version}"`;
    reply.header('etag', etag).header('cache-control', 'public, max-age=300').header('x-content-type-options', 'nosniff');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type(found.type).send(found.body);
  });
}
