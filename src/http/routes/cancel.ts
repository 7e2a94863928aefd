// POST /v1/cancel: voids payments before capture (docs/api/cancel.md).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../app/context.ts';
import { CANCEL_LIMIT, cancelBatch, cancelOrder } from '../batch/operations.ts';
import { signingOf } from '../operation.ts';
import { orderKeyScope } from '../plugins/idempotency.ts';
import { batchOperation, batchRequest, sendBatchAnswer } from './batch.ts';

export const cancelOperation = batchOperation('cancel', 'cancel_orders', batchRequest('cancel_orders', cancelOrder.schema, CANCEL_LIMIT), { idempotencyKey: true });

export function cancelRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/cancel', { config: { operation: cancelOperation } }, async (request, reply) =>
    sendBatchAnswer(reply, await cancelBatch(deps, signingOf(request).account, request.body as Record<string, unknown>, orderKeyScope(request))),
  );
}
