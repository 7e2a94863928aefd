// /v1/refund: refunds captured money, partly and more than once. Each order names its
// transaction (transaction_id, order_no, currency and amount as the transaction has them) and
// the refund_amount. Pipeline per order: lock and check → claim (a pending refund, which counts
// against the captured amount at once) → processor → record (record-refund.ts).
import Type from 'typebox';
import { AppError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { refusalFor, startsFrom } from '../../domain/lifecycle.ts';
import { formatAmount } from '../../domain/money.ts';
import type { PaymentStatus } from '../../domain/payment.ts';
import { claimRefund } from '../../db/repositories/refunds.ts';
import type { AccountRow, PaymentRow, RefundRow } from '../../db/schema.ts';
import { runBatch, type BatchAnswer } from '../batch/batch.ts';
import { assertSameAmount, assertSameCurrency, lockOrder, OrderFields, orderRef, refuse, type OrderRef } from '../batch/orders.ts';
import type { Deps } from '../context.ts';
import { UNKNOWN_AFTER_MS } from '../payments/resolve-unknown.ts';
import { checkAmount, compile, Decimal, Text } from '../validation.ts';
import { askRefund, recordRefund } from './record-refund.ts';
import { refundFields } from './refund-answer.ts';

export const REFUND_LIMIT = 50;

export const refundOrder = compile(Type.Object({ ...OrderFields, refund_amount: Decimal, refund_reason: Type.Optional(Text({ max: 256, freeText: true })) }));

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

/**
 * Refunds `order.refundAmount` of one captured payment of `account`: the claim is one statement
 * (claimRefund); only when it claims nothing are the checks run one by one, to say why.
 */
export async function refund(deps: Deps, account: AccountRow, order: RefundOrder): Promise<RefundRow> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = deps.clock.now();
    const claimed = await claimRefund(deps.database, {
      id: newId('RF', now.getTime()),
      accountId: account.id,
      transactionId: order.transactionId,
      orderNo: order.orderNo,
      currency: order.currency,
      amount: order.amount,
      refundAmount: order.refundAmount,
      reason: order.reason ?? null,
      refundableFrom: startsFrom('refund'),
      nextCheckAt: new Date(now.getTime() + UNKNOWN_AFTER_MS),
    });
    if (claimed) return recordRefund(deps, claimed.refund, await askRefund(deps, claimed.refund, claimed.connector, claimed.paymentReference));
    await explainRefusal(deps, account, order);
  }
  throw new AppError('operation_in_progress', 'the transaction kept changing while the refund was claimed: try again');
}

/** Throws the refusal the order deserves; returns when it turns out refundable (it changed meanwhile). */
async function explainRefusal(deps: Deps, account: AccountRow, order: RefundOrder): Promise<void> {
  await deps.database.db.transaction(async (tx) => {
    const payment = await lockOrder(tx, account.id, order);
    assertSameCurrency(payment, order);
    assertSameAmount(payment, order);
    refuse(refusalFor('refund', payment.status as PaymentStatus));
    assertRefundable(payment, order.refundAmount, payment.refundReserved);
  });
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
