// The end of a 3-D Secure challenge: the issuer's result completes the payment. Authenticated,
// it is approved (captured when the account captures automatically and risk accepted it);
// otherwise it fails with 2007. On the hosted page a failure leaves room for another try
// (settleAttempt); everywhere else the outcome is recorded, with the merchant's event.
//
// A challenge the shopper never finishes is failed as abandoned after CHALLENGE_TTL_MS by the
// expire-abandoned-payments task.
import { findSessionOfPayment, accountById, paymentById } from '../../db/repositories/checkout.ts';
import type { PaymentRow } from '../../db/schema.ts';
import type { RiskAction } from '../../domain/risk.ts';
import type { AuthoriseOutcome } from '../../connectors/port.ts';
import { settleAttempt } from '../checkout/attempt.ts';
import type { Deps } from '../context.ts';
import { recordAuthorisation, type AuthorisationContext } from '../payments/record-authorisation.ts';

export const CHALLENGE_TTL_MS = 30 * 60_000;

export interface ChallengeResult {
  readonly authenticated: boolean;
  readonly threeDS: string;
}

/** The payment after the challenge; unchanged when it was not waiting for one. */
export async function completeChallenge(deps: Deps, paymentId: string, result: ChallengeResult): Promise<PaymentRow | null> {
  const payment = await paymentById(deps.database.db, paymentId);
  if (!payment || payment.status !== 'requires_authentication') return payment;
  const account = await accountById(deps.database.db, payment.accountId);
  if (!account) throw new Error(`account ${payment.accountId} not found`);
  const risk =
    payment.riskAction && payment.riskScore !== null
      ? { score: payment.riskScore, action: payment.riskAction as RiskAction, reasons: payment.riskReasons ?? [] }
      : undefined;
  const context: AuthorisationContext = { account, paymentId, onlyFrom: ['requires_authentication'], ...(risk ? { risk } : {}) };
  const reference = payment.connectorReference ?? payment.id;
  const outcome: AuthoriseOutcome = result.authenticated
    ? { status: 'approved', reference, captured: account.captureMode === 'auto' && risk?.action !== 'review', threeDS: result.threeDS }
    : { status: 'declined', reason: 'authentication_failed', reference, threeDS: result.threeDS };
  if (payment.kind === 'checkout') {
    const session = await findSessionOfPayment(deps.database.db, payment.id);
    if (session) return settleAttempt(deps, session.id, context, outcome);
  }
  return recordAuthorisation(deps, context, outcome);
}
