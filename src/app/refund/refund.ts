// /v1/refund: refunds captured money, partly and more than once. Each order names its
// transaction (transaction_id, order_no, currency and amount as the transaction has them) and
// the refund_amount. Pipeline per order: lock and check → claim (a pending refund, which counts
// against the captured amount at once) → processor → record (record-refund.ts).
import Type from 'typebox';
import { AppError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { refusalFor } from '../../domain/lifecycle.ts';
import { formatAmount } from '../../domain/money.ts';
import type { PaymentStatus } from '../../domain/payment.ts';
import { insertRefund, reservedRefunds } from '../../db/repositories/refunds.ts';
import type { AccountRow, PaymentRow, RefundRow } from '../../db/schema.ts';
import { runBatch, type BatchAnswer } from '../batch/batch.ts';
import { assertSameAmount, assertSameCurrency, lockOrder, OrderFields, orderRef, refuse, type OrderRef } from '../batch/orders.ts';
import type { Deps } from '../context.ts';
import { UNKNOWN_AFTER_MS } from '../payments/resolve-unknown.ts';
import { checkAmount, compile, Decimal, Text } from '../validation.ts';
import { askRefund, recordRefund } from './record-refund.ts';
import { refundFields } from './refund-answer.ts';

export const REFUND_LIMIT = 50;

const refundOrder = compile(Type.Object({ ...OrderFields, refund_amount: Decimal, refund_reason: Type.Optional(Text({ max: 256 })) }));

export interface RefundOrder extends OrderRef {
  /** Minor units of the order's currency. */
  readonly refundAmount: number;
  readonly reason?: string;
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

export async function refundBatch(deps: Deps, account: AccountRow, body: Record<string, unknown>): Promise<BatchAnswer> {
  return runBatch(deps, account, body, {
    list: 'refund_orders',
    limit: REFUND_LIMIT,
    echo: ['transaction_id', 'order_no', 'currency', 'amount', 'refund_amount', 'refund_reason'],
    parse: refundOrderOf,
    run: async (order) => refundFields(await refund(deps, account, order)),
    refused: (error) => ({ refund_status: '0', refund_message: `V${error.info}`, refund_reference: '', refund_reference_id: '', error_message: error.info }),
  });
}

/** Refunds `order.refundAmount` of one captured payment of `account`. */
export async function refund(deps: Deps, account: AccountRow, order: RefundOrder): Promise<RefundRow> {
  const { claimed, payment } = await deps.database.db.transaction(async (tx) => {
    const payment = await lockOrder(tx, account.id, order);
    assertSameCurrency(payment, order);
    assertSameAmount(payment, order);
    refuse(refusalFor('refund', payment.status as PaymentStatus));
    assertRefundable(payment, order.refundAmount, await reservedRefunds(tx, payment.id));
    const now = deps.clock.now();
    const claimed = await insertRefund(tx, {
      id: newId('RF', now.getTime()),
      paymentId: payment.id,
      accountId: account.id,
      amount: order.refundAmount,
      currency: payment.currency,
      reason: order.reason ?? null,
      nextCheckAt: new Date(now.getTime() + UNKNOWN_AFTER_MS),
    });
    return { claimed, payment };
  });
  return recordRefund(deps, claimed, await askRefund(deps, claimed, payment.connector, payment.connectorReference));
}

function assertRefundable(payment: PaymentRow, amount: number, reserved: number): void {
  const left = payment.capturedAmount - reserved;
  if (amount <= left) return;
  const money = (minor: number) => formatAmount(minor, payment.currency);
  throw new AppError(
    'refund_exceeds_captured',
    left <= 0
      ? `nothing left to refund: ${money(payment.capturedAmount)} captured, all of it refunded or being refunded`
      : `refund_amount ${money(amount)} exceeds the ${money(left)} left to refund of ${money(payment.capturedAmount)} captured`,
    { field: 'refund_amount' },
  );
}
