// /v1/capture: captures authorised payments, each once. An order's `amount` is the amount to
// capture: the whole authorisation or less (a partial capture, the rest released), never more.
// Pipeline per order: lock and check → claim → processor → record (operation.ts).
import { AppError } from '../../domain/errors.ts';
import { refusalFor } from '../../domain/lifecycle.ts';
import { formatAmount } from '../../domain/money.ts';
import type { AccountRow, PaymentRow } from '../../db/schema.ts';
import { assertSameCurrency, refuse, type OrderRef } from '../batch/orders.ts';
import { runUnitOfWork } from '../../db/unit-of-work.ts';
import type { Deps } from '../context.ts';
import { statusOnceExpired } from './hold-expiry.ts';
import { carryOut, claimOperation, earlierClaim, lockKeyedOrder, type Claimed, type KeyedOrder, type OperationResult } from './operation.ts';

/** Captures `order.amount` of one authorised payment of `account`. */
export async function capture(deps: Deps, account: AccountRow, order: OrderRef): Promise<OperationResult> {
  const claimed = await runUnitOfWork<KeyedOrder, PaymentRow, Claimed>(deps.database, {
    lock: (tx) => lockKeyedOrder(tx, account.id, order),
    check({ payment, earlier }) {
      if (earlier) return earlierClaim(payment, earlier);
      assertSameCurrency(payment, order);
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
  return carryOut(deps, claimed);
}
