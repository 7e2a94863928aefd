// When a notification that was not acknowledged is tried again (docs/notifications.md shows the
// table). Exponential from 30 s, doubling, capped at 6 h: 22 attempts over 3 days and 2.5 hours,
// then the event is `failed` (and can still be replayed). Each delay gets up to +10% of jitter so
// that a merchant's receiver coming back is not hit by all its backlog in the same second; the
// jitter is derived from the notify_id, so the schedule of one event is reproducible.
import { createHash } from 'node:crypto';

const FIRST_DELAY_MS = 30_000;
const MAX_DELAY_MS = 6 * 60 * 60_000;
const JITTER = 0.1;

/** Attempts in one schedule, the first included; after the last one fails the event is failed. */
export const MAX_ATTEMPTS = 22;

/** The delay before the retry that follows the `failures`-th failed attempt (1-based), without jitter. */
export function baseDelayMs(failures: number): number {
  return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (failures - 1));
}

/** The delay with this event's jitter: between the base delay and 10% more. */
export function retryDelayMs(notifyId: string, failures: number): number {
  const digest = createHash('sha256').update(`${notifyId}:${failures}`).digest();
  const fraction = digest.readUInt32BE(0) / 2 ** 32;
  return Math.floor(baseDelayMs(failures) * (1 + JITTER * fraction));
}

/** When to try again after the `failures`-th failed attempt at `now`; null when the schedule is over. */
export function nextAttemptAt(notifyId: string, failures: number, now: Date): Date | null {
  if (failures >= MAX_ATTEMPTS) return null;
  return new Date(now.getTime() + retryDelayMs(notifyId, failures));
}
