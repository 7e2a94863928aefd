// /v1/cancel: voids payments before capture (an authorised payment, or one held for review).
// After capture the answer says to refund instead. Pipeline per order: lock and check → claim a
// void → processor → record (capture/operation.ts): cancelled, the hold released.
import Type from 'typebox';
import { refusalFor } from '../../domain/lifecycle.ts';
import type { PaymentStatus } from '../../domain/payment.ts';
import type { AccountRow } from '../../db/schema.ts';
import { runUnitOfWork } from '../../db/unit-of-work.ts';
import { runBatch, type BatchAnswer } from '../batch/batch.ts';
import { assertSameAmount, assertSameCurrency, lockOrder, OrderFields, orderRef, refuse, type OrderRef } from '../batch/orders.ts';
import { outcomeFields, refusedFields } from '../batch/outcome.ts';
import { claimOperation, executeOperation, outcomeOf, type OperationResult } from '../capture/operation.ts';
import type { Deps } from '../context.ts';
import { compile } from '../validation.ts';

export const CANCEL_LIMIT = 50;
export const cancelOrder = compile(Type.Object(OrderFields));

export async function cancelBatch(deps: Deps, account: AccountRow, body: Record<string, unknown>): Promise<BatchAnswer> {
  return runBatch(deps, account, body, {
    list: 'cancel_orders',
    limit: CANCEL_LIMIT,
    echo: ['transaction_id', 'order_no', 'currency', 'amount'],
    parse: (entry) => orderRef(cancelOrder.parse(entry)),
    run: async (order) => outcomeFields('cancel_status', outcomeOf(await cancel(deps, account, order))),
    refused: refusedFields('cancel_status'),
  });
}

export async function cancel(deps: Deps, account: AccountRow, order: OrderRef): Promise<OperationResult> {
  const { operation, payment } = await runUnitOfWork(deps.database, {
    lock: (tx) => lockOrder(tx, account.id, order),
    check(payment) {
      assertSameCurrency(payment, order);
      assertSameAmount(payment, order);
      refuse(refusalFor('cancel', payment.status as PaymentStatus));
      return { change: payment };
    },
    change: async (tx, payment) => ({ payment, operation: await claimOperation(tx, deps, payment, { kind: 'void', origin: 'cancel', amount: payment.amount }) }),
  });
  return executeOperation(deps, operation, payment);
}
