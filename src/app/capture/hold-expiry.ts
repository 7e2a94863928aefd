// A hold (an authorised payment, or one held for review) is gone at the processor once its
// connector's authorisation expiry has passed since it was authorised (held_since, on the business
// clock; not its created_at, days earlier for an APM paid late in its window); the
// expire-authorisations round records that when it next runs. Until it has, a capture or a review
// approval must not be sent on a hold that no longer exists: both judge the payment in the state
// the round will leave it (cancelled), so their answer (5007) does not depend on whether the round
// has run yet, and nothing is claimed or stored. Judged from the row the operation has locked
// already: a capture costs no statement more.
import { scheduleOf } from '../../connectors/port.ts';
import { holdsExpiredBy } from '../../domain/lifecycle.ts';
import { HOLD_STATES, type PaymentStatus } from '../../domain/payment.ts';
import type { PaymentRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';

/**
 * The held_since at or before which the holds taken on connector `name` have expired now; null
 * when no connector of that name is registered in this mode (the round voids none of its holds).
 */
export function expiryLineOf(deps: Pick<Deps, 'clock' | 'connectors'>, name: string): Date | null {
  const connector = deps.connectors.get(name);
  return connector ? holdsExpiredBy(deps.clock.now(), scheduleOf(connector).authorisationExpiryDays) : null;
}

/** The state a capture or an approval judges `payment` in: `cancelled` once its hold has expired, as the round will record it. */
export function statusOnceExpired(deps: Pick<Deps, 'clock' | 'connectors'>, payment: PaymentRow): PaymentStatus {
  const status = payment.status as PaymentStatus;
  if (!HOLD_STATES.includes(status)) return status;
  const line = expiryLineOf(deps, payment.connector);
  return line && holdStart(payment).getTime() <= line.getTime() ? 'cancelled' : status;
}

/**
 * When the payment's hold began: its held_since, stamped by the move into the hold; a row written
 * without one (by a process still running the code before 0031) by its created_at, as then. The
 * round's lease reads the same (HOLD_START, the due time of QUEUES.expiringAuthorisations).
 */
function holdStart(payment: PaymentRow): Date {
  return payment.heldSince ?? payment.createdAt;
}
