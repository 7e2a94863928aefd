// Payments the shopper walked away from fail as abandoned (2009, payment.failed event): an APM
// or hosted page past its deadline (payments.expires_at: the method's ttlMinutes, or the hosted
// page's SESSION_TTL_MS), and a 3-D Secure challenge not finished within CHALLENGE_TTL_MS. Both
// deadlines are next_check_at, set on the injected clock; each payment is leased
// (QUEUES.abandonedPayments) before it is expired. recordLaterOutcome records only from the
// state it was found in, so a payment the shopper completes meanwhile keeps its outcome.
import { accountById } from '../../db/repositories/checkout.ts';
import { QUEUES } from '../../db/repositories/leases.ts';
import { leaseDuePayments } from '../../db/repositories/payments.ts';
import type { Deps } from '../context.ts';
import { recordLaterOutcome } from '../payments/record-authorisation.ts';

const LEASE_MS = 60_000;

export async function expireAbandonedPayments(deps: Deps, limit = 50): Promise<number> {
  const due = await leaseDuePayments(deps.database.db, QUEUES.abandonedPayments, deps, limit, LEASE_MS);
  let expired = 0;
  for (const payment of due) {
    const account = await accountById(deps.database.db, payment.accountId);
    if (!account) continue;
    const after = await recordLaterOutcome(
      deps,
      { account, paymentId: payment.id, current: payment, onlyFrom: [payment.status] },
      { status: 'declined', reason: 'abandoned' },
    );
    if (after.status !== payment.status) expired += 1;
  }
  return expired;
}
