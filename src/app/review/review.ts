// /v1/review: decides payments that risk held for review (status pending_review, such as the
// review test card of docs/api/authorise.md). `review_flag` 1 approves: the payment is captured on an
// auto-capture account, or becomes authorised (awaiting /v1/capture) on a manual one. 0 rejects:
// the authorisation is voided at the processor and the hold released (cancelled, 3002).
import { CODES } from '../../domain/errors.ts';
import { refusalFor } from '../../domain/lifecycle.ts';
import { PAYMENT_MACHINE, type PaymentStatus } from '../../domain/payment.ts';
import { recordEvent } from '../../db/repositories/events.ts';
import { transitionPayment } from '../../db/repositories/payments.ts';
import type { AccountRow } from '../../db/schema.ts';
import { assertSameAmount, assertSameCurrency, lockOrder, refuse, type Outcome, type OrderRef } from '../batch/orders.ts';
import { assertNoLiveOperation, claimOperation, executeOperation, outcomeOf } from '../capture/operation.ts';
import type { Deps } from '../context.ts';
import { paymentEventPayload } from '../payments/events.ts';

export interface ReviewOrder extends OrderRef {
  readonly approve: boolean;
}

export async function review(deps: Deps, account: AccountRow, order: ReviewOrder): Promise<Outcome> {
  const next = await deps.database.db.transaction(async (tx) => {
    const payment = await lockOrder(tx, account.id, order);
    assertSameCurrency(payment, order);
    assertSameAmount(payment, order);
    refuse(refusalFor('review', payment.status as PaymentStatus));
    if (!order.approve) {
      return { payment, operation: await claimOperation(tx, deps, payment, { kind: 'void', origin: 'review_reject', amount: payment.amount }) };
    }
    if (account.captureMode === 'auto') {
      return { payment, operation: await claimOperation(tx, deps, payment, { kind: 'capture', origin: 'review_approve', amount: payment.amount }) };
    }
    // Manual capture: approved means authorised; the hold stays until /v1/capture or /v1/cancel.
    await assertNoLiveOperation(tx, payment.id);
    const approved = await transitionPayment(tx, payment.id, PAYMENT_MACHINE.move(payment.status, 'authorised'), deps.clock.now(), {
      resultCode: CODES.success.code,
      resultMessage: CODES.success.message,
    });
    await recordEvent(tx, {
      accountId: account.id,
      type: 'payment.authorised',
      paymentId: payment.id,
      payload: paymentEventPayload('payment.authorised', approved),
      notifyUrl: approved.notifyUrl,
    });
    return null;
  });
  if (!next) return { status: 'succeeded' };
  return outcomeOf(await executeOperation(deps, next.operation, next.payment));
}
