// While the gateway stops (SIGTERM, `acquiro serve` stopping, a test closing it), requests still
// reach it on connections already open: a keep-alive connection's next request, a pipelined one.
// Each is refused 503 `9503` with `Retry-After: 1`, as when the database is away, so the client
// sends it again to another gateway. Requests that arrived before the stop are served to the end:
// the close waits for them. Every answer sent once the stop has begun says `Connection: close`,
// so its connection closes after it: Fastify writes that header only on requests routed after
// the stop, and a kept-alive connection whose request was in flight stayed open after its answer
// until the keep-alive timeout, holding the stop that long.
//
// An operation's request is refused once its signature is checked, so that the refusal is in the
// operation's own format and signed with the account's key, as a 503 for a missing database is.
// Anything else (health, pages, the portal) is refused at once, by its route's own error answer.
// Fastify's own 503 (`return503OnClosing`) answered every route with a JSON body of its own,
// unsigned, that no merchant's code reads.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { operationOf } from '../operation.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** It arrived once the gateway had begun to stop. */
    arrivedStopping?: boolean;
  }
}

const stopping = () => new AppError('service_unavailable', undefined, { headers: { 'retry-after': '1' } });

/** Registered right after the signed-request plugin: its preValidation hook runs after the signature check. */
export function installStopping(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request) => {
    if (!closing) return;
    request.arrivedStopping = true;
    if (!operationOf(request)) throw stopping();
  });
  app.addHook('preValidation', async (request) => {
    if (request.arrivedStopping) throw stopping();
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
}
