// The lifecycle operations' wire side (/v1/capture, /v1/cancel, /v1/refund, /v1/review): each
// batch order's schema, its parsing into the use case's typed order, and the per-order answer
// fields. The use cases (src/app/capture, cancel, refund, review) take one typed order each.
import Type from 'typebox';
import { AppError } from '../../domain/errors.ts';
import { batchCallLimit, inFanOut } from '../../app/batch/calls-in-flight.ts';
import type { OrderRef } from '../../app/batch/orders.ts';
import { cancel } from '../../app/cancel/cancel.ts';
import { capture } from '../../app/capture/capture.ts';
import { outcomeOf } from '../../app/capture/operation.ts';
import type { Deps } from '../../app/context.ts';
import { refundWave, type RefundOrder } from '../../app/refund/refund.ts';
import { review, type ReviewOrder } from '../../app/review/review.ts';
import { checkAmount, checkCurrency, compile, CurrencyCode, Decimal, Text } from '../requests/validation.ts';
import type { AccountRow } from '../../db/schema.ts';
import { CHARGE_ORDER_NO } from '../../domain/subscriptions/subscription.ts';
import { refundFields } from '../encoders/refund.ts';
import { outcomeFields, refusedFields } from './outcome.ts';
import { ordersOf, runBatch, type BatchAnswer } from './run.ts';

export const CAPTURE_LIMIT = 100;
export const CANCEL_LIMIT = 50;
export const REFUND_LIMIT = 50;
export const REVIEW_LIMIT = 100;

const TransactionId = Text({ max: 64, pattern: '^[\\x21-\\x7e]+$', hint: 'the transaction_id the gateway gave' });
// A merchant's order_no, or a subscription's recurring charge's (`ORD-1 R2-1`, docs/subscriptions.md).
const OrderNo = Text({
  max: 80,
  pattern: `^[\\x21-\\x7e]{1,64}$|${CHARGE_ORDER_NO.source}`,
  hint: '1 to 64 printable characters without spaces',
});

/** The fields every batch order carries. */
const OrderFields = {
  transaction_id: TransactionId,
  order_no: OrderNo,
  currency: CurrencyCode,
  amount: Decimal,
};

export const captureOrder = compile(Type.Object(OrderFields));
export const cancelOrder = compile(Type.Object(OrderFields));
export const refundOrder = compile(Type.Object({ ...OrderFields, refund_amount: Decimal, refund_reason: Type.Optional(Text({ max: 256, freeText: true })) }));
export const reviewOrder = compile(
  Type.Object({ ...OrderFields, review_flag: Text({ max: 1, pattern: '^[01]$', hint: '1 to approve or 0 to reject' }) }),
);

/** The checks a schema cannot make (currency code, amount precision), in that order's terms. */
export function orderRef(entry: { transaction_id: string; order_no: string; currency: string; amount: string }): OrderRef {
  const currency = checkCurrency(entry.currency);
  return { transactionId: entry.transaction_id, orderNo: entry.order_no, currency, amount: checkAmount(entry.amount, currency) };
}

export function refundOrderOf(entry: Record<string, unknown>): RefundOrder {
  const order = refundOrder.parse(entry);
  const ref = orderRef(order);
  return {
    ...ref,
    refundAmount: checkAmount(order.refund_amount, ref.currency, 'refund_amount'),
    ...(order.refund_reason ? { reason: order.refund_reason } : {}),
  };
}

export function reviewOrderOf(entry: Record<string, unknown>): ReviewOrder {
  const order = reviewOrder.parse(entry);
  return { ...orderRef(order), approve: order.review_flag === '1' };
}

/**
 * The call limit of a capture, void or review batch's lanes, and their fan-out: what the
 * connectors of the payments it names accept at once (batchCallLimit). A request refused as a whole
 * is refused here already, as runBatch would.
 */
async function laneCalls(deps: Deps, account: AccountRow, body: Record<string, unknown>, list: { list: string; limit: number }) {
  const ids = ordersOf(body, list).flatMap((order) => (typeof order.transaction_id === 'string' ? [order.transaction_id] : []));
  const callLimit = await batchCallLimit(deps, account, ids);
  return { callLimit, fanOut: inFanOut(deps, callLimit) };
}

/**
 * The order as claimed in a request with an Idempotency-Key: under `scope:position`, which a
 * request taking over from a dead one finds again (src/http/plugins/idempotency.ts).
 */
function keyed<Order extends OrderRef>(order: Order, scope: string | undefined, index: number): Order {
  return scope === undefined ? order : { ...order, requestKey: `${scope}:${index}` };
}

export async function captureBatch(deps: Deps, account: AccountRow, body: Record<string, unknown>, scope?: string): Promise<BatchAnswer> {
  const { callLimit, fanOut } = await laneCalls(deps, account, body, { list: 'capture_orders', limit: CAPTURE_LIMIT });
  return runBatch(deps, account, body, {
    list: 'capture_orders',
    callLimit,
    limit: CAPTURE_LIMIT,
    echo: ['transaction_id', 'order_no', 'currency', 'amount'],
    parse: (entry) => orderRef(captureOrder.parse(entry)),
    run: async (order, index) => outcomeFields('capture_status', outcomeOf(await capture(fanOut, account, keyed(order, scope, index)))),
    refused: refusedFields('capture_status'),
  });
}

export async function cancelBatch(deps: Deps, account: AccountRow, body: Record<string, unknown>, scope?: string): Promise<BatchAnswer> {
  const { callLimit, fanOut } = await laneCalls(deps, account, body, { list: 'cancel_orders', limit: CANCEL_LIMIT });
  return runBatch(deps, account, body, {
    list: 'cancel_orders',
    callLimit,
    limit: CANCEL_LIMIT,
    echo: ['transaction_id', 'order_no', 'currency', 'amount'],
    parse: (entry) => orderRef(cancelOrder.parse(entry)),
    run: async (order, index) => outcomeFields('cancel_status', outcomeOf(await cancel(fanOut, account, keyed(order, scope, index)))),
    refused: refusedFields('cancel_status'),
  });
}

export async function refundBatch(deps: Deps, account: AccountRow, body: Record<string, unknown>, scope?: string): Promise<BatchAnswer> {
  return runBatch(deps, account, body, {
    list: 'refund_orders',
    limit: REFUND_LIMIT,
    echo: ['transaction_id', 'order_no', 'currency', 'amount', 'refund_amount', 'refund_reason'],
    parse: refundOrderOf,
    runWave: async (orders, indices) =>
      (await refundWave(deps, account, orders.map((order, i) => keyed(order, scope, indices[i]!)))).map((result) =>
        result instanceof AppError ? result : refundFields(result),
      ),
    refused: (error) => ({ refund_status: '0', refund_message: `V${error.info}`, refund_reference: '', refund_reference_id: '', error_message: error.info }),
  });
}

export async function reviewBatch(deps: Deps, account: AccountRow, body: Record<string, unknown>, scope?: string): Promise<BatchAnswer> {
  const { callLimit, fanOut } = await laneCalls(deps, account, body, { list: 'review_orders', limit: REVIEW_LIMIT });
  return runBatch(deps, account, body, {
    list: 'review_orders',
    callLimit,
    limit: REVIEW_LIMIT,
    echo: ['transaction_id', 'order_no', 'currency', 'amount', 'review_flag'],
    parse: reviewOrderOf,
    run: async (order, index) => outcomeFields('review_status', await review(fanOut, account, keyed(order, scope, index))),
    refused: refusedFields('review_status'),
  });
}
