// Cancelling a subscription (/v1/cancelsubscription, `acquiro subscriptions cancel`): under the
// subscription's lock, an Active (or Unpaid) one becomes Inactived and no charge is ever started
// for it again. An attempt a worker already marked sent (under this same lock, bill.ts) follows its
// own course (the billing sweeper records it and schedules nothing after it); the merchant cancels
// or refunds that payment itself. One claimed but not yet marked sent is never sent: the worker
// that takes it up sees the cancel and fails it (5017). A repeat
// answers the same and changes nothing; another account's subscription is answered like an
// unknown one. The gateway cancels a subscription the same way when its first payment is voided
// or its authorisation expires uncaptured (endWithFirstPayment, from the void's unit of work).
import type { CodeName } from '../../domain/errors.ts';
import { merchantReferences, SUBSCRIPTION_MACHINE, type SubscriptionStatus } from '../../domain/subscriptions/subscription.ts';
import type { Tx } from '../../db/client.ts';
import type { NewEvent } from '../../db/repositories/events.ts';
import { lockSubscription, transitionSubscription } from '../../db/repositories/subscriptions.ts';
import type { AccountRow, PaymentRow, SubscriptionRow } from '../../db/schema.ts';
import { runUnitOfWork } from '../../db/unit-of-work.ts';
import type { Deps } from '../context.ts';

/** What a cancel may end: an Active subscription, or an Unpaid one, ended for good. */
const ENDED_BY_CANCEL: ReadonlySet<SubscriptionStatus> = new Set(['Active', 'Unpaid']);

export interface CancelSubscriptionCommand {
  readonly recurringId: string;
  /** The merchant names the contract too (the API); an operator's cancel (the CLI) need not. */
  readonly contractName?: string;
}

export type CancelOutcome =
  | { readonly status: 'cancelled'; readonly subscription: SubscriptionRow }
  /** `subscription`: the one refused, as it stands, when it was identified (recurring_id and contract_name) but cannot be cancelled. */
  | { readonly status: 'refused'; readonly code: CodeName; readonly subscription?: SubscriptionRow };

export async function cancelSubscription(deps: Pick<Deps, 'database' | 'clock'>, account: AccountRow, command: CancelSubscriptionCommand): Promise<CancelOutcome> {
  const now = deps.clock.now();
  return runUnitOfWork<SubscriptionRow | null, SubscriptionRow, CancelOutcome>(deps.database, {
    lock: (tx) => lockSubscription(tx, account.id, command.recurringId),
    check(subscription) {
      if (!subscription) return { answer: { status: 'refused', code: 'subscription_not_found' } };
      if (command.contractName !== undefined && command.contractName !== subscription.contractName) {
        return { answer: { status: 'refused', code: 'contract_name_mismatch' } };
      }
      if (subscription.status === 'Inactived') return { answer: { status: 'cancelled', subscription } };
      if (subscription.status === 'Completed') return { answer: { status: 'refused', code: 'subscription_ended', subscription } };
      return { change: subscription };
    },
    async change(tx, subscription) {
      const cancelled = await inactivate(tx, subscription, now);
      return { status: 'cancelled', subscription: cancelled };
    },
    event: (_change, written) => (written.status === 'cancelled' ? cancelledEvent(written.subscription, 'merchant') : undefined),
  });
}

/**
 * Why a subscription was cancelled (`cancel_reason` of subscription.cancelled): the merchant's
 * cancel (the API, the portal, `acquiro subscriptions cancel`), or the gateway's own when the
 * first payment was voided (/v1/cancel, the portal) or its authorisation expired uncaptured.
 */
export type CancelReason = 'merchant' | 'first_payment_cancelled' | 'first_payment_expired';

/** The subscription.cancelled event of a subscription just cancelled. */
export function cancelledEvent(subscription: SubscriptionRow, reason: CancelReason): NewEvent {
  return {
    accountId: subscription.accountId,
    type: 'subscription.cancelled',
    payload: {
      notify_type: 'subscription.cancelled',
      merchant_id: subscription.merchantId,
      account_id: subscription.accountId,
      recurring_id: subscription.id,
      contract_name: subscription.contractName,
      ...merchantReferences(subscription),
      subscription_status: subscription.status,
      cycles_paid: String(subscription.cyclesPaid),
      cancel_reason: reason,
    },
    notifyUrl: subscription.notifyUrl,
  };
}

/**
 * The gateway's cancel of the subscription `payment` began, when that first payment is voided (a
 * merchant's void, or its authorisation expired uncaptured), called from the change step of the
 * unit of work that records the void, the payment locked: an Active or Unpaid subscription becomes
 * Inactived as the merchant's cancel makes it, so no later cycle charges a shopper whose first
 * payment was cancelled. Answers the subscription ended (its subscription.cancelled is the
 * caller's to record, with the reason), or null when the payment is no subscription's first
 * payment, or that subscription had ended already.
 */
export async function endWithFirstPayment(tx: Tx, now: Date, payment: PaymentRow): Promise<SubscriptionRow | null> {
  if (!payment.subscriptionId) return null;
  const subscription = await lockSubscription(tx, payment.accountId, payment.subscriptionId);
  if (!subscription || subscription.firstPaymentId !== payment.id || !ENDED_BY_CANCEL.has(subscription.status)) return null;
  return inactivate(tx, subscription, now);
}

/** Writes the cancel of a locked Active or Unpaid subscription: Inactived, nothing due any more. */
export function inactivate(tx: Tx, subscription: SubscriptionRow, now: Date): Promise<SubscriptionRow> {
  return transitionSubscription(tx, subscription.id, SUBSCRIPTION_MACHINE.move(subscription.status, 'Inactived'), {
    nextChargeAt: null,
    nextDueAt: null,
    lockedUntil: null,
    endedAt: now,
  });
}
