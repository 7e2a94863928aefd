// The subscription fields of a payment, wherever the payment is reported (its answer, its
// notifications, the shopper's signed return, its query record): contract_name as the order
// stated it, and, once the payment has created a subscription, its recurring_id, period and the
// time the charge after this payment falls due (from the payment's own time, the anchor). A
// recurring charge's payment carries contract_name and recurring_id.
import { deductionTime, periodText, secondDue } from '../../domain/subscriptions/subscription.ts';
import type { PaymentRow } from '../../db/schema.ts';
import { termsOf } from './open.ts';

export interface RecurringFields {
  readonly contract_name: string;
  readonly recurring_id: string;
  readonly recurring_deduction_period: string;
  readonly recurring_deduction_time: string;
}

export function recurringFields(payment: Pick<PaymentRow, 'request' | 'subscriptionId' | 'createdAt'>): RecurringFields {
  const contractName = payment.request.subscription?.contract_name ?? '';
  const terms = termsOf(payment);
  // A recurring charge's own payment names its subscription; its terms are the first payment's.
  if (!terms || !payment.subscriptionId) {
    return { contract_name: contractName, recurring_id: payment.subscriptionId ?? '', recurring_deduction_period: '', recurring_deduction_time: '' };
  }
  const next = secondDue(terms, payment.createdAt);
  return {
    contract_name: contractName,
    recurring_id: payment.subscriptionId,
    recurring_deduction_period: periodText(terms),
    recurring_deduction_time: next ? deductionTime(next) : '',
  };
}
