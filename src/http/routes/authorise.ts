// POST /v1/authorise: a direct card payment (an APM payment when payment_method names one).
import type { FastifyInstance } from 'fastify';
import { authoriseCard } from '../../app/authorise/authorise-card.ts';
import { cardPaymentRequest, PAYMENT_LISTS } from '../../app/authorise/request.ts';
import type { Deps } from '../../app/context.ts';
import { AppError } from '../../domain/errors.ts';
import { paymentAnswer, paymentRefusal } from '../encoders/payment.ts';
import { sendAnswer, signingOf, type Operation } from '../operation.ts';

export const authoriseOperation: Operation = {
  name: 'authorise',
  lists: PAYMENT_LISTS,
  format: 'xml',
  errorAnswer: paymentRefusal,
};

export function authoriseRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/authorise', { config: { operation: authoriseOperation } }, async (request, reply) => {
    const body = request.body as Record<string, unknown>;
    if (body.payment_method !== undefined) {
      throw new AppError('unsupported_payment_method', 'payment_method is not supported', { field: 'payment_method' });
    }
    const payment = await authoriseCard(deps, signingOf(request).account, cardPaymentRequest.parse(body));
    return sendAnswer(reply, 200, paymentAnswer(payment));
  });
}
