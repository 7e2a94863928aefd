// POST /v1/retrievalTrans: the state of transactions, from registered IPs only (docs/api/query.md).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../app/context.ts';
import { QUERY_LIST, queryTransactions } from '../../app/query/query.ts';
import { sendAnswer, signingOf } from '../operation.ts';
import { selectionOf } from '../requests/selection.ts';
import { batchOperation, readRequest } from './batch.ts';

export const queryOperation = batchOperation('query', QUERY_LIST, readRequest(['order_no', 'transaction_id']));

export function queryRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/retrievalTrans', { config: { operation: queryOperation } }, async (request, reply) =>
    sendAnswer(reply, 200, await queryTransactions(deps, signingOf(request).account, (keys) => selectionOf(request.body as Record<string, unknown>, keys), request.ip)),
  );
}
