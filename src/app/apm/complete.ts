// The shopper's answer on the issuer's page goes to the payment's connector, which answers the
// outcome: approved (captured when the account captures automatically and risk accepted it),
// declined (2001), or abandoned (2009). Recorded like every authorisation, with the merchant's event. Only APM payments that
// still wait for the shopper are touched: a hosted-page payment is never completed from here.
// Past the method's deadline the page is closed, whether or not expire-abandoned-payments has run
// yet: an answer then reaches no processor, and the payment fails as abandoned, as the task would
// fail it (a completion already sent is left to the task, which asks the processor about it).
import { connectorCompletion } from '../payments/completion.ts';
import { paymentById } from '../../db/repositories/checkout.ts';
import type { PaymentRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import { recordLaterOutcome, type AuthorisationDecision } from '../payments/record-authorisation.ts';
import { waitingPayment, type Waiting } from '../payments/waiting.ts';

export type IssuerAnswer = 'approve' | 'decline' | 'abandon';

const ABANDONED: AuthorisationDecision = { status: 'declined', reason: 'abandoned' };

export async function completeApm(deps: Deps, paymentId: string, answer: IssuerAnswer): Promise<PaymentRow | null> {
  const waiting = await waitingApm(deps, paymentId);
  if (!waiting) return paymentById(deps.database.db, paymentId);
  if (pastDeadline(deps, waiting.payment)) return expire(deps, waiting);
  const outcome = await connectorCompletion(deps, waiting, 'completeRedirect', { answer });
  if (!outcome) return waiting.payment;
  const { context } = waiting;
  return recordLaterOutcome(deps, context, outcome);
}

/** The issuer page opened: past its deadline, the payment fails as abandoned first. The payment as it now stands. */
export async function apmAsOpened(deps: Deps, payment: PaymentRow): Promise<PaymentRow> {
  if (payment.status !== 'requires_redirect' || !pastDeadline(deps, payment)) return payment;
  const waiting = await waitingApm(deps, payment.id);
  return waiting ? expire(deps, waiting) : ((await paymentById(deps.database.db, payment.id)) ?? payment);
}

function waitingApm(deps: Deps, paymentId: string): Promise<Waiting | null> {
  return waitingPayment(deps, paymentId, 'requires_redirect', (payment) => payment.kind === 'apm');
}

function pastDeadline(deps: Deps, payment: PaymentRow): boolean {
  return payment.expiresAt !== null && payment.expiresAt <= deps.clock.now();
}

/** Abandoned, unless a completion was sent: its outcome is the processor's, which the task asks for. */
async function expire(deps: Deps, waiting: Waiting): Promise<PaymentRow> {
  if (waiting.payment.completionSentAt) return waiting.payment;
  return recordLaterOutcome(deps, waiting.context, ABANDONED);
}
