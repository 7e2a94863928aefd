// /v1/refund: refunds captured money, partly and more than once. Each order names its
// transaction (transaction_id, order_no, currency and amount as the transaction has them) and
// the refund_amount. Pipeline per order: lock and check → claim (a pending refund, which counts
// against the captured amount at once) → processor → record (record-refund.ts).
import { AppError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { refusalFor, startsFrom } from '../../domain/lifecycle.ts';
import { formatAmount } from '../../domain/money.ts';
import type { PaymentStatus } from '../../domain/payment.ts';
import { claimRefund, refundByRequestKey } from '../../db/repositories/refunds.ts';
import type { AccountRow, PaymentRow, RefundRow } from '../../db/schema.ts';
import { assertSameAmount, assertSameCurrency, lockOrder, refuse, type OrderRef } from '../batch/orders.ts';
import type { Deps } from '../context.ts';
import { askRefund, recordRefund } from './record-refund.ts';

/** One refund order, as its adapter built it (src/http/batch/operations.ts parses /v1/refund's). */
export interface RefundOrder extends OrderRef {
  /** Minor units of the order's currency. */
  readonly refundAmount: number;
  readonly reason?: string;
}

/**
 * Refunds `order.refundAmount` of one captured payment of `account`: the claim is one statement
 * (claimRefund); only when it claims nothing are the checks run one by one, to say why. An order
 * of a keyed request claims at most one refund under its `requestKey`; run again (its request
 * taken over after the first died), it answers that refund.
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
      // Wall time: a technical timer, not hurried by the test clock.
      nextCheckAt: new Date(deps.wallClock.now().getTime() + deps.config.processor.unknownAfterMs),
      ...(order.requestKey ? { requestKey: order.requestKey } : {}),
    });
    if (claimed) return recordRefund(deps, claimed.refund, await askRefund(deps, claimed.refund, claimed.connector, claimed.paymentReference));
    // A keyed request taken over from a dead one: the refund it claimed is the answer, as it stands
    // (a pending one is asked about by settlePendingRefunds; asking now could race its call).
    const earlier = order.requestKey ? await refundByRequestKey(deps.database.db, account.id, order.requestKey) : null;
    if (earlier) return earlier;
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
