// /v1/cancel: voids payments before capture (an authorised payment, or one held for review).
// After capture the answer says to refund instead. Pipeline per order: lock and check → claim a
// void → processor → record (capture/operation.ts): cancelled, the hold released.
import { refusalFor } from '../../domain/lifecycle.ts';
import type { PaymentStatus } from '../../domain/payment.ts';
import type { AccountRow, PaymentRow } from '../../db/schema.ts';
import { assertSameAmount, assertSameCurrency, refuse, type OrderRef } from '../batch/orders.ts';
import { carryOut, claimOperation, earlierClaim, lockKeyedOrder, type Claimed, type KeyedOrder, type OperationResult } from '../capture/operation.ts';
import { runUnitOfWork } from '../../db/unit-of-work.ts';
import type { Deps } from '../context.ts';

export async function cancel(deps: Deps, account: AccountRow, order: OrderRef): Promise<OperationResult> {
  const claimed = await runUnitOfWork<KeyedOrder, PaymentRow, Claimed>(deps.database, {
    lock: (tx) => lockKeyedOrder(tx, account.id, order),
    check({ payment, earlier }) {
      if (earlier) return earlierClaim(payment, earlier);
      assertSameCurrency(payment, order);
      assertSameAmount(payment, order);
      refuse(refusalFor('cancel', payment.status as PaymentStatus));
      return { change: payment };
    },
    change: async (tx, payment) => ({
      payment,
      operation: await claimOperation(tx, deps, payment, { kind: 'void', origin: 'cancel', amount: payment.amount, requestKey: order.requestKey }),
    }),
  });
  return carryOut(deps, claimed, account);
}
