// /v1/capture: captures authorised payments, each once. An order's `amount` is the amount to
// capture: the whole authorisation or less (a partial capture, the rest released), never more.
// Pipeline per order: lock and check → claim → processor → record (operation.ts).
import { AppError } from '../../domain/errors.ts';
import { refusalFor } from '../../domain/lifecycle.ts';
import { formatAmount } from '../../domain/money.ts';
import type { PaymentStatus } from '../../domain/payment.ts';
import type { AccountRow } from '../../db/schema.ts';
import { assertSameCurrency, lockOrder, refuse, type OrderRef } from '../batch/orders.ts';
import { runUnitOfWork } from '../../db/unit-of-work.ts';
import type { Deps } from '../context.ts';
import { claimOperation, executeOperation, type OperationResult } from './operation.ts';

/** Captures `order.amount` of one authorised payment of `account`. */
export async function capture(deps: Deps, account: AccountRow, order: OrderRef): Promise<OperationResult> {
  const { operation, payment } = await runUnitOfWork(deps.database, {
    lock: (tx) => lockOrder(tx, account.id, order),
    check(payment) {
      assertSameCurrency(payment, order);
      refuse(refusalFor('capture', payment.status as PaymentStatus));
      if (order.amount > payment.amount) {
        throw new AppError(
          'capture_exceeds_authorised',
          `amount ${formatAmount(order.amount, order.currency)} exceeds the authorised ${formatAmount(payment.amount, payment.currency)}`,
          { field: 'amount' },
        );
      }
      return { change: payment };
    },
    change: async (tx, payment) => ({ payment, operation: await claimOperation(tx, deps, payment, { kind: 'capture', origin: 'capture', amount: order.amount }) }),
  });
  return executeOperation(deps, operation, payment);
}
