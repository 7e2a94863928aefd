// What an operator sees and changes of an account's subscriptions (`acquiro subscriptions
// list|show|cancel`, `acquiro accounts dunning show|set`): the subscriptions with their history of
// charges, and the account's retry schedule for declined charges.
import { eq } from 'drizzle-orm';
import { AppError } from '../../domain/errors.ts';
import { formatAmount } from '../../domain/money.ts';
import { keepsRetryMinimum, MAX_RETRY_DAYS, nextDeductionAt, RETRY_MINIMUM_RULE, validRetryDays, type DunningSettings } from '../../domain/subscriptions/subscription.ts';
import { announceAccountChange } from '../../db/repositories/accounts.ts';
import { chargesNewestFirst, chargesOf, findSubscription, listSubscriptions } from '../../db/repositories/subscriptions.ts';
import { accounts, type AccountRow, type SubscriptionChargeRow, type SubscriptionRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import { operatorAccount } from '../accounts/of-merchant.ts';
import { cancelSubscription, type CancelOutcome } from './cancel.ts';

type Db = Pick<Deps, 'database'>;

const accountOf = (deps: Db, merchantId: string, accountId: string): Promise<AccountRow> => operatorAccount(deps.database.db, merchantId, accountId);

const time = (date: Date | null) => (date ? date.toISOString() : '');

export type SubscriptionView = ReturnType<typeof subscriptionView>;

/** A subscription as the CLI prints it: amounts in the currency's units, times in ISO 8601. */
export function subscriptionView(subscription: SubscriptionRow) {
  return {
    recurring_id: subscription.id,
    status: subscription.status,
    contract_name: subscription.contractName,
    contract: subscription.contract ?? '',
    price_id: subscription.priceId ?? '',
    period: `${subscription.intervalCount} ${subscription.interval}`,
    first_amount: formatAmount(subscription.firstAmount, subscription.currency),
    contract_amount: formatAmount(subscription.contractAmount, subscription.currency),
    currency: subscription.currency,
    billing_cycle: subscription.billingCycles,
    promotion_cycle: subscription.promotionCycles,
    contract_start: subscription.contractStart ?? '',
    contract_end: subscription.contractEnd ?? '',
    cycles_paid: subscription.cyclesPaid,
    // recurring_deduction_time's instant: while a charge is under way (at the processor, held for
    // review), the due time of the cycle it collects, not nothing, as if none would be taken.
    next_charge_at: time(nextDeductionAt(subscription)),
    first_transaction_id: subscription.firstPaymentId,
    created_at: time(subscription.createdAt),
    ended_at: time(subscription.endedAt),
  };
}

function chargeView(charge: SubscriptionChargeRow) {
  return {
    cycle: charge.cycle,
    attempt: charge.attempt,
    status: charge.status,
    due_at: time(charge.dueAt),
    transaction_id: charge.paymentId ?? '',
    order_no: charge.orderNo,
    amount: formatAmount(charge.amount, charge.currency),
    result_info: charge.resultCode ? `${charge.resultCode}:${charge.resultMessage ?? ''}` : '',
  };
}

export async function listAccountSubscriptions(deps: Db, merchantId: string, accountId: string, limit: number, offset = 0) {
  const account = await accountOf(deps, merchantId, accountId);
  return (await listSubscriptions(deps.database.db, account.id, limit, offset)).map(subscriptionView);
}

/**
 * One subscription and its history: every attempt at every cycle, in order; or, given a `page`,
 * `limit` attempts from `offset`, newest first (the portal's pages: a long daily contract has
 * thousands).
 */
export async function showSubscription(deps: Db, merchantId: string, accountId: string, recurringId: string, page?: { limit: number; offset: number }) {
  const account = await accountOf(deps, merchantId, accountId);
  const subscription = await findSubscription(deps.database.db, account.id, recurringId);
  if (!subscription) throw new AppError('subscription_not_found', `no subscription ${recurringId} on account ${accountId}`);
  const charges = page ? await chargesNewestFirst(deps.database.db, subscription.id, page.limit, page.offset) : await chargesOf(deps.database.db, subscription.id);
  return { ...subscriptionView(subscription), charges: charges.map(chargeView) };
}

/** An operator's cancel: the same use case as /v1/cancelsubscription, without the contract name. */
export async function cancelAccountSubscription(deps: Pick<Deps, 'database' | 'clock'>, merchantId: string, accountId: string, recurringId: string): Promise<CancelOutcome> {
  return cancelSubscription(deps, await accountOf(deps, merchantId, accountId), { recurringId });
}

export interface DunningView {
  readonly account_id: string;
  /** Days after a cycle's due time at which a declined charge is tried again; `default` when unset. */
  readonly retry_days: readonly number[] | 'default';
}

export async function showDunning(deps: Db, merchantId: string, accountId: string): Promise<DunningView> {
  const account = await accountOf(deps, merchantId, accountId);
  return { account_id: account.id, retry_days: account.dunning.retryDays ?? 'default' };
}

/**
 * Sets the account's retry days (validRetryDays, and never fewer retries of a monthly cycle than
 * the product guarantees: keepsRetryMinimum), or back to the default with null.
 */
export async function setDunning(deps: Db, merchantId: string, accountId: string, retryDays: readonly number[] | null): Promise<DunningView> {
  const account = await accountOf(deps, merchantId, accountId);
  if (retryDays && !validRetryDays(retryDays)) throw new AppError('invalid_field', `retry days are up to ${MAX_RETRY_DAYS} ascending whole days from 1 to 366`);
  if (retryDays && !keepsRetryMinimum(retryDays)) throw new AppError('invalid_field', RETRY_MINIMUM_RULE);
  const dunning: DunningSettings = retryDays ? { retryDays: [...retryDays] } : {};
  await deps.database.db.transaction(async (tx) => {
    await tx.update(accounts).set({ dunning }).where(eq(accounts.id, account.id));
    await announceAccountChange(tx);
  });
  return { account_id: account.id, retry_days: dunning.retryDays ?? 'default' };
}

