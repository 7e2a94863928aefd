// `acquiro clock advance|show`: the sandbox's test clock. An advance moves business time forward
// for every process on the database (each one's BusinessClock follows within a second); the wall
// clock, and everything that runs on it, stays where it is. Refused in live mode.
import { AppError } from '../../domain/errors.ts';
import { advanceClockOffset, readClockOffset } from '../../db/repositories/sandbox-clock.ts';
import type { Deps } from '../context.ts';

export type ClockDeps = Pick<Deps, 'database' | 'config' | 'wallClock'>;

/** Moves business time forward by `ms` (a positive whole number); answers the new business time. */
export async function advanceTestClock(deps: ClockDeps, ms: number): Promise<Date> {
  if (deps.config.mode === 'live') throw new AppError('invalid_field', 'clock advance is for the sandbox only: in live mode business time is the wall clock');
  if (!Number.isSafeInteger(ms) || ms <= 0) throw new AppError('invalid_field', 'the clock moves forward only, by a positive amount');
  const lead = await advanceClockOffset(deps.database, ms);
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
