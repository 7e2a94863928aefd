// POST /v1/refund: refunds captured payments, partly and more than once (docs/api/refund.md).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../app/context.ts';
import { REFUND_LIMIT, refundBatch, refundOrder } from '../batch/operations.ts';
import { signingOf } from '../operation.ts';
import { orderKeyScope } from '../plugins/idempotency.ts';
import { batchOperation, batchRequest, sendBatchAnswer } from './batch.ts';

export const refundOperation = batchOperation('refund', 'refund_orders', batchRequest('refund_orders', refundOrder.schema, REFUND_LIMIT), { idempotencyKey: true });

export function refundRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/refund', { config: { operation: refundOperation } }, async (request, reply) =>
    sendBatchAnswer(reply, await refundBatch(deps, signingOf(request).account, request.body as Record<string, unknown>, orderKeyScope(request))),
  );
}
