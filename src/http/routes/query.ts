// POST /v1/retrievalTrans: the state of transactions, from registered IPs only (docs/api/query.md).
import type { FastifyInstance } from 'fastify';
import { assertRegisteredIp } from '../../app/batch/allow-list.ts';
import type { Deps } from '../../app/context.ts';
import { queryTransactions } from '../../app/query/query.ts';
import { queryAnswer, QUERY_LIST } from '../encoders/query.ts';
import { sendAnswer, signingOf } from '../operation.ts';
import { selectionOf } from '../requests/selection.ts';
import { batchOperation, readRequest } from './batch.ts';

export const queryOperation = batchOperation('query', QUERY_LIST, readRequest(['order_no', 'transaction_id']));

export function queryRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/retrievalTrans', { config: { operation: { ...queryOperation, admitCaller: (account, ip) => assertRegisteredIp(deps, account.id, ip) } } }, async (request, reply) => {
    const { account } = signingOf(request);
    const result = await queryTransactions(deps, account, (keys) => selectionOf(request.body as Record<string, unknown>, keys), request.ip);
    return sendAnswer(reply, 200, queryAnswer(account, result));
  });
}
