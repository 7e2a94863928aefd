// When a subscription's charges fall due, what each one takes, and when a declined one is tried
// again. Pure date arithmetic in UTC on the injected clock's instants.
//
// Every due date is computed from the anchor (the first payment, or contract_start when that is
// later than the first recurring due date), never from the previous due date: a subscription begun
// on 31 January is charged on the last day of February and then on 31 March, not on the 28th for
// ever after. The time of day is the anchor's.
export type Interval = 'day' | 'week' | 'month' | 'year';

export interface Plan {
  readonly interval: Interval;
  /** Intervals between two charges (≥ 1). */
  readonly intervalCount: number;
  /** The first payment's time: cycle 1. */
  readonly firstPaymentAt: Date;
  /** No recurring charge falls due before this UTC day. */
  readonly contractStart?: string | undefined;
  /** No charge falls due after this UTC day. */
  readonly contractEnd?: string | undefined;
  /** Total charges including the first payment; 0: no limit. */
  readonly billingCycles: number;
}

const DAY_MS = 86_400_000;

/**
 * The last instant a due date can take: a date is written `YYYY-MM-DD` (recurring_deduction_time,
 * the database's timestamps), so no charge falls due after the year 9999. A cycle that would is
 * never charged: the contract ends with the cycle before it.
 */
export const LAST_DUE = new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999));

/** Whether `date` is a due date the gateway can keep and write (not past LAST_DUE, not invalid). */
export function withinCalendar(date: Date): boolean {
  return date.getTime() <= LAST_DUE.getTime();
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/** `anchor` moved by `steps` intervals, the day of the month clamped to the target month's length. */
export function addIntervals(anchor: Date, interval: Interval, steps: number): Date {
  if (interval === 'day') return new Date(anchor.getTime() + steps * DAY_MS);
  if (interval === 'week') return new Date(anchor.getTime() + steps * 7 * DAY_MS);
  const months = interval === 'month' ? steps : steps * 12;
  const total = anchor.getUTCFullYear() * 12 + anchor.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, month));
  return new Date(Date.UTC(year, month, day, anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds()));
}

/** The start of a `YYYY-MM-DD` UTC day. */
export function utcDay(text: string): Date {
  return new Date(`${text}T00:00:00Z`);
}

/**
 * When cycle `n` (1 = the first payment) falls due, or null when it never does (past the last
 * billing cycle or after contract_end).
 */
export function dueAt(plan: Plan, n: number): Date | null {
  if (!Number.isInteger(n) || n < 1) throw new Error(`cycle ${n} is not a cycle`);
  if (plan.billingCycles > 0 && n > plan.billingCycles) return null;
  if (n === 1) return plan.firstPaymentAt;
  const step = plan.intervalCount;
  let due = addIntervals(plan.firstPaymentAt, plan.interval, (n - 1) * step);
  if (plan.contractStart) {
    const start = utcDay(plan.contractStart);
    // contract_start after the first recurring due date: the recurring schedule is anchored on it,
    // at the first payment's time of day.
    if (addIntervals(plan.firstPaymentAt, plan.interval, step) < start) {
      const anchor = new Date(start.getTime() + (plan.firstPaymentAt.getTime() % DAY_MS));
      due = addIntervals(anchor, plan.interval, (n - 2) * step);
    }
  }
  if (plan.contractEnd && due.getTime() >= utcDay(plan.contractEnd).getTime() + DAY_MS) return null;
  return withinCalendar(due) ? due : null;
}

/**
 * When the window of cycle `n` closes: the time the next cycle falls due, counted as if the
 * contract had no end, so that the last cycle has one too. A cycle's retries and a hold for
 * review of its charge end before it.
 */
export function cycleWindowEnd(plan: Plan, n: number): Date {
  // A cycle with no next one even then is the calendar's last: its window runs to its end.
  return dueAt({ ...plan, billingCycles: 0, contractEnd: undefined }, n + 1) ?? LAST_DUE;
}

/**
 * When the retries of cycle `n` must have ended: its window's close, and never past contract_end
 * (no charge falls due after that day). The last cycle has no next due date to bound them, so
 * both limits are stated here rather than taken from the next cycle.
 */
export function retriesEnd(plan: Plan, n: number): Date {
  const window = cycleWindowEnd(plan, n);
  if (!plan.contractEnd) return window;
  const contractOver = new Date(utcDay(plan.contractEnd).getTime() + DAY_MS);
  return contractOver < window ? contractOver : window;
}

export interface Pricing {
  /** The first payment's amount, in minor units. */
  readonly firstAmountMinor: number;
  /** contract_amount, in minor units. */
  readonly contractAmountMinor: number;
  /** Charges, counted from the first payment, taken at the first payment's amount (0 and 1: only the first). */
  readonly promotionCycles: number;
}

export function amountOfCycle(pricing: Pricing, n: number): number {
  return n <= Math.max(1, pricing.promotionCycles) ? pricing.firstAmountMinor : pricing.contractAmountMinor;
}

/** How a declined charge is tried again: offsets from the cycle's due time, in milliseconds. */
export interface DunningPolicy {
  readonly retryOffsetsMs: readonly number[];
}

/**
 * The default: for monthly and longer intervals, retries 1, 3 and 7 days after the due time; for
 * shorter ones, at 1/7, 3/7 and 5/7 of the period, so that they end before the next cycle.
 */
export function defaultDunning(interval: Interval, intervalCount: number): DunningPolicy {
  if (interval === 'month' || interval === 'year') return { retryOffsetsMs: [1, 3, 7].map((days) => days * DAY_MS) };
  const period = (interval === 'week' ? 7 : 1) * intervalCount * DAY_MS;
  return { retryOffsetsMs: [1, 3, 5].map((sevenths) => Math.round((period * sevenths) / 7)) };
}

/**
 * The times of the retries of a cycle due at `due`: those of the policy that come before `end`
 * (retriesEnd: the next cycle's due time, or the last cycle's window, or contract_end), so a retry
 * never overlaps the next cycle's charge nor outlives the contract.
 */
export function retryTimes(due: Date, end: Date, policy: DunningPolicy): Date[] {
  return policy.retryOffsetsMs.map((offset) => new Date(due.getTime() + offset)).filter((time) => time < end);
}
