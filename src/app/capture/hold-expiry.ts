// A hold (an authorised payment, or one held for review) is gone at the processor once its
// connector's authorisation expiry has passed since its created_at, on the business clock; the
// expire-authorisations round records that when it next runs. Until it has, a capture or a review
// approval must not be sent on a hold that no longer exists: both judge the payment in the state
// the round will leave it (cancelled), so their answer (5007) does not depend on whether the round
// has run yet, and nothing is claimed or stored. Judged from the row the operation has locked
// already: a capture costs no statement more.
import { scheduleOf } from '../../connectors/port.ts';
import { holdsExpiredBy } from '../../domain/lifecycle.ts';
import type { PaymentStatus } from '../../domain/payment.ts';
import type { PaymentRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';

const HOLDS: readonly PaymentStatus[] = ['authorised', 'pending_review'];

/**
 * The created_at at or before which the holds taken on connector `name` have expired now; null
 * when no connector of that name is registered in this mode (the round voids none of its holds).
 */
export function expiryLineOf(deps: Pick<Deps, 'clock' | 'connectors'>, name: string): Date | null {
  const connector = deps.connectors.get(name);
  return connector ? holdsExpiredBy(deps.clock.now(), scheduleOf(connector).authorisationExpiryDays) : null;
}

/** The state a capture or an approval judges `payment` in: `cancelled` once its hold has expired, as the round will record it. */
export function statusOnceExpired(deps: Pick<Deps, 'clock' | 'connectors'>, payment: PaymentRow): PaymentStatus {
  const status = payment.status as PaymentStatus;
  if (!HOLDS.includes(status)) return status;
  const line = expiryLineOf(deps, payment.connector);
  return line && payment.createdAt.getTime() <= line.getTime() ? 'cancelled' : status;
}
