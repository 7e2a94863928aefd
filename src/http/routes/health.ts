import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../app/context.ts';

const PING_TIMEOUT_MS = 2_000;

/** Whether start-up has finished (a started process flips it once its first-start work is done). */
export interface Readiness {
  ready: boolean;
}

/** GET /health: 200 when start-up has finished and the database answers, 503 otherwise. */
export function healthRoutes(app: FastifyInstance, deps: Deps, readiness: Readiness = { ready: true }): void {
  app.get('/health', async (_request, reply) => {
    if (!readiness.ready) return reply.code(503).send({ status: 'starting', database: deps.database.kind });
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS).unref());
    try {
      await Promise.race([deps.database.ping(), timeout]);
      return reply.send({ status: 'ok', mode: deps.config.mode, database: deps.database.kind });
    } catch {
      return reply.code(503).send({ status: 'unavailable', database: deps.database.kind });
    }
  });
}
