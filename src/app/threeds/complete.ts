// The end of a 3-D Secure challenge: the issuer's result goes to the payment's connector, which
// answers the outcome (the core never decides "approved" itself). Approved, the payment is
// captured when the account captures automatically and risk accepted it; declined, it fails
// with 2007. On the hosted page a failure leaves room for another try
// (settleAttempt); everywhere else the outcome is recorded, with the merchant's event.
//
// A challenge the shopper never finishes is failed as abandoned after CHALLENGE_TTL_MS by the
// expire-abandoned-payments task.
import type { AuthenticationResult } from '../../connectors/port.ts';
import { connectorCompletion } from '../payments/completion.ts';
import { findSessionOfPayment, paymentById } from '../../db/repositories/checkout.ts';
import type { PaymentRow } from '../../db/schema.ts';
import { settleAttempt } from '../checkout/attempt.ts';
import type { Deps } from '../context.ts';
import { recordLaterOutcome } from '../payments/record-authorisation.ts';
import { waitingPayment } from '../payments/waiting.ts';

export { CHALLENGE_TTL_MS } from '../../domain/payment.ts';

/** What the ACS told us, passed on to the connector as it came. */
export type ChallengeResult = AuthenticationResult;

/** The payment after the challenge; unchanged when it was not waiting for one. */
export async function completeChallenge(deps: Deps, paymentId: string, result: ChallengeResult): Promise<PaymentRow | null> {
  const waiting = await waitingPayment(deps, paymentId, 'requires_authentication');
  if (!waiting) return paymentById(deps.database.db, paymentId);
  const { payment, context } = waiting;
  const outcome = await connectorCompletion(deps, waiting, 'completeAuthentication', result);
  if (!outcome) return payment; // no answer yet: the challenge can be answered again, or expires
  if (payment.kind === 'checkout') {
    const session = await findSessionOfPayment(deps.database.db, payment.id);
    if (session) return settleAttempt(deps, session.id, context, outcome);
  }
  return recordLaterOutcome(deps, context, outcome);
}
