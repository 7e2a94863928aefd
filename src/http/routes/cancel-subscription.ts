// POST /v1/cancelsubscription: ends a subscription (docs/api/cancelsubscription.md). Any body
// format; the answer is JSON, signed.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../app/context.ts';
import { cancelSubscription } from '../../app/subscriptions/cancel.ts';
import { cancelSubscriptionAnswer, cancelSubscriptionRefusal } from '../encoders/cancel-subscription.ts';
import { sendAnswer, signingOf, type Operation } from '../operation.ts';
import { CancelSubscriptionRequest, cancelSubscriptionCommand, cancelSubscriptionRequest } from '../requests/cancel-subscription.ts';

export const cancelSubscriptionOperation: Operation = {
  name: 'cancelsubscription',
  lists: new Set(),
  format: 'json',
  schema: CancelSubscriptionRequest,
  errorAnswer: cancelSubscriptionRefusal,
};

export function cancelSubscriptionRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/cancelsubscription', { config: { operation: cancelSubscriptionOperation } }, async (request, reply) => {
    const { account } = signingOf(request);
    const body = cancelSubscriptionRequest.parse(request.body);
    return sendAnswer(reply, 200, cancelSubscriptionAnswer(body, await cancelSubscription(deps, account, cancelSubscriptionCommand(body))));
  });
}
