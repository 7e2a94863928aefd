// The one state-transition function of billing: what an attempt's payment became moves the
// attempt and its subscription, in one unit of work under both rows' locks, with the merchant's
// event. An approved payment pays the cycle and schedules the next (or completes the contract);
// a declined one schedules the account's next retry before the next cycle (or, after the last,
// leaves the subscription Unpaid); a payment whose outcome is not known yet, or that risk holds
// for review, leaves the attempt pending, to be asked about again. A review's rejection fails the
// attempt like a decline; the gateway's own rejection of a hold left undecided (3003: the cycle's
// window closed, or, sooner, the authorisation expired at the connector) is not retried, the
// decision being the merchant's to make: the subscription is Unpaid. A cancel that came meanwhile
// is kept: the charge is recorded, nothing is scheduled after it. An attempt not sent because the
// account or its merchant was disabled (4410) skips its cycle: no retry (the shopper's card was
// never asked), and the next cycle falls due on its date, as after a paid one.
import { CODES, type AppError } from '../../domain/errors.ts';
import { formatAmount } from '../../domain/money.ts';
import { orderStatus, PAYMENT_STATUS_CODES, type CheckTimes, type PaymentStatus } from '../../domain/payment.ts';
import type { Transition } from '../../domain/state-machine.ts';
import { dueAt, retriesEnd, retryTimes } from '../../domain/subscriptions/schedule.ts';
import {
  CHARGE_MACHINE,
  deductionTime,
  dunningPolicy,
  merchantReferences,
  periodText,
  planOf,
  SUBSCRIPTION_MACHINE,
  type ChargeStatus,
  type SubscriptionStatus,
} from '../../domain/subscriptions/subscription.ts';
import { accountById } from '../../db/repositories/checkout.ts';
import type { ChargeChanges, SubscriptionChanges } from '../../db/repositories/subscriptions.ts';
import { linkPayment, lockCharge, lockSubscription, transitionCharge, transitionSubscription } from '../../db/repositories/subscriptions.ts';
import type { AccountRow, PaymentRow, SubscriptionChargeRow, SubscriptionRow } from '../../db/schema.ts';
import { runUnitOfWork, type Decision } from '../../db/unit-of-work.ts';
import { checkTimes } from '../clock/check-times.ts';
import type { Deps } from '../context.ts';
import { resultInfo } from '../payments/events.ts';

/** What became of an attempt's payment: the payment, or the gateway's refusal before any was made. */
export type ChargeResult = { readonly payment: PaymentRow } | { readonly refusal: AppError };

interface Locked {
  readonly account: AccountRow;
  readonly subscription: SubscriptionRow;
  readonly charge: SubscriptionChargeRow;
}

interface ChargeChange extends Locked {
  readonly outcome: ChargeStatus;
  readonly chargeMove: Transition<ChargeStatus>;
  readonly chargeChanges: ChargeChanges;
  readonly subscriptionMove: Transition<SubscriptionStatus>;
  readonly subscriptionChanges: SubscriptionChanges;
}

interface Written {
  readonly subscription: SubscriptionRow;
  readonly charge: SubscriptionChargeRow;
  readonly payment?: PaymentRow;
}

const PAID: ReadonlySet<PaymentStatus> = new Set(['authorised', 'captured', 'partially_refunded', 'refunded']);
const REFUSED: ReadonlySet<PaymentStatus> = new Set(['failed', 'cancelled']);

/** The attempt's outcome, from its payment: pending while the processor has not clearly said. */
function outcomeOf(result: ChargeResult): ChargeStatus {
  if ('refusal' in result) return 'failed';
  const status = result.payment.status as PaymentStatus;
  return PAID.has(status) ? 'succeeded' : REFUSED.has(status) ? 'failed' : 'pending';
}

export async function recordCharge(deps: Pick<Deps, 'database' | 'clock' | 'wallClock' | 'config'>, claimed: SubscriptionChargeRow, result: ChargeResult): Promise<Written> {
  const at = checkTimes(deps);
  const payment = 'payment' in result ? result.payment : undefined;
  return runUnitOfWork<Locked, ChargeChange, Written>(deps.database, {
    async lock(tx) {
      const subscription = await lockSubscription(tx, claimed.accountId, claimed.subscriptionId);
      const charge = await lockCharge(tx, claimed.id);
      const account = await accountById(tx, claimed.accountId);
      if (!subscription || !charge || !account) throw new Error(`subscription charge ${claimed.id} lost its subscription`);
      return { account, subscription, charge };
    },
    check: (locked) => decide(locked, result, at),
    async change(tx, change) {
      const charge = await transitionCharge(tx, change.charge.id, change.chargeMove, change.chargeChanges);
      const subscription = await transitionSubscription(tx, change.subscription.id, change.subscriptionMove, change.subscriptionChanges);
      // The charge's own payment names its subscription too (recurring_id in its records).
      const linked = payment && !payment.subscriptionId ? await linkPayment(tx, payment.id, subscription.id) : payment;
      return { subscription, charge, ...(linked ? { payment: linked } : {}) };
    },
    event(change, written) {
      if (change.outcome === 'pending') return undefined;
      const type = change.outcome === 'succeeded' ? 'subscription.charged' : 'subscription.charge_failed';
      return {
        accountId: written.subscription.accountId,
        type,
        ...(written.payment ? { paymentId: written.payment.id } : {}),
        payload: chargeEventPayload(type, written, result),
        notifyUrl: written.subscription.notifyUrl,
      };
    },
  });
}

function decide({ account, subscription, charge }: Locked, result: ChargeResult, at: CheckTimes): Decision<ChargeChange, Written> {
  const { now } = at;
  // Recorded already (by this worker before a crash, or another after a lease ran out).
  if (charge.status !== 'pending') return { answer: { subscription, charge } };
  const outcome = outcomeOf(result);
  const paymentId = 'payment' in result ? { paymentId: result.payment.id } : {};
  const base = { account, subscription, charge, outcome };
  const stay = { subscriptionMove: SUBSCRIPTION_MACHINE.stay(subscription.status), subscriptionChanges: {} };
  if (outcome === 'pending') {
    return {
      change: { ...base, ...stay, chargeMove: CHARGE_MACHINE.stay('pending'), chargeChanges: { ...paymentId, nextCheckAt: new Date(at.wallNow.getTime() + at.unknownAfterMs) } },
    };
  }
  const code = 'refusal' in result ? { resultCode: result.refusal.code, resultMessage: result.refusal.message } : { resultCode: result.payment.resultCode, resultMessage: result.payment.resultMessage };
  const chargeChanges: ChargeChanges = { ...paymentId, ...code, nextCheckAt: null };
  const chargeMove = CHARGE_MACHINE.move('pending', outcome);
  // Cancelled while this attempt was in flight: it is recorded, and nothing follows it.
  if (subscription.status !== 'Active') {
    return { change: { ...base, chargeMove, chargeChanges, ...stay, subscriptionChanges: outcome === 'succeeded' ? { cyclesPaid: subscription.cyclesPaid + 1 } : {} } };
  }
  const plan = planOf(subscription, subscription.anchorAt);
  const nextDue = dueAt(plan, charge.cycle + 1);
  // Paid, or skipped (4410: not sent while the account or its merchant was disabled): the next
  // cycle falls due on its date. A skipped one is not counted paid (cycles_paid counts the cycles
  // paid, one more for each: not the cycle's number, which counts the skipped ones before it); the
  // contract's last cycle ends it either way.
  const skipped = code.resultCode === CODES.account_disabled.code;
  if (outcome === 'succeeded' || skipped) {
    const next = { ...(skipped ? {} : { cyclesPaid: subscription.cyclesPaid + 1 }), nextCycle: charge.cycle + 1, nextAttempt: 1, nextDueAt: nextDue, nextChargeAt: nextDue };
    return {
      change: {
        ...base,
        chargeMove,
        chargeChanges,
        subscriptionMove: nextDue ? SUBSCRIPTION_MACHINE.stay('Active') : SUBSCRIPTION_MACHINE.move('Active', 'Completed'),
        subscriptionChanges: nextDue ? next : { ...next, nextChargeAt: null, endedAt: now },
      },
    };
  }
  // Bounded by the cycle's window and contract_end: the last cycle has no next due date to stop them.
  const retries = retryTimes(charge.dueAt, retriesEnd(plan, charge.cycle), dunningPolicy(account.dunning, subscription.interval, subscription.intervalCount));
  // A hold for review that no one decided in time (3003) is not retried: the review was the merchant's to make.
  const retryAt = code.resultCode === CODES.review_expired.code ? undefined : retries[charge.attempt - 1];
  return {
    change: {
      ...base,
      chargeMove,
      chargeChanges,
      subscriptionMove: retryAt ? SUBSCRIPTION_MACHINE.stay('Active') : SUBSCRIPTION_MACHINE.move('Active', 'Unpaid'),
      subscriptionChanges: retryAt ? { nextAttempt: charge.attempt + 1, nextChargeAt: retryAt } : { nextChargeAt: null, nextDueAt: null, endedAt: now },
    },
  };
}

/** subscription.charged / subscription.charge_failed (docs/subscriptions.md): less notify_id, notify_time and encryption_data. */
function chargeEventPayload(type: string, { subscription, charge, payment }: Written, result: ChargeResult): Record<string, unknown> {
  const status = payment?.status as PaymentStatus | undefined;
  return {
    notify_type: type,
    merchant_id: subscription.merchantId,
    account_id: subscription.accountId,
    recurring_id: subscription.id,
    contract_name: subscription.contractName,
    ...merchantReferences(subscription),
    cycle: String(charge.cycle),
    attempt: String(charge.attempt),
    transaction_id: payment?.id ?? '',
    order_no: charge.orderNo,
    amount: formatAmount(charge.amount, charge.currency),
    currency: charge.currency,
    order_status: status ? orderStatus(status) : '0',
    payment_status: status ? PAYMENT_STATUS_CODES[status] : '',
    result_info: payment ? resultInfo(payment) : 'refusal' in result ? result.refusal.info : `${CODES.declined.code}:${CODES.declined.message}`,
    subscription_status: subscription.status,
    recurring_deduction_period: periodText(subscription),
    // When the next charge (the next cycle, or this cycle's next retry) is taken; empty when none is.
    recurring_deduction_time: subscription.nextChargeAt ? deductionTime(subscription.nextChargeAt) : '',
  };
}
