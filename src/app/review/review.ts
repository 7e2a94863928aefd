// /v1/review: decides payments that risk held for review (status pending_review, such as the
// review test card of docs/api/authorise.md). `review_flag` 1 approves: the payment is captured on an
// auto-capture account, or becomes authorised (awaiting /v1/capture) on a manual one. 0 rejects:
// the authorisation is voided at the processor and the hold released (cancelled, 3002).
import Type from 'typebox';
import { CODES } from '../../domain/errors.ts';
import { refusalFor } from '../../domain/lifecycle.ts';
import { PAYMENT_MACHINE, type PaymentStatus } from '../../domain/payment.ts';
import { transitionPayment } from '../../db/repositories/payments.ts';
import type { AccountRow, PaymentOperationRow, PaymentRow } from '../../db/schema.ts';
import { runUnitOfWork } from '../../db/unit-of-work.ts';
import type { Transition } from '../../domain/state-machine.ts';
import { runBatch, type BatchAnswer } from '../batch/batch.ts';
import { assertSameAmount, assertSameCurrency, lockOrder, OrderFields, orderRef, refuse, type OrderRef } from '../batch/orders.ts';
import { outcomeFields, refusedFields, type Outcome } from '../batch/outcome.ts';
import { assertNoLiveOperation, claimOperation, executeOperation, outcomeOf, type OperationKind, type OperationOrigin } from '../capture/operation.ts';
import type { Deps } from '../context.ts';
import { paymentEventPayload } from '../payments/events.ts';
import { compile, Text } from '../validation.ts';

export const REVIEW_LIMIT = 100;

export const reviewOrder = compile(
  Type.Object({ ...OrderFields, review_flag: Text({ max: 1, pattern: '^[01]$', hint: '1 to approve or 0 to reject' }) }),
);

export interface ReviewOrder extends OrderRef {
  readonly approve: boolean;
}

export async function reviewBatch(deps: Deps, account: AccountRow, body: Record<string, unknown>): Promise<BatchAnswer> {
  return runBatch(deps, account, body, {
    list: 'review_orders',
    limit: REVIEW_LIMIT,
    echo: ['transaction_id', 'order_no', 'currency', 'amount', 'review_flag'],
    parse: (entry) => {
      const order = reviewOrder.parse(entry);
      return { ...orderRef(order), approve: order.review_flag === '1' };
    },
    run: async (order) => outcomeFields('review_status', await review(deps, account, order)),
    refused: refusedFields('review_status'),
  });
}

/** What a review decision changes: a capture or void claimed, or (manual capture, approved) the payment authorised. */
type ReviewChange =
  | { readonly claim: { kind: OperationKind; origin: OperationOrigin }; readonly payment: PaymentRow }
  | { readonly approve: Transition<PaymentStatus>; readonly payment: PaymentRow };

type ReviewWritten = { readonly payment: PaymentRow; readonly operation?: PaymentOperationRow };

export async function review(deps: Deps, account: AccountRow, order: ReviewOrder): Promise<Outcome> {
  const next = await runUnitOfWork<PaymentRow, ReviewChange, ReviewWritten>(deps.database, {
    lock: (tx) => lockOrder(tx, account.id, order),
    check(payment) {
      assertSameCurrency(payment, order);
      assertSameAmount(payment, order);
      refuse(refusalFor('review', payment.status as PaymentStatus));
      if (!order.approve) return { change: { payment, claim: { kind: 'void', origin: 'review_reject' } } };
      if (account.captureMode === 'auto') return { change: { payment, claim: { kind: 'capture', origin: 'review_approve' } } };
      // Manual capture: approved means authorised; the hold stays until /v1/capture or /v1/cancel.
      return { change: { payment, approve: PAYMENT_MACHINE.move(payment.status, 'authorised') } };
    },
    async change(tx, change) {
      if ('claim' in change) {
        return { payment: change.payment, operation: await claimOperation(tx, deps, change.payment, { ...change.claim, amount: change.payment.amount }) };
      }
      await assertNoLiveOperation(tx, change.payment.id);
      const approved = await transitionPayment(tx, change.payment.id, change.approve, deps.clock.now(), {
        resultCode: CODES.success.code,
        resultMessage: CODES.success.message,
      });
      return { payment: approved };
    },
    event: (change, { payment }) =>
      'approve' in change
        ? { accountId: account.id, type: 'payment.authorised', paymentId: payment.id, payload: paymentEventPayload('payment.authorised', payment), notifyUrl: payment.notifyUrl }
        : undefined,
  });
  if (!next.operation) return { status: 'succeeded' };
  return outcomeOf(await executeOperation(deps, next.operation, next.payment));
}
