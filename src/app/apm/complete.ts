// The shopper's answer on the issuer's page goes to the payment's connector, which answers the
// outcome: approved (captured when the account captures automatically and risk accepted it),
// declined (2001), or abandoned (2009). Recorded like every authorisation, with the merchant's event. Only APM payments that
// still wait for the shopper are touched: a hosted-page payment is never completed from here.
import { connectorCompletion } from '../payments/completion.ts';
import { paymentById } from '../../db/repositories/checkout.ts';
import type { PaymentRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import { recordLaterOutcome } from '../payments/record-authorisation.ts';
import { waitingPayment } from '../payments/waiting.ts';

export type IssuerAnswer = 'approve' | 'decline' | 'abandon';

export async function completeApm(deps: Deps, paymentId: string, answer: IssuerAnswer): Promise<PaymentRow | null> {
  const waiting = await waitingPayment(deps, paymentId, 'requires_redirect', (payment) => payment.kind === 'apm');
  if (!waiting) return paymentById(deps.database.db, paymentId);
  const outcome = await connectorCompletion(deps, waiting, 'completeRedirect', { answer });
  if (!outcome) return waiting.payment;
  const { context } = waiting;
  return recordLaterOutcome(deps, context, outcome);
}
