// POST /v1/authorise: a direct card payment (an APM payment when payment_method names one).
import type { FastifyInstance } from 'fastify';
import { authoriseApm } from '../../app/apm/authorise-apm.ts';
import { authoriseCard } from '../../app/authorise/authorise-card.ts';
import { PAYMENT_LISTS } from '../../app/authorise/request.ts';
import type { Deps } from '../../app/context.ts';
import { apmAnswer } from '../encoders/apm.ts';
import { paymentAnswer, paymentRefusal } from '../encoders/payment.ts';
import { sendAnswer, signingOf, type Operation } from '../operation.ts';
import { cardPaymentCommand, cardPaymentRequest } from '../requests/card-payment.ts';

export const authoriseOperation: Operation = {
  name: 'authorise',
  lists: PAYMENT_LISTS,
  format: 'xml',
  errorAnswer: paymentRefusal,
};

export function authoriseRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/authorise', { config: { operation: authoriseOperation } }, async (request, reply) => {
    const body = request.body as Record<string, unknown>;
    const { account } = signingOf(request);
    // decisions §4: an APM payment when payment_method names one; "card" (or none) is a card payment.
    if (body.payment_method !== undefined && body.payment_method !== 'card') {
      return sendAnswer(reply, 200, apmAnswer(await authoriseApm(deps, account, body)));
    }
    const payment = await authoriseCard(deps, account, cardPaymentCommand(cardPaymentRequest.parse(body), deps.clock.now()));
    return sendAnswer(reply, 200, paymentAnswer(payment));
  });
}
