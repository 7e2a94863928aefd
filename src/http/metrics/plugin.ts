// GET /metrics in Prometheus's text format, and the hook that counts every answered request.
// Served only to the addresses the operator allows (ACQUIRO_METRICS_ALLOW; loopback by default):
// the figures say how busy each merchant-facing operation is, which is nobody else's business.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../app/context.ts';
import { inBlock } from '../../domain/ip.ts';
import { operationOf } from '../operation.ts';
import { createMetrics } from './registry.ts';

/** The label a request is counted under: its operation, or the route it matched (never its URL). */
function operationLabel(request: FastifyRequest): string {
  const operation = operationOf(request);
  if (operation) return operation.name;
  const route = request.routeOptions.url;
  return route ? `route:${route}` : 'unmatched';
}

export function installMetrics(app: FastifyInstance, deps: Deps): void {
  const cidrs = deps.config.metricsAllow;
  if (cidrs.length === 0) return;
  const metrics = createMetrics(deps);
  app.addHook('onResponse', async (request, reply) => {
    metrics.observe(operationLabel(request), reply.statusCode, reply.elapsedTime / 1000);
  });
  app.get('/metrics', async (request, reply) => {
    if (!cidrs.some((cidr) => inBlock(cidr, request.ip))) return reply.code(403).type('text/plain; charset=utf-8').send('metrics are not served to this address\n');
    return reply.type(metrics.contentType).send(await metrics.scrape());
  });
}
