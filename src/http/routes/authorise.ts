// POST /v1/authorise: a direct card payment (an APM payment when payment_method names one).
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { authoriseApm } from '../../app/apm/authorise-apm.ts';
import { banksOf, methodNamed, methodsOf } from '../../app/apm/methods.ts';
import { apmCommand, ApmPaymentRequest, CARD_FIELDS } from '../requests/apm-payment.ts';
import { authoriseCard } from '../../app/authorise/authorise-card.ts';
import { subscriptionOfPayment } from '../../app/subscriptions/payment-fields.ts';
import { PAYMENT_LISTS } from '../requests/order.ts';
import type { Connectors, Deps } from '../../app/context.ts';
import type { AccountRow } from '../../db/schema.ts';
import { apmAnswer } from '../encoders/apm.ts';
import { paymentAnswer, paymentRefusal } from '../encoders/payment.ts';
import { sendAnswer, signingOf, type Operation } from '../operation.ts';
import { CardPaymentRequest, cardPaymentCommand, cardPaymentRequest } from '../requests/card-payment.ts';

/**
 * decisions.md §4, docs/apm.md: an APM payment when payment_method is present and names an APM the
 * account's connector offers; otherwise (none, "card", or a name that is no APM) a card payment.
 * A payment_method naming no APM, with no card or token_id to charge, is taken as a misspelt
 * method: it goes the APM way, to be refused with the methods offered (4015), not asked for a card.
 * Without connectors and account (the catalogue's view), any payment_method but "card" is an APM's.
 */
function isApmPayment(body: Record<string, unknown>, connectors?: Connectors, account?: AccountRow): boolean {
  const name = body.payment_method;
  if (name === undefined || name === 'card') return false;
  if (!connectors || !account) return true;
  const cardless = body.card === undefined && body.token_id === undefined;
  return cardless || methodsOf(connectors, account).some((method) => method.name === name);
}

const CARD_PAYMENT_FIELDS = CardPaymentRequest;
// The card group is known to an APM request only to be refused with its own reason (authoriseApm).
const APM_PAYMENT_FIELDS = Type.Object({
  ...ApmPaymentRequest.properties,
  ...Object.fromEntries(CARD_FIELDS.map((field) => [field, Type.Optional(Type.Unknown())])),
});

/** The operation as the route serves it: which fields a body holds depends on the methods its account is offered. */
function authoriseOperationOver(connectors?: Connectors): Operation {
  return {
    name: 'authorise',
    lists: PAYMENT_LISTS,
    format: 'xml',
    schema: (body, account) => (isApmPayment(body, connectors, account) ? APM_PAYMENT_FIELDS : CARD_PAYMENT_FIELDS),
    errorAnswer: paymentRefusal,
  };
}

export const authoriseOperation: Operation = authoriseOperationOver();

export function authoriseRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/authorise', { config: { operation: authoriseOperationOver(deps.connectors) } }, async (request, reply) => {
    const body = request.body as Record<string, unknown>;
    const { account } = signingOf(request);
    if (isApmPayment(body, deps.connectors, account)) {
      const method = methodNamed(deps.connectors, account, body.payment_method);
      const command = apmCommand(body, method, deps.clock.now(), banksOf(deps.connectors, account, method));
      return sendAnswer(reply, 200, apmAnswer(await authoriseApm(deps, account, command)));
    }
    const payment = await authoriseCard(deps, account, cardPaymentCommand(cardPaymentRequest.parse(body), deps.clock.now()));
    return sendAnswer(reply, 200, paymentAnswer(payment, await subscriptionOfPayment(deps.database.db, payment)));
  });
}
