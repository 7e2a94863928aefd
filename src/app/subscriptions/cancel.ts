// Cancelling a subscription (/v1/cancelsubscription, `acquiro subscriptions cancel`): under the
// subscription's lock, an Active (or Unpaid) one becomes Inactived and no charge is ever started
// for it again. An attempt a worker already marked sent (under this same lock, bill.ts) follows its
// own course (the billing sweeper records it and schedules nothing after it); the merchant cancels
// or refunds that payment itself. One claimed but not yet marked sent is never sent: the worker
// that takes it up sees the cancel and fails it (5017). A repeat
// answers the same and changes nothing; another account's subscription is answered like an
// unknown one.
import type { CodeName } from '../../domain/errors.ts';
import { merchantReferences, SUBSCRIPTION_MACHINE } from '../../domain/subscriptions/subscription.ts';
import { lockSubscription, transitionSubscription } from '../../db/repositories/subscriptions.ts';
import type { AccountRow, SubscriptionRow } from '../../db/schema.ts';
import { runUnitOfWork } from '../../db/unit-of-work.ts';
import type { Deps } from '../context.ts';

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
      const cancelled = await transitionSubscription(tx, subscription.id, SUBSCRIPTION_MACHINE.move(subscription.status, 'Inactived'), {
        nextChargeAt: null,
        nextDueAt: null,
        lockedUntil: null,
        endedAt: now,
      });
      return { status: 'cancelled', subscription: cancelled };
    },
    event: (_change, written) =>
      written.status === 'cancelled'
        ? {
            accountId: written.subscription.accountId,
            type: 'subscription.cancelled',
            payload: {
              notify_type: 'subscription.cancelled',
              merchant_id: written.subscription.merchantId,
              account_id: written.subscription.accountId,
              recurring_id: written.subscription.id,
              contract_name: written.subscription.contractName,
              ...merchantReferences(written.subscription),
              subscription_status: written.subscription.status,
              cycles_paid: String(written.subscription.cyclesPaid),
            },
            notifyUrl: written.subscription.notifyUrl,
          }
        : undefined,
  });
}
