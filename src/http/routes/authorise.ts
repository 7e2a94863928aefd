// POST /v1/authorise: a direct card payment (an APM payment when payment_method names one).
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { authoriseApm } from '../../app/apm/authorise-apm.ts';
import { banksOf, methodNamed } from '../../app/apm/methods.ts';
import { apmCommand, ApmPaymentRequest, CARD_FIELDS } from '../requests/apm-payment.ts';
import { authoriseCard } from '../../app/authorise/authorise-card.ts';
import { subscriptionOfPayment } from '../../app/subscriptions/payment-fields.ts';
import { PAYMENT_LISTS } from '../requests/order.ts';
import type { Deps } from '../../app/context.ts';
import { apmAnswer } from '../encoders/apm.ts';
import { paymentAnswer, paymentRefusal } from '../encoders/payment.ts';
import { sendAnswer, signingOf, type Operation } from '../operation.ts';
import { CardPaymentRequest, cardPaymentCommand, cardPaymentRequest } from '../requests/card-payment.ts';

/** docs/apm.md: an APM payment when payment_method names one; "card" (or none) is a card payment. */
function isApmPayment(body: Record<string, unknown>): boolean {
  return body.payment_method !== undefined && body.payment_method !== 'card';
}

const CARD_PAYMENT_FIELDS = Type.Object({ ...CardPaymentRequest.properties, payment_method: Type.Optional(Type.String()) });
// The card group is known to an APM request only to be refused with its own reason (authoriseApm).
const APM_PAYMENT_FIELDS = Type.Object({
  ...ApmPaymentRequest.properties,
  ...Object.fromEntries(CARD_FIELDS.map((field) => [field, Type.Optional(Type.Unknown())])),
});

export const authoriseOperation: Operation = {
  name: 'authorise',
  lists: PAYMENT_LISTS,
  format: 'xml',
  schema: (body) => (isApmPayment(body) ? APM_PAYMENT_FIELDS : CARD_PAYMENT_FIELDS),
  errorAnswer: paymentRefusal,
};

export function authoriseRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/authorise', { config: { operation: authoriseOperation } }, async (request, reply) => {
    const body = request.body as Record<string, unknown>;
    const { account } = signingOf(request);
    if (isApmPayment(body)) {
      const method = methodNamed(deps.connectors, account, body.payment_method);
      const command = apmCommand(body, method, deps.clock.now(), banksOf(deps.connectors, account, method));
      return sendAnswer(reply, 200, apmAnswer(await authoriseApm(deps, account, command)));
    }
    const payment = await authoriseCard(deps, account, cardPaymentCommand(cardPaymentRequest.parse(body), deps.clock.now()));
    return sendAnswer(reply, 200, paymentAnswer(payment, await subscriptionOfPayment(deps.database.db, payment)));
  });
}
