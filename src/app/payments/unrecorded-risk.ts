// A payment's risk decision is recorded with its first outcome, not at the claim: the hot path
// writes nothing beyond its two statements (docs/performance.md). A process that dies between
// the processor's approval and that record leaves the claim with no decision for the sweeper,
// and the decision cannot be made again: it read the card's number, which only the request's
// memory held, and the account's settings and the velocity counts may have moved since. The
// approval still tells part of it: risk never lets a payment it rejects reach the processor, and
// asks a capture only of one it accepts. So an approval the processor captured was accepted; any
// other may be one risk wanted held, and is held for review as that one would have been, so that
// nothing captures it before a person decides.
import type { AuthoriseOutcome } from '../../connectors/port.ts';
import { CODES } from '../../domain/errors.ts';
import { riskSettingsFor, type RiskDecision } from '../../domain/risk.ts';
import type { AccountRow, PaymentRow } from '../../db/schema.ts';
import { storedRisk } from './waiting.ts';

/** The rule in `risk_reasons` of an approval held because its decision was never recorded. */
const DECISION_UNRECORDED = 'decision_unrecorded';

/** The risk decision to record the processor's later answer about a `processing` payment with. */
export function riskOfLaterAnswer(account: AccountRow, payment: PaymentRow, outcome: AuthoriseOutcome): RiskDecision | undefined {
  // Answered pending: recorded with this attempt's decision (a hosted page's row may hold an
  // earlier attempt's otherwise).
  if (payment.resultCode === CODES.pending.code) return storedRisk(payment);
  if (outcome.status !== 'approved' || outcome.captured) return undefined;
  return { score: riskSettingsFor(account.riskSettings).reviewScore, action: 'review', reasons: [{ name: DECISION_UNRECORDED, status: 'hit' }] };
}
