// The subscription fields of a payment, wherever the payment is reported (its answer, its
// notifications, the shopper's signed return, its query record): contract_name as the order
// stated it, and, once the payment has created a subscription, its recurring_id, period and
// recurring_deduction_time, the subscription's next charge as it stands now (read from the
// subscription, not from the payment: it follows the paid cycles, retries and the end of the
// contract). A recurring charge's payment carries contract_name and recurring_id.
import { deductionTime, nextDeductionAt, periodText, type SubscriptionProgress } from '../../domain/subscriptions/subscription.ts';
import type { Executor } from '../../db/client.ts';
import { subscriptionsByIds } from '../../db/repositories/subscriptions.ts';
import type { PaymentRow, SubscriptionRow } from '../../db/schema.ts';
import { beganOne, termsOf } from './open.ts';

export { subscriptionOfPayment } from './open.ts';

export interface RecurringFields {
  readonly contract_name: string;
  readonly recurring_id: string;
  readonly recurring_deduction_period: string;
  readonly recurring_deduction_time: string;
}

/**
 * The fields, from the payment and the subscription it began (`subscription`: as read with the
 * payment, by subscriptionOfPayment or subscriptionsOfPayments; null for any other payment).
 */
export function recurringFields(payment: Pick<PaymentRow, 'request' | 'subscriptionId'>, subscription: SubscriptionProgress | null): RecurringFields {
  const contractName = payment.request.subscription?.contract_name ?? '';
  const terms = termsOf(payment);
  // A recurring charge's own payment names its subscription (in its record from the start, on the row once recorded).
  const recurringId = payment.subscriptionId ?? (typeof payment.request.recurring_id === 'string' ? payment.request.recurring_id : '');
  if (!terms || !payment.subscriptionId) {
    return { contract_name: contractName, recurring_id: recurringId, recurring_deduction_period: '', recurring_deduction_time: '' };
  }
  const next = subscription ? nextDeductionAt(subscription) : null;
  return {
    contract_name: contractName,
    recurring_id: payment.subscriptionId,
    recurring_deduction_period: periodText(terms),
    recurring_deduction_time: next ? deductionTime(next) : '',
  };
}

/** The subscriptions some payments began, by id, in one read (none when none began one). */
export async function subscriptionsOfPayments(db: Executor, payments: readonly Pick<PaymentRow, 'request' | 'subscriptionId'>[]): Promise<ReadonlyMap<string, SubscriptionRow>> {
  const ids = [...new Set(payments.flatMap((payment) => (beganOne(payment) ? [payment.subscriptionId] : [])))];
  const rows = ids.length > 0 ? await subscriptionsByIds(db, ids) : [];
  return new Map(rows.map((row) => [row.id, row]));
}
