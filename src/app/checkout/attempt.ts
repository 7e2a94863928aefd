// One card attempt on the hosted page ends here, whether the processor answered at once or after
// a 3-D Secure challenge. A refusal leaves the page open for another try (up to MAX_ATTEMPTS),
// so the payment goes back to waiting for the shopper and the merchant hears nothing yet; any
// other outcome, and the last refusal, is recorded like every authorisation (recordLaterOutcome
// writes the merchant's event).
import { CODES, type CodeName } from '../../domain/errors.ts';
import { lockSession, movePayment, updateSession } from '../../db/repositories/checkout.ts';
import type { PaymentRow } from '../../db/schema.ts';
import { storedOrderDetails, type OrderDetails } from '../payments/command.ts';
import type { Deps } from '../context.ts';
import {
  DECLINE_CODES,
  recordLaterOutcome,
  type AuthorisationContext,
  type AuthorisationDecision,
} from '../payments/record-authorisation.ts';
import { checkTimes } from '../clock/check-times.ts';

/** Card attempts a hosted page allows before a refusal is final. */
export const MAX_ATTEMPTS = 5;

export async function settleAttempt(
  deps: Deps,
  sessionId: string,
  context: AuthorisationContext,
  outcome: AuthorisationDecision,
): Promise<PaymentRow> {
  const refusal = refusalCode(outcome);
  if (refusal) {
    const reopened = await deps.database.db.transaction(async (tx) => {
      const session = await lockSession(tx, sessionId);
      if (!session || session.attempts >= MAX_ATTEMPTS) return null;
      const risk = context.risk
        ? { riskScore: context.risk.score, riskAction: context.risk.action, riskReasons: [...context.risk.reasons] }
        : {};
      // processing → requires_redirect, or requires_authentication → (processing →) requires_redirect:
      // the attempt is over and the page waits for the next one.
      const payment = await movePayment(tx, context.paymentId, ['processing', 'requires_authentication'], 'requires_redirect', checkTimes(deps), {
        actionUrl: null,
        // The challenge's answer came back: the next attempt's completion is not one in flight.
        completionSentAt: null,
        threedsResult: outcome.status === 'declined' ? (outcome.threeDS ?? null) : null,
        resultCode: CODES.awaiting_shopper.code,
        resultMessage: CODES.awaiting_shopper.message,
        ...risk,
      });
      if (payment) await updateSession(tx, sessionId, { lastResultCode: CODES[refusal].code });
      return payment;
    });
    if (reopened) return reopened;
  }
  return recordLaterOutcome(deps, context, outcome);
}

function refusalCode(outcome: AuthorisationDecision): CodeName | undefined {
  if (outcome.status === 'refused') return outcome.code;
  if (outcome.status === 'declined' && outcome.reason !== 'abandoned') return DECLINE_CODES[outcome.reason];
  return undefined;
}

/** The order as the checkout request stated it, for the authorisation steps. */
export function orderOf(payment: PaymentRow, _now: Date): OrderDetails {
  return storedOrderDetails(payment);
}
