// Payout dates are UTC days, `YYYY-MM-DD`: the payment date a payout is released on, and today
// on the injected clock. The start of a day is the subscriptions' `utcDay`.
export { utcDay } from '../subscriptions/schedule.ts';

/** The UTC day of an instant, `YYYY-MM-DD`. */
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** A real calendar day written `YYYY-MM-DD` (no 30 February). */
export function isDay(text: string): boolean {
  const date = new Date(`${text}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(date.getTime()) && dayOf(date) === text;
}

/**
 * The last payment_date a new payout may name: a year (365 days) from `today`. A scheduled payout
 * reserves its amount from the available balance until its date, so a date years ahead would hold
 * the merchant's money that long by a typo; banks take execution dates up to about a year ahead.
 */
export const SCHEDULE_HORIZON_DAYS = 365;

/** `day` (`YYYY-MM-DD`) plus `days` whole days. */
export function daysAfter(day: string, days: number): string {
  return dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000));
}
