// A recurring charge held for review waits at most until its cycle's window closes (the next
// cycle falls due, docs/subscriptions.md): the billing task then rejects the hold itself
// (releaseLateReview in bill.ts, 3003) and the cycle is lost. An approval that comes after that
// close but before the task has run must not capture a charge the task is about to treat as
// unpaid: like an approval past the hold's expiry (capture/hold-expiry.ts), it judges the payment
// in the state the task will leave it (cancelled), so its answer (5007) does not depend on whether
// the task has run yet. Both paths judge by windowClosed, on the business clock.
import type { PaymentStatus } from '../../domain/payment.ts';
import { cycleWindowEnd } from '../../domain/subscriptions/schedule.ts';
import { planOf } from '../../domain/subscriptions/subscription.ts';
import type { Executor } from '../../db/client.ts';
import { findSubscription } from '../../db/repositories/subscriptions.ts';
import type { PaymentRow, SubscriptionRow } from '../../db/schema.ts';

/** Whether the window of the subscription's cycle `cycle` has closed at `now`: a hold of its charge is then the gateway's to release. */
export function windowClosed(subscription: SubscriptionRow, cycle: number, now: Date): boolean {
  return now >= cycleWindowEnd(planOf(subscription, subscription.anchorAt), cycle);
}

/** The subscription, and the cycle of it, that a payment held for review charges. */
export interface HeldCharge {
  readonly subscription: SubscriptionRow;
  readonly cycle: number;
}

/**
 * The recurring charge `payment` is, when it is held for review (its record names its
 * recurring_id and cycle, bill.ts); null otherwise. One read, of the subscription, and only for
 * such a payment: any other review costs no statement more. Not locked: the terms that set a
 * cycle's window (interval, anchor) never change.
 */
export async function heldChargeOf(tx: Executor, payment: PaymentRow): Promise<HeldCharge | null> {
  const { recurring_id: recurringId, cycle } = payment.request;
  if (payment.status !== 'pending_review' || typeof recurringId !== 'string' || typeof cycle !== 'string') return null;
  const subscription = await findSubscription(tx, payment.accountId, recurringId);
  return subscription ? { subscription, cycle: Number(cycle) } : null;
}

/** The state an approval judges a held recurring charge in: cancelled once its cycle's window has closed, as the billing task will leave it. */
export function statusOnceWindowClosed(status: PaymentStatus, held: HeldCharge | null, now: Date): PaymentStatus {
  return status === 'pending_review' && held && windowClosed(held.subscription, held.cycle, now) ? 'cancelled' : status;
}
