// Payments whose outcome the processor did not tell us (timeout, unreadable answer) stay
// `processing`: pending, never success. This asks the processor again, later, and records what
// it says; until it gives a clear answer the payment stays pending.
import { accounts } from '../../db/schema.ts';
import { eq } from 'drizzle-orm';
import { paymentsProcessingSince, updatePayment } from '../../db/repositories/payments.ts';
import type { Deps } from '../context.ts';
import { recordAuthorisation } from './record-authorisation.ts';
import { storedRisk } from './waiting.ts';

/** Longer than any connector's own request timeout, so no live request is second-guessed. */
export const UNKNOWN_AFTER_MS = 30_000;

export async function resolveUnknownPayments(deps: Deps, limit = 50): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - UNKNOWN_AFTER_MS);
  const stale = await paymentsProcessingSince(deps.database.db, before, limit);
  let resolved = 0;
  for (const payment of stale) {
    const connector = deps.connectors.get(payment.connector);
    const answer = connector
      ? await connector.paymentStatus({ paymentId: payment.id, ...(payment.connectorReference ? { reference: payment.connectorReference } : {}) })
      : undefined;
    if (!answer?.ok || answer.value.status === 'pending') {
      // Asked again no sooner than the next window.
      await deps.database.db.transaction((tx) => updatePayment(tx, payment.id, {}));
      continue;
    }
    const [account] = await deps.database.db.select().from(accounts).where(eq(accounts.id, payment.accountId));
    const risk = storedRisk(payment);
    await recordAuthorisation(deps, { account: account!, paymentId: payment.id, ...(risk ? { risk } : {}) }, answer.value);
    resolved += 1;
  }
  return resolved;
}
