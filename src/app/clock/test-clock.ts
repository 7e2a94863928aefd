// `acquiro clock advance|show`: the sandbox's test clock. An advance moves business time forward
// for every process on the database (each one's BusinessClock follows within a second); the wall
// clock, and everything that runs on it, stays where it is. Refused in live mode.
import { AppError } from '../../domain/errors.ts';
import { advanceClockOffset, readClockOffset } from '../../db/repositories/sandbox-clock.ts';
import type { Deps } from '../context.ts';

export type ClockDeps = Pick<Deps, 'database' | 'config' | 'wallClock'>;

const DAY_MS = 86_400_000;
/**
 * How far business time may run ahead of the wall clock: a century, far more than any test needs,
 * and far from where the database can no longer store a time (past the year 9999 a timestamp is
 * refused, and every task failed on every round for good, since the clock never goes back).
 */
export const MAX_LEAD_DAYS = 36_500;
const MAX_LEAD_MS = MAX_LEAD_DAYS * DAY_MS;

/** Moves business time forward by `ms` (a positive whole number); answers the new business time. */
export async function advanceTestClock(deps: ClockDeps, ms: number): Promise<Date> {
  if (deps.config.mode === 'live') throw new AppError('invalid_field', 'clock advance is for the sandbox only: in live mode business time is the wall clock');
  if (!Number.isSafeInteger(ms) || ms <= 0) throw new AppError('invalid_field', 'the clock moves forward only, by a positive amount');
  if (ms > MAX_LEAD_MS) throw new AppError('invalid_field', `the test clock runs at most ${MAX_LEAD_DAYS} days ahead of the wall clock`);
  const lead = await advanceClockOffset(deps.database, ms, MAX_LEAD_MS);
  if (lead === null) {
    const now = Math.floor((await readClockOffset(deps.database)) / DAY_MS);
    throw new AppError('invalid_field', `the test clock runs at most ${MAX_LEAD_DAYS} days ahead of the wall clock: it is ${now} days ahead now`);
  }
  return new Date(deps.wallClock.now().getTime() + lead);
}

/** Business time now, as every process on this database sees it (live mode: the wall clock). */
export async function testClockNow(deps: ClockDeps): Promise<Date> {
  const lead = deps.config.mode === 'live' ? 0 : await readClockOffset(deps.database);
  return new Date(deps.wallClock.now().getTime() + lead);
}

/** ISO 8601 to the second with a numeric offset (UTC): `2026-12-22T10:15:00+00:00`. */
export function formatInstant(at: Date): string {
  return `${at.toISOString().slice(0, 19)}+00:00`;
}
