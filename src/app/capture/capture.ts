// /v1/capture: captures authorised payments, each once. An order's `amount` is the amount to
// capture: the whole authorisation or less (a partial capture, the rest released), never more.
// Pipeline per order: lock and check → claim → processor → record (operation.ts).
import { AppError } from '../../domain/errors.ts';
import { refusalFor } from '../../domain/lifecycle.ts';
import { formatAmount } from '../../domain/money.ts';
import type { Tx } from '../../db/client.ts';
import { liveOperation } from '../../db/repositories/operations.ts';
import type { AccountRow, PaymentOperationRow, PaymentRow } from '../../db/schema.ts';
import { assertSameCurrency, refuse, type OrderRef } from '../batch/orders.ts';
import { runUnitOfWork } from '../../db/unit-of-work.ts';
import type { Deps } from '../context.ts';
import { statusOnceExpired } from './hold-expiry.ts';
import { carryOut, claimOperation, earlierClaim, inProgress, lockKeyedOrder, type Claimed, type KeyedOrder, type OperationResult } from './operation.ts';

/** Captures `order.amount` of one authorised payment of `account`. */
export async function capture(deps: Deps, account: AccountRow, order: OrderRef): Promise<OperationResult> {
  const claimed = await runUnitOfWork<HeldOrder, PaymentRow, Claimed>(deps.database, {
    lock: (tx) => lockHeldOrder(deps, tx, account.id, order),
    check({ payment, earlier, live }) {
      if (earlier) return earlierClaim(payment, earlier);
      assertSameCurrency(payment, order);
      if (live) throw inProgress(live);
      // A hold past its expiry is refused as the expiry round will leave it (hold-expiry.ts).
      refuse(refusalFor('capture', statusOnceExpired(deps, payment)));
      if (order.amount > payment.amount) {
        throw new AppError(
          'capture_exceeds_authorised',
          `amount ${formatAmount(order.amount, order.currency)} exceeds the authorised ${formatAmount(payment.amount, payment.currency)}`,
          { field: 'amount' },
        );
      }
      return { change: payment };
    },
    change: async (tx, payment) => ({
      payment,
      operation: await claimOperation(tx, deps, payment, { kind: 'capture', origin: 'capture', amount: order.amount, requestKey: order.requestKey }),
    }),
  });
  return carryOut(deps, claimed, account);
}

/** The order locked, and the capture or void under way on a payment still held for review (null otherwise). */
type HeldOrder = KeyedOrder & { readonly live: PaymentOperationRow | null };

/**
 * A payment held for review is refused 5004, "approve it with /v1/review first"; while a capture
 * or void of it is pending (a cancel's, a review decision's) that approval would be refused 5012,
 * so the capture says 5012 itself. Only such a payment costs the read: an authorised one's
 * capture meets the live operation when it claims.
 */
async function lockHeldOrder(deps: Deps, tx: Tx, accountId: string, order: OrderRef): Promise<HeldOrder> {
  const keyed = await lockKeyedOrder(tx, accountId, order);
  const held = !keyed.earlier && statusOnceExpired(deps, keyed.payment) === 'pending_review';
  return { ...keyed, live: held ? await liveOperation(tx, keyed.payment.id) : null };
}
