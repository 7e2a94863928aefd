// The moment of a payment's write as its next check needs it (CheckTimes): business time, wall
// time, and how long after it the processor is asked about an outcome it has not told.
import type { CheckTimes } from '../../domain/payment.ts';
import type { Deps } from '../context.ts';

/** Now on both clocks (business time `now` when the caller already read it). */
export function checkTimes(deps: Pick<Deps, 'clock' | 'wallClock' | 'config'>, now: Date = deps.clock.now()): CheckTimes {
  return { now, wallNow: deps.wallClock.now(), unknownAfterMs: deps.config.processor.unknownAfterMs };
}
