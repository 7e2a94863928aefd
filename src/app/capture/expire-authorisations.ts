// Authorisations never captured expire on their connector's schedule
// (`schedule.authorisationExpiryDays`; the sandbox's seven days, on the injected clock, counted
// from the payment's created_at, which the clock stamped): the hold is voided at the connector
// like a /v1/cancel, the payment is cancelled with 2010, its hold's journal released, and the
// merchant notified (payment.cancelled). docs/states.md.
//
// Each due payment is leased first (QUEUES.expiringAuthorisations, in a short statement that
// commits before the processor is asked), so two workers never void the same one at once and a
// crashed worker's payment is taken up when its lease runs out. The void is then claimed as a unit
// of work under the payment's lock, exactly as /v1/cancel claims one.
import { scheduleOf } from '../../connectors/port.ts';
import { AppError } from '../../domain/errors.ts';
import { QUEUES } from '../../db/repositories/leases.ts';
import { leaseDuePayments, lockPayment } from '../../db/repositories/payments.ts';
import type { PaymentOperationRow, PaymentRow } from '../../db/schema.ts';
import { runUnitOfWork } from '../../db/unit-of-work.ts';
import type { Deps } from '../context.ts';
import { claimOperation, executeOperation } from './operation.ts';

const DAY_MS = 86_400_000;

/** One round; answers how many authorisations it released. */
export async function expireAuthorisations(deps: Deps, limit = 50): Promise<number> {
  const connectors = await deps.database.query<{ connector: string }>(`SELECT DISTINCT connector FROM accounts`);
  let released = 0;
  for (const { connector: name } of connectors) {
    const connector = deps.connectors.get(name);
    if (!connector) continue;
    const now = deps.clock.now();
    const dueBy = new Date(now.getTime() - scheduleOf(connector).authorisationExpiryDays * DAY_MS);
    const due = await leaseDuePayments(deps.database.db, QUEUES.expiringAuthorisations, deps, limit, deps.config.processor.leaseMs, { dueBy, scope: name });
    for (const leased of due) {
      const claimed = await claimExpiry(deps, leased);
      if (!claimed) continue;
      const result = await executeOperation(deps, claimed.operation, claimed.payment);
      if (result.status === 'succeeded') released += 1;
    }
  }
  return released;
}

type Claimed = { readonly payment: PaymentRow; readonly operation: PaymentOperationRow };

/** Claims the void of a leased authorisation; null when it was captured or cancelled meanwhile, or a capture or void of it is in progress. */
async function claimExpiry(deps: Deps, leased: PaymentRow): Promise<Claimed | null> {
  return runUnitOfWork<PaymentRow | null, PaymentRow, Claimed | null>(deps.database, {
    lock: (tx) => lockPayment(tx, leased.accountId, leased.id),
    check: (payment) => (payment?.status === 'authorised' ? { change: payment } : { answer: null }),
    change: async (tx, payment) => ({ payment, operation: await claimOperation(tx, deps, payment, { kind: 'void', origin: 'expiry', amount: payment.amount }) }),
  }).catch((error: unknown) => {
    if (error instanceof AppError) return null; // a capture or void of it is in progress: its lease runs out and it is looked at again
    throw error;
  });
}
