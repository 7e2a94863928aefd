// The end of a 3-D Secure challenge: the issuer's result completes the payment. Authenticated,
// it is approved (captured when the account captures automatically and risk accepted it);
// otherwise it fails with 2007. On the hosted page a failure leaves room for another try
// (settleAttempt); everywhere else the outcome is recorded, with the merchant's event.
//
// A challenge the shopper never finishes is failed as abandoned after CHALLENGE_TTL_MS by the
// expire-abandoned-payments task.
import type { AuthoriseOutcome } from '../../connectors/port.ts';
import { findSessionOfPayment, paymentById } from '../../db/repositories/checkout.ts';
import type { PaymentRow } from '../../db/schema.ts';
import { settleAttempt } from '../checkout/attempt.ts';
import type { Deps } from '../context.ts';
import { recordAuthorisation } from '../payments/record-authorisation.ts';
import { waitingPayment } from '../payments/waiting.ts';

export { CHALLENGE_TTL_MS } from '../../domain/payment.ts';

export interface ChallengeResult {
  readonly authenticated: boolean;
  readonly threeDS: string;
}

/** The payment after the challenge; unchanged when it was not waiting for one. */
export async function completeChallenge(deps: Deps, paymentId: string, result: ChallengeResult): Promise<PaymentRow | null> {
  const waiting = await waitingPayment(deps, paymentId, 'requires_authentication');
  if (!waiting) return paymentById(deps.database.db, paymentId);
  const { payment, context, capture, reference } = waiting;
  const outcome: AuthoriseOutcome = result.authenticated
    ? { status: 'approved', reference, captured: capture, threeDS: result.threeDS }
    : { status: 'declined', reason: 'authentication_failed', reference, threeDS: result.threeDS };
  if (payment.kind === 'checkout') {
    const session = await findSessionOfPayment(deps.database.db, payment.id);
    if (session) return settleAttempt(deps, session.id, context, outcome);
  }
  return recordAuthorisation(deps, context, outcome);
}
