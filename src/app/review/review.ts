// /v1/review: decides payments that risk held for review (status pending_review, such as the
// review test card of docs/api/authorise.md). `review_flag` 1 approves: the payment is captured on an
// auto-capture account, or becomes authorised (awaiting /v1/capture) on a manual one. 0 rejects:
// the authorisation is voided at the processor and the hold released (cancelled, 3002). The
// gateway makes the same rejection itself (expireReview, 3003) for a recurring charge's hold that
// no one decided before its cycle's window closed (docs/subscriptions.md).
//
// In a keyed request (Idempotency-Key) each decision is recorded under the order's key, so a
// request that takes the key over from a dead one answers it instead of deciding again: the
// capture or void claimed under it (as /v1/capture and /v1/cancel), or, for a manual-capture
// approval, which claims nothing at the processor, the key kept on the payment it authorised.
import { CODES } from '../../domain/errors.ts';
import { refusalFor } from '../../domain/lifecycle.ts';
import { PAYMENT_MACHINE, type PaymentStatus } from '../../domain/payment.ts';
import { transitionPayment } from '../../db/repositories/payments.ts';
import type { AccountRow, PaymentOperationRow, PaymentRow, SubscriptionRow } from '../../db/schema.ts';
import { runUnitOfWork } from '../../db/unit-of-work.ts';
import type { Transition } from '../../domain/state-machine.ts';
import { assertSameAmount, assertSameCurrency, refuse, type Outcome, type OrderRef } from '../batch/orders.ts';
import {
  assertNoLiveOperation,
  claimOperation,
  executeOperation,
  lockKeyedOrder,
  outcomeOf,
  type KeyedOrder,
  type OperationKind,
  type OperationOrigin,
} from '../capture/operation.ts';
import { statusOnceExpired } from '../capture/hold-expiry.ts';
import type { Deps } from '../context.ts';
import { paymentEventPayload } from '../payments/events.ts';
import { openOnApproval } from '../subscriptions/open.ts';
import { heldChargeOf, statusOnceWindowClosed, type HeldCharge } from '../subscriptions/review-window.ts';
import { checkTimes } from '../clock/check-times.ts';

export interface ReviewOrder extends OrderRef {
  readonly approve: boolean;
}

/** What a review decision changes: a capture or void claimed, or (manual capture, approved) the payment authorised. */
type ReviewChange =
  | { readonly claim: { kind: OperationKind; origin: OperationOrigin }; readonly payment: PaymentRow }
  | { readonly approve: Transition<PaymentStatus>; readonly payment: PaymentRow };

/** The order locked, and (an approval of a held recurring charge) the charge it is, whose cycle's window bounds it. */
type ReviewLocked = KeyedOrder & { readonly held: HeldCharge | null };

/**
 * The payment, and the capture or void claimed: now, or (`earlier`) by this keyed request before
 * it was taken over. No operation: the payment was approved (manual capture), now or before.
 */
type ReviewWritten = { readonly payment: PaymentRow; readonly operation?: PaymentOperationRow; readonly earlier?: boolean; readonly subscription?: SubscriptionRow | null };

export function review(deps: Deps, account: AccountRow, order: ReviewOrder): Promise<Outcome> {
  return decide(deps, account, order, 'review_reject');
}

/** The gateway's own rejection of a payment still held for review past its deadline: the hold is released (cancelled, 3003). */
export function expireReview(deps: Deps, account: AccountRow, payment: PaymentRow): Promise<Outcome> {
  const order = { transactionId: payment.id, orderNo: payment.orderNo, currency: payment.currency, amount: payment.amount, approve: false };
  return decide(deps, account, order, 'review_expired');
}

async function decide(deps: Deps, account: AccountRow, order: ReviewOrder, rejection: 'review_reject' | 'review_expired'): Promise<Outcome> {
  const next = await runUnitOfWork<ReviewLocked, ReviewChange, ReviewWritten>(deps.database, {
    async lock(tx) {
      const keyed = await lockKeyedOrder(tx, account.id, order);
      return { ...keyed, held: order.approve ? await heldChargeOf(tx, keyed.payment) : null };
    },
    check({ payment, earlier, held }) {
      if (earlier) return { answer: { payment, operation: earlier, earlier: true } };
      if (approvedUnderKey(payment, order)) return { answer: { payment } };
      assertSameCurrency(payment, order);
      assertSameAmount(payment, order);
      // An approval of a hold past its expiry, or of a recurring charge past its cycle's window, is
      // refused as the expiry round or the billing task will leave it (hold-expiry.ts,
      // review-window.ts); a rejection still voids it, and so do their own (expireReview).
      const judged = order.approve ? statusOnceWindowClosed(statusOnceExpired(deps, payment), held, deps.clock.now()) : (payment.status as PaymentStatus);
      refuse(refusalFor('review', judged));
      if (!order.approve) return { change: { payment, claim: { kind: 'void', origin: rejection } } };
      if (account.captureMode === 'auto') return { change: { payment, claim: { kind: 'capture', origin: 'review_approve' } } };
      // Manual capture: approved means authorised; the hold stays until /v1/capture or /v1/cancel.
      return { change: { payment, approve: PAYMENT_MACHINE.move(payment.status, 'authorised') } };
    },
    async change(tx, change) {
      if ('claim' in change) {
        const claim = { ...change.claim, amount: change.payment.amount, requestKey: order.requestKey };
        return { payment: change.payment, operation: await claimOperation(tx, deps, change.payment, claim) };
      }
      await assertNoLiveOperation(tx, change.payment.id);
      const approved = await transitionPayment(tx, change.payment.id, change.approve, checkTimes(deps), {
        resultCode: CODES.success.code,
        resultMessage: CODES.success.message,
        reviewRequestKey: order.requestKey ?? null,
      });
      return openOnApproval(tx, deps.clock.now(), change.approve, approved);
    },
    event: (change, { payment, subscription }) =>
      'approve' in change
        ? { accountId: account.id, type: 'payment.authorised', paymentId: payment.id, payload: paymentEventPayload('payment.authorised', payment, subscription ?? null), notifyUrl: payment.notifyUrl }
        : undefined,
  });
  if (!next.operation) return { status: 'succeeded' };
  if (next.earlier) return outcomeOf({ status: next.operation.status, payment: next.payment, operation: next.operation });
  return outcomeOf(await executeOperation(deps, next.operation, next.payment, 'pending'));
}

/** Whether this keyed order approved the payment before (a manual-capture approval, which claims no operation to find). */
function approvedUnderKey(payment: PaymentRow, order: ReviewOrder): boolean {
  return order.requestKey !== undefined && payment.reviewRequestKey === order.requestKey;
}
