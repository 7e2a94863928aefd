// POST /v1/refundSearch: an account's refunds, from registered IPs only (docs/api/refund-search.md).
import type { FastifyInstance } from 'fastify';
import { assertRegisteredIp } from '../../app/batch/allow-list.ts';
import type { Deps } from '../../app/context.ts';
import { searchRefunds } from '../../app/refund-search/search.ts';
import { refundSearchAnswer, REFUND_SEARCH_LIST } from '../encoders/refund-search.ts';
import { sendAnswer, signingOf } from '../operation.ts';
import { selectionOf } from '../requests/selection.ts';
import { batchOperation, readRequest } from './batch.ts';

export const refundSearchOperation = batchOperation('refund-search', REFUND_SEARCH_LIST, readRequest(['refund_reference_id', 'transaction_id', 'order_no']));

export function refundSearchRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/refundSearch', { config: { operation: { ...refundSearchOperation, admitCaller: (account, ip) => assertRegisteredIp(deps, account.id, ip) } } }, async (request, reply) => {
    const { account } = signingOf(request);
    const result = await searchRefunds(deps, account, (keys) => selectionOf(request.body as Record<string, unknown>, keys), request.ip);
    return sendAnswer(reply, 200, refundSearchAnswer(account, result));
  });
}
