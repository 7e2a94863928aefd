// Payments the shopper walked away from fail as abandoned (2009, payment.failed event): an APM
// or hosted page past its deadline (payments.expires_at: the method's ttlMinutes, or the hosted
// page's SESSION_TTL_MS), and a 3-D Secure challenge not finished within CHALLENGE_TTL_MS. Both
// deadlines are next_check_at, set on the injected clock; each payment is leased
// (QUEUES.abandonedPayments) before it is expired. recordLaterOutcome records only from the
// state it was found in, so a payment the shopper completes meanwhile keeps its outcome.
//
// A payment whose completion was sent to the processor (completion_sent_at) may have been
// approved, and even captured, with the answer lost on its way back: unknown is pending, never
// failure. Such a payment is failed only once the processor says it was not approved; approved,
// its outcome is recorded as the completion would have; no clear answer leaves it waiting, asked
// again when its lease runs out. A completion still in flight is not asked about before it has
// surely ended (unknownAfterMs after it was sent, wall time).
import type { AuthoriseOutcome } from '../../connectors/port.ts';
import { accountById } from '../../db/repositories/checkout.ts';
import { QUEUES } from '../../db/repositories/leases.ts';
import { leaseDuePayments } from '../../db/repositories/payments.ts';
import type { PaymentRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import { recordLaterOutcome, type AuthorisationDecision } from '../payments/record-authorisation.ts';
import { statusAtProcessor } from '../payments/status-at-processor.ts';
import { storedRisk } from '../payments/waiting.ts';

const LEASE_MS = 60_000;
const ABANDONED: AuthorisationDecision = { status: 'declined', reason: 'abandoned' };

export async function expireAbandonedPayments(deps: Deps, limit = 50): Promise<number> {
  // Held past a status query's deadline, so no other worker asks about the same payment meanwhile.
  const leaseMs = Math.max(LEASE_MS, deps.config.processor.leaseMs);
  const due = await leaseDuePayments(deps.database.db, QUEUES.abandonedPayments, deps, limit, leaseMs);
  let expired = 0;
  for (const payment of due) {
    const account = await accountById(deps.database.db, payment.accountId);
    if (!account) continue;
    const outcome = await outcomeAtProcessor(deps, payment);
    if (!outcome) continue; // unknown: still waiting, asked again once the lease runs out
    const risk = outcome.status === 'approved' ? storedRisk(payment) : undefined;
    const after = await recordLaterOutcome(
      deps,
      { account, paymentId: payment.id, current: payment, onlyFrom: [payment.status], ...(risk ? { risk } : {}) },
      outcome,
    );
    if (after.status !== payment.status) expired += 1;
  }
  return expired;
}

/** Abandoned, unless a completion was sent: then what the processor says of it, or undefined while that is unknown. */
async function outcomeAtProcessor(deps: Deps, payment: PaymentRow): Promise<AuthorisationDecision | undefined> {
  if (!payment.completionSentAt) return ABANDONED;
  if (deps.wallClock.now().getTime() < payment.completionSentAt.getTime() + deps.config.processor.unknownAfterMs) return undefined;
  const answer = await statusAtProcessor(deps, payment);
  if (!answer) return undefined;
  if (!answer.ok) {
    deps.log.warn({ paymentId: payment.id, connector: payment.connector, kind: answer.error.kind }, 'outcome of a sent completion unknown: not expired yet');
    return undefined;
  }
  return afterCompletion(answer.value);
}

/** Approved stands; anything but approved or pending means the shopper was never charged: abandoned. */
function afterCompletion(outcome: AuthoriseOutcome): AuthorisationDecision | undefined {
  if (outcome.status === 'approved') return outcome;
  if (outcome.status === 'pending') return undefined;
  return ABANDONED;
}
