// Payments whose outcome the processor did not tell us (timeout, unreadable answer), or whose
// outcome a dying process never recorded, stay `processing`: pending, never success. This asks the
// processor again, later, and records what it says, with the risk decision unrecorded-risk.ts
// gives; until it gives a clear answer the payment stays pending. Each payment is leased
// (QUEUES.unknownPayments) before the processor is asked, so two workers never ask about the same
// payment at once, and a worker that dies leaves it to be taken up when its lease runs out.
import { CONNECTOR_TIMEOUT_SECONDS, processorTimers } from '../../config.ts';
import { accountById } from '../../db/repositories/checkout.ts';
import { leaseDuePayments, rescheduleCheck } from '../../db/repositories/payments.ts';
import { QUEUES } from '../../db/repositories/leases.ts';
import type { Deps } from '../context.ts';
import { recordLaterOutcome } from './record-authorisation.ts';
import { statusAtProcessor } from './status-at-processor.ts';
import { riskOfLaterAnswer } from './unrecorded-risk.ts';

/** The wait before an unknown outcome is asked about with the default ACQUIRO_CONNECTOR_TIMEOUT (35 s). */
export const UNKNOWN_AFTER_MS = processorTimers(CONNECTOR_TIMEOUT_SECONDS * 1000).unknownAfterMs;

export async function resolveUnknownPayments(deps: Deps, limit = 50): Promise<number> {
  const leased = await leaseDuePayments(deps.database.db, QUEUES.unknownPayments, deps, limit, deps.config.processor.leaseMs);
  let resolved = 0;
  for (const payment of leased) {
    const answer = await statusAtProcessor(deps, payment);
    if (!answer?.ok || answer.value.status === 'pending') {
      // Asked again no sooner than the next window.
      await rescheduleCheck(deps.database.db, payment.id, new Date(deps.wallClock.now().getTime() + deps.config.processor.unknownAfterMs));
      continue;
    }
    const account = await accountById(deps.database.db, payment.accountId);
    if (!account) continue;
    const risk = riskOfLaterAnswer(account, payment, answer.value);
    await recordLaterOutcome(deps, { account, paymentId: payment.id, current: payment, ...(risk ? { risk } : {}) }, answer.value);
    resolved += 1;
  }
  return resolved;
}
