// POST /v1/capture: captures authorised payments, in full or in part (docs/api/capture.md).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../app/context.ts';
import { CAPTURE_LIMIT, captureBatch, captureOrder } from '../batch/operations.ts';
import { signingOf } from '../operation.ts';
import { orderKeyScope } from '../plugins/idempotency.ts';
import { batchOperation, batchRequest, sendBatchAnswer } from './batch.ts';

export const captureOperation = batchOperation('capture', 'capture_orders', batchRequest('capture_orders', captureOrder.schema, CAPTURE_LIMIT), { idempotencyKey: true });

export function captureRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/capture', { config: { operation: captureOperation } }, async (request, reply) =>
    sendBatchAnswer(reply, await captureBatch(deps, signingOf(request).account, request.body as Record<string, unknown>, orderKeyScope(request))),
  );
}
