// Holds at the processor that no one ended expire on their connector's schedule
// (`schedule.authorisationExpiryDays`; the sandbox's seven days, on the injected clock, counted
// from the payment's held_since: when the processor authorised it, which the clock stamped, not
// when the payment was created; an APM voucher paid on day 3 keeps its hold until day 10). An
// authorisation never captured is voided at the connector like a /v1/cancel: cancelled with 2010.
// A payment still held for review is an authorisation too, which the card network drops after the
// same days: the gateway rejects it as its review would (expireReview: a void of origin
// review_expired, cancelled with 3003). Either way the hold's journal is released and the merchant
// notified (payment.cancelled). docs/states.md.
// A capture or a review approval that reaches a due hold before this round does is refused already,
// with the answer it gets once the round has run (hold-expiry.ts); the round records the expiry.
//
// Each due payment is leased first (QUEUES.expiringAuthorisations, in a short statement that
// commits before the processor is asked), so two workers never void the same one at once and a
// crashed worker's payment is taken up when its lease runs out. The void is then claimed as a unit
// of work under the payment's lock, exactly as /v1/cancel (or /v1/review) claims one; a void left
// pending (the answer lost, the worker killed) is settled by resolvePendingOperations. A recurring
// charge held for review also ends at its cycle's window (bill.ts), whichever comes first: both
// paths claim under the same lock and status check, so only one of them releases it.
import { AppError } from '../../domain/errors.ts';
import { accountById } from '../../db/repositories/checkout.ts';
import { QUEUES } from '../../db/repositories/leases.ts';
import { leaseDuePayments, lockPayment } from '../../db/repositories/payments.ts';
import type { PaymentOperationRow, PaymentRow } from '../../db/schema.ts';
import { runUnitOfWork } from '../../db/unit-of-work.ts';
import type { Deps } from '../context.ts';
import { expireReview } from '../review/review.ts';
import { expiryLineOf } from './hold-expiry.ts';
import { claimOperation, executeOperation } from './operation.ts';

const HOLDS_CONNECTORS_SQL = `SELECT DISTINCT connector FROM payments WHERE status IN ('authorised', 'pending_review')`;

/** One round; answers how many holds (authorisations and payments held for review) it released. */
export async function expireAuthorisations(deps: Deps, limit = 50): Promise<number> {
  // The connectors of the holds themselves (payments_holds_age), not of the accounts: an account
  // routed to another connector since leaves its holds on the one that took them.
  const connectors = await deps.database.query<{ connector: string }>(HOLDS_CONNECTORS_SQL);
  let released = 0;
  for (const { connector: name } of connectors) {
    // The same line a capture or an approval judges by (hold-expiry.ts).
    const dueBy = expiryLineOf(deps, name);
    if (!dueBy) continue;
    const due = await leaseDuePayments(deps.database.db, QUEUES.expiringAuthorisations, deps, limit, deps.config.processor.leaseMs, { dueBy, scope: name });
    for (const leased of due) if (await release(deps, leased)) released += 1;
  }
  return released;
}

/** Ends one leased hold; answers whether the processor released it now. */
async function release(deps: Deps, leased: PaymentRow): Promise<boolean> {
  if (leased.status === 'pending_review') return releaseReview(deps, leased);
  const claimed = await claimExpiry(deps, leased);
  if (!claimed) return false;
  return (await executeOperation(deps, claimed.operation, claimed.payment)).status === 'succeeded';
}

/**
 * Rejects a leased payment still held for review (3003). Refused when it was decided meanwhile (a
 * reviewer, a /v1/cancel, its subscription's own deadline) or a void of it is in progress: its
 * state then stands, and the pending void is the sweeper's.
 */
async function releaseReview(deps: Deps, leased: PaymentRow): Promise<boolean> {
  const account = await accountById(deps.database.db, leased.accountId);
  if (!account) return false;
  try {
    return (await expireReview(deps, account, leased)).status === 'succeeded';
  } catch (error) {
    if (error instanceof AppError) return false;
    throw error;
  }
}

type Claimed = { readonly payment: PaymentRow; readonly operation: PaymentOperationRow };

/** Claims the void of a leased authorisation; null when it was captured or cancelled meanwhile, or a capture or void of it is in progress. */
async function claimExpiry(deps: Deps, leased: PaymentRow): Promise<Claimed | null> {
  return runUnitOfWork<PaymentRow | null, PaymentRow, Claimed | null>(deps.database, {
    lock: (tx) => lockPayment(tx, leased.accountId, leased.id),
    check: (payment) => (payment?.status === 'authorised' ? { change: payment } : { answer: null }),
    change: async (tx, payment) => ({ payment, operation: await claimOperation(tx, deps, payment, { kind: 'void', origin: 'expiry', amount: payment.amount }) }),
  }).catch((error: unknown) => {
    if (error instanceof AppError) return null; // a capture or void of it is in progress: its lease runs out and it is looked at again
    throw error;
  });
}
