// POST /v1/review: approves or rejects payments held for review (docs/api/review.md).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../app/context.ts';
import { REVIEW_LIMIT, reviewBatch, reviewOrder } from '../batch/operations.ts';
import { signingOf } from '../operation.ts';
import { orderKeyScope } from '../plugins/idempotency.ts';
import { batchOperation, batchRequest, sendBatchAnswer } from './batch.ts';

export const reviewOperation = batchOperation('review', 'review_orders', batchRequest('review_orders', reviewOrder.schema, REVIEW_LIMIT), { idempotencyKey: true });

export function reviewRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/review', { config: { operation: reviewOperation } }, async (request, reply) =>
    sendBatchAnswer(reply, await reviewBatch(deps, signingOf(request).account, request.body as Record<string, unknown>, orderKeyScope(request))),
  );
}
