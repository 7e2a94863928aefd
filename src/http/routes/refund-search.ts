// POST /v1/refundSearch: an account's refunds, from registered IPs only (docs/api/refund-search.md).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../app/context.ts';
import { REFUND_SEARCH_LIST, searchRefunds } from '../../app/refund-search/search.ts';
import { sendAnswer, signingOf } from '../operation.ts';
import { selectionOf } from '../requests/selection.ts';
import { batchOperation, readRequest } from './batch.ts';

export const refundSearchOperation = batchOperation('refund-search', REFUND_SEARCH_LIST, readRequest(['refund_reference_id', 'transaction_id', 'order_no']));

export function refundSearchRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/refundSearch', { config: { operation: refundSearchOperation } }, async (request, reply) =>
    sendAnswer(reply, 200, await searchRefunds(deps, signingOf(request).account, (keys) => selectionOf(request.body as Record<string, unknown>, keys), request.ip)),
  );
}
