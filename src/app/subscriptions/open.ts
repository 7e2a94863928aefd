// A subscription begins when the card payment that carries its terms is approved (authorised or
// captured: directly, after 3-D Secure, on the hosted page, or on a review approval), in the same
// transaction as that approval: the subscription exists if and only if the approval commits.
// Whoever writes an approval off the hot path calls this from its unit of work's change step.
import { newId } from '../../domain/ids.ts';
import type { StoredOrder } from '../../domain/order.ts';
import type { PaymentStatus } from '../../domain/payment.ts';
import type { Transition } from '../../domain/state-machine.ts';
import { SUBSCRIPTION_MACHINE, secondDue, type SubscriptionTerms } from '../../domain/subscriptions/subscription.ts';
import type { Executor } from '../../db/client.ts';
import { findSubscription, insertSubscription, linkPayment } from '../../db/repositories/subscriptions.ts';
import type { PaymentRow, SubscriptionRow } from '../../db/schema.ts';

const APPROVED: ReadonlySet<PaymentStatus> = new Set(['authorised', 'captured']);

/** The subscription terms a payment's order carries, if any. */
export function termsOf(payment: Pick<PaymentRow, 'request'>): SubscriptionTerms | undefined {
  return (payment.request.order as StoredOrder | undefined)?.subscription;
}

/** Whether the payment began a subscription (whose progress its records report). */
export function beganOne(payment: Pick<PaymentRow, 'request' | 'subscriptionId'>): payment is Pick<PaymentRow, 'request'> & { subscriptionId: string } {
  return termsOf(payment) !== undefined && payment.subscriptionId !== null;
}

/** The subscription the payment began, as it stands, for the payment's report; null (and no read) for any other payment. */
export async function subscriptionOfPayment(db: Executor, payment: Pick<PaymentRow, 'accountId' | 'request' | 'subscriptionId'>): Promise<SubscriptionRow | null> {
  return beganOne(payment) ? findSubscription(db, payment.accountId, payment.subscriptionId) : null;
}

/** A payment as written, and the subscription it began as it now stands (null: none), which its event reports. */
export interface PaymentWithSubscription {
  readonly payment: PaymentRow;
  readonly subscription: SubscriptionRow | null;
}

/**
 * Creates the subscription when `move` is the payment's approval and its order carries terms;
 * answers the payment as written (naming the subscription) with it, or as given, with the
 * subscription it began earlier if any, when nothing begins.
 */
export async function openOnApproval(tx: Executor, now: Date, move: Transition<PaymentStatus>, payment: PaymentRow): Promise<PaymentWithSubscription> {
  const terms = termsOf(payment);
  if (!terms || payment.subscriptionId || !APPROVED.has(move.to) || APPROVED.has(move.from)) return { payment, subscription: await subscriptionOfPayment(tx, payment) };
  // The card is stored whenever terms are present (src/http/requests/order.ts): no token, no later charge.
  if (!payment.tokenId) throw new Error(`payment ${payment.id} carries subscription terms but stored no card`);
  const anchor = payment.createdAt;
  const second = secondDue(terms, anchor);
  const id = newId('RC', now.getTime());
  const subscription = await insertSubscription(tx, SUBSCRIPTION_MACHINE.enter(second ? 'Active' : 'Completed'), {
    id,
    accountId: payment.accountId,
    merchantId: payment.merchantId,
    contractName: terms.contractName,
    contract: terms.contract ?? null,
    priceId: terms.priceId ?? null,
    interval: terms.interval,
    intervalCount: terms.intervalCount,
    billingCycles: terms.billingCycles,
    promotionCycles: terms.promotionCycles,
    contractStart: terms.contractStart ?? null,
    contractEnd: terms.contractEnd ?? null,
    anchorAt: anchor,
    firstAmount: payment.amount,
    contractAmount: terms.contractAmountMinor,
    currency: payment.currency,
    tokenId: payment.tokenId,
    networkTransactionId: payment.networkTransactionId,
    notifyUrl: payment.notifyUrl,
    firstPaymentId: payment.id,
    orderNoBase: payment.orderNo,
    nextDueAt: second,
    nextChargeAt: second,
    endedAt: second ? null : now,
    createdAt: now,
  });
  return { payment: await linkPayment(tx, payment.id, id), subscription };
}
