// A subscription (recurring contract) in domain terms: its terms as the first payment stated them,
// its state machine, its charges' machine, and the names a merchant sees (recurring_id's period,
// the recurring charges' order_no). The dates are in schedule.ts.
import { defineStateMachine } from '../state-machine.ts';
import { addIntervals, defaultDunning, dueAt, type DunningPolicy, type Interval, type Plan } from './schedule.ts';

/** The `subscription` object of a payment, checked: amounts in the payment's currency's minor units. */
export interface SubscriptionTerms {
  readonly contractName: string;
  readonly contract?: string | undefined;
  readonly priceId?: string | undefined;
  readonly contractAmountMinor: number;
  readonly interval: Interval;
  readonly intervalCount: number;
  /** Total charges including the first payment; 0: no limit. */
  readonly billingCycles: number;
  /** Charges, counted from the first payment, taken at the payment's amount (0 and 1: only the first). */
  readonly promotionCycles: number;
  readonly contractStart?: string | undefined;
  readonly contractEnd?: string | undefined;
}

export const SUBSCRIPTION_STATUSES = [
  'Active', // charged as its cycles fall due (declined charges are retried: dunning)
  'Inactived', // cancelled by the merchant (/v1/cancelsubscription): never charged again
  'Completed', // every charge the contract allows is taken (billing_cycle reached, or contract_end)
  'Unpaid', // a cycle stayed declined after the last retry: no further charges
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** docs/subscriptions.md draws it. */
export const SUBSCRIPTION_MACHINE = defineStateMachine<SubscriptionStatus>('subscription', {
  // Completed at once: a contract of one billing cycle (the first payment is all of it).
  initial: ['Active', 'Completed'],
  next: {
    Active: ['Active', 'Inactived', 'Completed', 'Unpaid'],
    // The merchant may end an unpaid contract for good: it is then Inactived like any cancelled one.
    Unpaid: ['Inactived'],
    Inactived: [],
    Completed: [],
  },
});

export const CHARGE_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];

/** One attempt at a cycle's charge: claimed pending, then what its payment became. */
export const CHARGE_MACHINE = defineStateMachine<ChargeStatus>('subscription charge', {
  initial: ['pending'],
  next: { pending: ['pending', 'succeeded', 'failed'], succeeded: [], failed: [] },
});

/**
 * The merchant's own references to the contract, echoed in every subscription.* notification (the
 * decisions: kept and echoed): `contract` and `price_id`, empty when the payment named none.
 */
export function merchantReferences(subscription: { readonly contract: string | null; readonly priceId: string | null }): { contract: string; price_id: string } {
  return { contract: subscription.contract ?? '', price_id: subscription.priceId ?? '' };
}

/** `recurring_deduction_period`: `<interval_count> <interval>`, e.g. `1 month`. */
export function periodText(terms: Pick<SubscriptionTerms, 'interval' | 'intervalCount'>): string {
  return `${terms.intervalCount} ${terms.interval}`;
}

/** `recurring_deduction_time`: UTC `YYYY-MM-DD hh:mm:ss`. */
export function deductionTime(at: Date): string {
  return at.toISOString().slice(0, 19).replace('T', ' ');
}

/** The dates of a subscription's terms (a stored subscription's may be null where absent). */
type DatedTerms = Pick<SubscriptionTerms, 'interval' | 'intervalCount' | 'billingCycles'> & {
  readonly contractStart?: string | null | undefined;
  readonly contractEnd?: string | null | undefined;
};

/** What a payment's records say of its subscription's progress (a subscription row has these). */
export interface SubscriptionProgress {
  readonly status: SubscriptionStatus;
  /** When the sweeper next claims an attempt (the next cycle, or a declined cycle's retry); null while one is under way. */
  readonly nextChargeAt: Date | null;
  /** The due time of the cycle being collected (the next cycle once the last is paid). */
  readonly nextDueAt: Date | null;
}

/**
 * `recurring_deduction_time` as it stands: when the subscription's next charge is taken (the next
 * cycle, or a declined cycle's next retry), or, while a charge is under way (at the processor,
 * held for review), the due time of the cycle it collects; null once nothing more is charged
 * (Completed, Unpaid, Inactived).
 */
export function nextDeductionAt(progress: SubscriptionProgress): Date | null {
  if (progress.status !== 'Active') return null;
  return progress.nextChargeAt ?? progress.nextDueAt;
}

/** The schedule of a subscription with these terms, begun by a payment at `anchor`. */
export function planOf(terms: DatedTerms, anchor: Date): Plan {
  return {
    interval: terms.interval,
    intervalCount: terms.intervalCount,
    firstPaymentAt: anchor,
    contractStart: terms.contractStart ?? undefined,
    contractEnd: terms.contractEnd ?? undefined,
    billingCycles: terms.billingCycles,
  };
}

/** When the charge after the first payment falls due (cycle 2), or null when the contract has none. */
export function secondDue(terms: SubscriptionTerms, anchor: Date): Date | null {
  return dueAt(planOf(terms, anchor), 2);
}

/**
 * A recurring charge's order_no: the first payment's, a space, `R<cycle>-<attempt>`
 * (`ORD-1 R2-1`). A merchant's order_no never holds a space, so this never takes or blocks one of
 * theirs; each attempt has its own, and so its own payment and processor idempotency key.
 */
export function chargeOrderNo(baseOrderNo: string, cycle: number, attempt: number): string {
  return `${baseOrderNo} R${cycle}-${attempt}`;
}

/** A recurring charge's order_no as a query may name it (docs/subscriptions.md). */
export const CHARGE_ORDER_NO = /^[\x21-\x7e]{1,64} R[1-9][0-9]{0,5}-[1-9][0-9]{0,2}$/;

/** How declined charges are retried, per account (`acquiro accounts dunning`). */
export interface DunningSettings {
  /** Days after the cycle's due time; absent: the default of defaultDunning. */
  readonly retryDays?: readonly number[];
}

export const DAY_MS = 86_400_000;

/** At most this many retries of a declined charge per cycle. */
export const MAX_RETRY_DAYS = 10;

/** Whether `days` are retry days an account may set: up to MAX_RETRY_DAYS ascending whole days from 1 to 366. */
export function validRetryDays(days: readonly number[]): boolean {
  return days.length <= MAX_RETRY_DAYS && days.every((day, i) => Number.isInteger(day) && day >= 1 && day <= 366 && (i === 0 || day > days[i - 1]!));
}

/** The end of a card's expiry month (exclusive): a charge at or after it is a charge of an expired card. */
export function cardExpiresAt(expiryMonth: number, expiryYear: number): Date {
  return addIntervals(new Date(Date.UTC(expiryYear, expiryMonth - 1, 1)), 'month', 1);
}

/** The fewest retries, and the fewest days they span, of a monthly or longer cycle (decisions: at least 3 over at least 7 days). */
export const MIN_RETRIES = 3;
export const MIN_RETRY_SPAN_DAYS = 7;
/** The last whole day a retry of any monthly cycle can fall on: February's window is 28 days, and a retry falls before the next cycle. */
export const SHORTEST_MONTH_RETRY_DAY = 27;

/**
 * Whether an account's retry days keep the rule for monthly and longer cycles in every month: at
 * least 3 retries inside the shortest month's window, the last of them at least 7 days after the
 * due time. Days past that window are kept (they retry the longer months' cycles, and yearly ones).
 */
export function keepsRetryMinimum(retryDays: readonly number[]): boolean {
  const everyMonth = retryDays.filter((day) => day <= SHORTEST_MONTH_RETRY_DAY);
  return everyMonth.length >= MIN_RETRIES && everyMonth[everyMonth.length - 1]! >= MIN_RETRY_SPAN_DAYS;
}

/** What a schedule short of keepsRetryMinimum is told. */
export const RETRY_MINIMUM_RULE = `retry days must give a monthly cycle at least ${MIN_RETRIES} retries within ${SHORTEST_MONTH_RETRY_DAY} days of its due time (a February window holds no later one), the last of them at least ${MIN_RETRY_SPAN_DAYS} days after it, such as 1,3,7`;

/**
 * The account's retry schedule for a subscription of this interval (schedule.ts keeps retries
 * before the next cycle). The account's whole days, unless even the first of them comes at or
 * after the next cycle of a daily or weekly plan (a first retry day of 2 on a daily plan): every
 * retry would be dropped and the first decline would end the subscription, where a plan shorter
 * than a month is retried before its next cycle. Such a plan takes the default fractions of its
 * period instead.
 */
export function dunningPolicy(settings: DunningSettings, interval: Interval, intervalCount: number): DunningPolicy {
  const fallback = defaultDunning(interval, intervalCount);
  if (!settings.retryDays) return fallback;
  const periodDays = interval === 'day' ? intervalCount : interval === 'week' ? 7 * intervalCount : Infinity;
  if (settings.retryDays[0]! >= periodDays) return fallback;
  return { retryOffsetsMs: settings.retryDays.map((days) => days * DAY_MS) };
}
