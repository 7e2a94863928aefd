// Payments the shopper walked away from fail as abandoned (2009, payment.failed event): an APM
// or hosted page past its deadline (payments.expires_at: the method's ttlMinutes, or the hosted
// page's SESSION_TTL_MS), and a 3-D Secure challenge not finished within CHALLENGE_TTL_MS.
// recordAuthorisation locks each row and records only from the state it was found in, so a
// payment the shopper completes meanwhile keeps its outcome, and two workers expire it once.
import { abandonedPayments, accountById } from '../../db/repositories/checkout.ts';
import type { PaymentStatus } from '../../domain/payment.ts';
import type { Deps } from '../context.ts';
import { recordAuthorisation } from '../payments/record-authorisation.ts';
import { CHALLENGE_TTL_MS } from '../threeds/complete.ts';

export async function expireAbandonedPayments(deps: Deps, limit = 50): Promise<number> {
  const now = deps.clock.now();
  const due = await abandonedPayments(deps.database.db, now, new Date(now.getTime() - CHALLENGE_TTL_MS), limit);
  let expired = 0;
  for (const payment of due) {
    const account = await accountById(deps.database.db, payment.accountId);
    if (!account) continue;
    const after = await recordAuthorisation(
      deps,
      { account, paymentId: payment.id, onlyFrom: [payment.status as PaymentStatus] },
      { status: 'declined', reason: 'abandoned' },
    );
    if (after.status !== payment.status) expired += 1;
  }
  return expired;
}
