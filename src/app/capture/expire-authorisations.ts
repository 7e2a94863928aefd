// Authorisations never captured expire on their connector's schedule
// (`schedule.authorisationExpiryDays`; the sandbox's seven days, on the injected clock): the hold
// is voided at the connector like a /v1/cancel, the payment is cancelled with 2010, its hold's
// journal released, and the merchant notified (payment.cancelled). docs/states.md.
import { scheduleOf } from '../../connectors/port.ts';
import { AppError } from '../../domain/errors.ts';
import { lockPayment } from '../../db/repositories/payments.ts';
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
    const cutoff = new Date(deps.clock.now().getTime() - scheduleOf(connector).authorisationExpiryDays * DAY_MS);
    const due = await deps.database.query<{ id: string; account_id: string }>(
      `SELECT id, account_id FROM payments WHERE status = 'authorised' AND connector = $1 AND created_at < $2 ORDER BY created_at LIMIT $3`,
      [name, cutoff, limit],
    );
    for (const row of due) {
      const claimed = await deps.database.db
        .transaction(async (tx) => {
          const payment = await lockPayment(tx, row.account_id, row.id);
          if (!payment || payment.status !== 'authorised') return null; // captured or cancelled meanwhile
          return { payment, operation: await claimOperation(tx, deps, payment, { kind: 'void', origin: 'expiry', amount: payment.amount }) };
        })
        .catch((error: unknown) => {
          if (error instanceof AppError) return null; // a capture or void of it is in progress
          throw error;
        });
      if (!claimed) continue;
      const result = await executeOperation(deps, claimed.operation, claimed.payment);
      if (result.status === 'succeeded') released += 1;
    }
  }
  return released;
}
