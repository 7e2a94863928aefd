// The billing sweeper (periodic task `bill-subscriptions`). Each round:
//   1. open  — lease the Active subscriptions whose next charge is due; under each one's lock,
//              claim the attempt (a subscription_charges row, unique per subscription, cycle and
//              attempt) and mark the subscription as having an attempt open;
//   2. charge — lease the claimed attempts not yet recorded; charge each as a merchant-initiated
//              payment of the stored card (merchantInitiatedCharge → authoriseCard), outside any
//              transaction, under the attempt's own order_no: the payment's id is the processor's
//              idempotency key, so a retry after a crash finds the payment instead of charging
//              again; then record what it became (recordCharge). An attempt with no payment yet is
//              sent only once it is marked sent (sent_at) under the subscription's lock while the
//              subscription is Active: a cancel committed first leaves it unsent, failed (5017);
//              and only while the account and its merchant are enabled: an attempt that falls due
//              while `acquiro merchants disable` holds is never sent, failed (4410), and its cycle
//              is skipped (recordCharge), so enabling again charges nothing for the cycles missed;
//              and not while the first payment is being voided (a void of it at the processor, or
//              its authorisation expired uncaptured): it waits for the void, whose record ends the
//              subscription (endWithFirstPayment, cancel.ts), and is then never sent (5017).
// A cycle missed while the gateway was stopped (or the clock jumped) is due at once, and the next
// one only after it is paid: every missed cycle is taken, in order. A charge that risk holds for
// review keeps its attempt pending (the money is held: no other attempt is made) until /v1/review
// decides it, or until its cycle's window closes (the next cycle's due time) or its authorisation
// expires at the connector (expire-authorisations.ts), whichever comes first: then the gateway
// rejects the hold itself (expireReview, 3003) and the cycle is lost (recordCharge). An approval
// that comes after the window's close, before this task has run, is refused as if it had
// (review-window.ts): the cycle is not paid behind the task's back.
import { AppError, CODES } from '../../domain/errors.ts';
import { amountOfCycle, dueAt } from '../../domain/subscriptions/schedule.ts';
import { CHARGE_MACHINE, chargeOrderNo, planOf, SUBSCRIPTION_MACHINE } from '../../domain/subscriptions/subscription.ts';
import { newId } from '../../domain/ids.ts';
import { accountById } from '../../db/repositories/checkout.ts';
import { liveOperation } from '../../db/repositories/operations.ts';
import { findPayment, findPaymentByOrderNo } from '../../db/repositories/payments.ts';
import {
  claimCharge,
  findSubscription,
  leaseDueSubscriptions,
  leasePendingCharges,
  lockCharge,
  lockSubscription,
  transitionCharge,
  transitionSubscription,
} from '../../db/repositories/subscriptions.ts';
import type { Tx } from '../../db/client.ts';
import type { AccountRow, PaymentRow, SubscriptionChargeRow, SubscriptionRow } from '../../db/schema.ts';
import { runUnitOfWork } from '../../db/unit-of-work.ts';
import { accountEnabled } from '../accounts/enabled.ts';
import { authoriseCard } from '../authorise/authorise-card.ts';
import { statusOnceExpired } from '../capture/hold-expiry.ts';
import type { Deps } from '../context.ts';
import { merchantInitiatedCharge } from '../payments/command.ts';
import { expireReview } from '../review/review.ts';
import { cancelledEvent, inactivate, type CancelReason } from './cancel.ts';
import { recordCharge, type ChargeResult } from './record-charge.ts';
import { windowClosed } from './review-window.ts';

export async function billSubscriptions(deps: Deps, limit = 50): Promise<number> {
  const opened = await openDueCharges(deps, limit);
  const recorded = await chargePending(deps, limit);
  return opened + recorded;
}

/** Step 1 of a round: claims the attempts of the due subscriptions (each its own unit of work). */
export async function openDueCharges(deps: Deps, limit: number): Promise<number> {
  const due = await leaseDueSubscriptions(deps.database.db, deps, limit, deps.config.processor.leaseMs);
  let opened = 0;
  for (const subscription of due) if (await openCharge(deps, subscription)) opened += 1;
  return opened;
}

/** Claims the subscription's next attempt, if it is still Active and due (a cancel may have come since the lease). */
async function openCharge(deps: Pick<Deps, 'database' | 'clock'>, leased: SubscriptionRow): Promise<SubscriptionChargeRow | null> {
  const now = deps.clock.now();
  return runUnitOfWork<SubscriptionRow | null, SubscriptionRow, SubscriptionChargeRow | null>(deps.database, {
    lock: (tx) => lockSubscription(tx, leased.accountId, leased.id),
    check(subscription) {
      if (!subscription || subscription.status !== 'Active' || !subscription.nextChargeAt || subscription.nextChargeAt > now) return { answer: null };
      return { change: subscription };
    },
    async change(tx, subscription) {
      const cycle = subscription.nextCycle;
      const plan = planOf(subscription, subscription.anchorAt);
      const due = dueAt(plan, cycle) ?? subscription.nextChargeAt!;
      const minor = amountOfCycle(
        { firstAmountMinor: subscription.firstAmount, contractAmountMinor: subscription.contractAmount, promotionCycles: subscription.promotionCycles },
        cycle,
      );
      const charge = await claimCharge(tx, {
        id: newId('SC', now.getTime()),
        subscriptionId: subscription.id,
        accountId: subscription.accountId,
        cycle,
        attempt: subscription.nextAttempt,
        orderNo: chargeOrderNo(subscription.orderNoBase, cycle, subscription.nextAttempt),
        amount: minor,
        currency: subscription.currency,
        dueAt: due,
        nextCheckAt: null,
        createdAt: now,
      });
      // An attempt is open: nothing else is due until it is recorded.
      await transitionSubscription(tx, subscription.id, SUBSCRIPTION_MACHINE.stay('Active'), { nextChargeAt: null, lockedUntil: null });
      return charge;
    },
  });
}

async function chargePending(deps: Deps, limit: number): Promise<number> {
  const leased = await leasePendingCharges(deps.database.db, deps, limit, deps.config.processor.leaseMs);
  let recorded = 0;
  for (const charge of leased) {
    const written = await chargeOnce(deps, charge);
    if (written && written.charge.status !== 'pending') recorded += 1;
  }
  return recorded;
}

/** Charges one claimed attempt (or finds the payment an earlier try made) and records it. */
export async function chargeOnce(deps: Deps, charge: SubscriptionChargeRow) {
  const subscription = await findSubscription(deps.database.db, charge.accountId, charge.subscriptionId);
  const account = await accountById(deps.database.db, charge.accountId);
  if (!subscription || !account) return null;
  const result = await paymentOf(deps, account, subscription, charge);
  return result ? recordCharge(deps, charge, result) : null;
}

/**
 * A charge still held for review once its cycle's window has closed is rejected by the gateway
 * (whatever became of the subscription meanwhile: the hold is the charge's own); answers the
 * payment as it then is (still held while the void is pending, or when a reviewer got there first).
 */
async function releaseLateReview(deps: Deps, account: AccountRow, subscription: SubscriptionRow, charge: SubscriptionChargeRow, payment: PaymentRow): Promise<PaymentRow> {
  if (payment.status !== 'pending_review' || !windowClosed(subscription, charge.cycle, deps.clock.now())) return payment;
  try {
    await expireReview(deps, account, payment);
  } catch (error) {
    // A reviewer's decision or a void already under way: the payment is read as it stands.
    if (!(error instanceof AppError)) throw error;
  }
  return (await findPaymentByOrderNo(deps.database.db, account.id, charge.orderNo)) ?? payment;
}

/** Why an attempt with no payment yet is not sent: the refusal it is recorded with (recordCharge). */
type NotSent = 'subscription_cancelled' | 'account_disabled';
/** An attempt not sent yet, left pending for the next round: the first payment is being voided (below). */
const NOT_NOW = 'not_now';

/**
 * What became of the subscription's first payment, for its next attempt: `ending` while it is
 * being voided (a void of it claimed, at the processor, its answer not yet recorded; or its
 * authorisation expired uncaptured, the expiry round yet to void it: hold-expiry.ts), the attempt
 * then waiting: recorded, the void ends the subscription (endWithFirstPayment), so none is sent
 * once the void has begun. The reason the subscription ends for, when the first payment is
 * cancelled already but its subscription was not ended with it (a void recorded before the gateway
 * did so). Null: it stands. Read under the subscription's lock, which the void's record takes.
 */
async function firstPayment(tx: Tx, deps: Pick<Deps, 'clock' | 'connectors'>, subscription: SubscriptionRow): Promise<'ending' | CancelReason | null> {
  const first = await findPayment(tx, subscription.accountId, subscription.firstPaymentId);
  if (first?.status === 'cancelled') return first.resultCode === CODES.authorisation_expired.code ? 'first_payment_expired' : 'first_payment_cancelled';
  if (first?.status !== 'authorised') return null;
  if (statusOnceExpired(deps, first) === 'cancelled') return 'ending';
  return (await liveOperation(tx, first.id))?.kind === 'void' ? 'ending' : null;
}

/**
 * Marks the attempt as being sent, under the subscription's lock (the lock a cancel takes), if the
 * subscription is still Active and its account and merchant are enabled (their rows locked for
 * share: a disable waits for this mark to commit); otherwise answers why not, and the attempt is
 * never sent. The mark commits before the payment is claimed: a cancel or a disable either commits
 * first, and is seen here, or finds the attempt begun, a charge in flight that follows its own
 * course (docs/subscriptions.md, "Cancelling" and "A disabled merchant or account"). An attempt
 * recorded already answers `subscription_cancelled` too: recordCharge then changes nothing.
 * A worker killed after the mark and before its payment's claim sent nothing: the next one to
 * take the attempt up (its lease run out) decides again, here.
 */
async function markSent(deps: Pick<Deps, 'database' | 'wallClock' | 'clock' | 'connectors'>, claimed: SubscriptionChargeRow): Promise<NotSent | typeof NOT_NOW | null> {
  type Locked = { subscription: SubscriptionRow | null; charge: SubscriptionChargeRow | null; enabled: boolean; first: 'ending' | CancelReason | null };
  type Mark = { subscription: SubscriptionRow; charge: SubscriptionChargeRow; first: 'ending' | CancelReason | null };
  type Marked = { answer: NotSent | typeof NOT_NOW | null; ended?: SubscriptionRow };
  const marked = await runUnitOfWork<Locked, Mark, Marked>(deps.database, {
    async lock(tx) {
      const subscription = await lockSubscription(tx, claimed.accountId, claimed.subscriptionId);
      const charge = await lockCharge(tx, claimed.id);
      const first = subscription?.status === 'Active' ? await firstPayment(tx, deps, subscription) : null;
      return { subscription, charge, enabled: await accountEnabled(tx, claimed.accountId), first };
    },
    check({ subscription, charge, enabled, first }) {
      if (!subscription || subscription.status !== 'Active' || !charge || charge.status !== 'pending') return { answer: { answer: 'subscription_cancelled' } };
      if (!enabled && !first) return { answer: { answer: 'account_disabled' } };
      return { change: { subscription, charge, first } };
    },
    async change(tx, { subscription, charge, first }) {
      // The first payment cancelled, its subscription not ended with it: ended now, the attempt never sent (5017).
      if (first && first !== 'ending') return { answer: 'subscription_cancelled', ended: await inactivate(tx, subscription, deps.clock.now()) };
      // Not now: due again at the next round, when the void is recorded (the subscription then ended: 5017) or refused.
      const send = first === null;
      await transitionCharge(tx, charge.id, CHARGE_MACHINE.stay('pending'), send ? { sentAt: deps.wallClock.now() } : { nextCheckAt: deps.wallClock.now() });
      return { answer: send ? null : NOT_NOW };
    },
    event: ({ first }, written) => (written.ended && first && first !== 'ending' ? cancelledEvent(written.ended, first) : undefined),
  });
  return marked.answer;
}

/** The attempt's payment (made now, or by an earlier try), or why none is made; null: not now, the attempt stays pending. */
async function paymentOf(deps: Deps, account: AccountRow, subscription: SubscriptionRow, charge: SubscriptionChargeRow): Promise<ChargeResult | null> {
  // A payment made by an earlier try of this attempt (its worker died before recording it) is the
  // attempt's payment: it is never made twice. Still processing, the unknown-payments sweeper asks.
  const earlier: PaymentRow | null = await findPaymentByOrderNo(deps.database.db, account.id, charge.orderNo);
  if (earlier) return { payment: await releaseLateReview(deps, account, subscription, charge, earlier) };
  // Nothing of this attempt has reached the processor. A cancel committed since its claim (its
  // worker killed before sending it, or this worker slower than the merchant), or the account or
  // its merchant disabled now, means it is never sent.
  const notSent = await markSent(deps, charge);
  if (notSent === NOT_NOW) return null;
  if (notSent) return { refusal: new AppError(notSent) };
  const command = merchantInitiatedCharge({
    merchantId: account.merchantId,
    accountId: account.id,
    orderNo: charge.orderNo,
    amount: { minor: charge.amount, currency: charge.currency },
    tokenId: subscription.tokenId,
    ...(subscription.networkTransactionId ? { networkTransactionId: subscription.networkTransactionId } : {}),
    ...(subscription.notifyUrl ? { notifyUrl: subscription.notifyUrl } : {}),
    record: { subscription: { contract_name: subscription.contractName }, recurring_id: subscription.id, cycle: String(charge.cycle), attempt: String(charge.attempt) },
  });
  try {
    return { payment: await authoriseCard(deps, account, command) };
  } catch (error) {
    // The gateway refused before any payment was made (the stored card is gone): a failed attempt.
    if (error instanceof AppError) return { refusal: error };
    throw error;
  }
}
