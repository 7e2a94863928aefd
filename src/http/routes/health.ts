import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../app/context.ts';

const PING_TIMEOUT_MS = 2_000;

/** GET /health: 200 when the database answers, 503 while it does not. */
export function healthRoutes(app: FastifyInstance, deps: Deps): void {
  app.get('/health', async (_request, reply) => {
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS).unref());
    try {
      await Promise.race([deps.database.ping(), timeout]);
      return reply.send({ status: 'ok', mode: deps.config.mode, database: deps.database.kind });
    } catch {
      return reply.code(503).send({ status: 'unavailable', database: deps.database.kind });
    }
  });
}
