// An order of a batch names its transaction twice, by transaction_id and order_no, and repeats
// its currency and amount: all must agree with one transaction of the calling account. Another
// account's transaction is not found, exactly like one that does not exist.
import { AppError } from '../../domain/errors.ts';
import type { Refusal } from '../../domain/lifecycle.ts';
import { formatAmount } from '../../domain/money.ts';
import type { Executor } from '../../db/client.ts';
import { lockPayment } from '../../db/repositories/payments.ts';
import type { PaymentRow } from '../../db/schema.ts';
import { isDatabaseUnavailable } from '../../db/unavailable.ts';
import type { Deps } from '../context.ts';

/** What a batch operation's use case is given for one order; HTTP parses it from the wire (src/http/batch/operations.ts). */
export interface OrderRef {
  readonly transactionId: string;
  readonly orderNo: string;
  readonly currency: string;
  /** `amount` in minor units of `currency`. */
  readonly amount: number;
  /**
   * In a request with an Idempotency-Key, the key the order's capture, void or refund is claimed
   * under (the key's scope and the order's position, unique per account). A request that takes the
   * key over from a dead one finds that claim by it and answers it instead of claiming again.
   */
  readonly requestKey?: string;
}

/** Locks the order's transaction for the rest of the caller's transaction. */
export async function lockOrder(tx: Executor, accountId: string, order: OrderRef): Promise<PaymentRow> {
  const payment = await lockPayment(tx, accountId, order.transactionId);
  if (!payment || payment.orderNo !== order.orderNo) {
    throw new AppError('transaction_not_found', 'no transaction with this transaction_id and order_no', { field: 'transaction_id' });
  }
  return payment;
}

export function assertSameCurrency(payment: PaymentRow, order: OrderRef): void {
  if (payment.currency !== order.currency) {
    throw new AppError('currency_mismatch', `currency ${order.currency} does not match the transaction's ${payment.currency}`, { field: 'currency' });
  }
}

export function assertSameAmount(payment: PaymentRow, order: OrderRef): void {
  if (payment.amount !== order.amount) {
    const given = formatAmount(order.amount, payment.currency);
    throw new AppError('amount_mismatch', `amount ${given} does not match the transaction's ${formatAmount(payment.amount, payment.currency)}`, {
      field: 'amount',
    });
  }
}

/**
 * What refuses one order, from what its run threw: an AppError is its refusal; the database away
 * refuses it `9503` (`service_unavailable`: nothing of it was stored, its claim never committed;
 * an order whose processor call was made is answered pending instead, executeOperation and
 * recordWave); any other fault refuses that order alone, logged as `message` with `context`.
 * The other orders of the batch are not refused with it: some may be done already (the batch
 * answers 503 as a whole only when none was, src/http/batch/run.ts).
 */
export function orderRefusal(error: unknown, log: Deps['log'], message: string, context: Record<string, unknown>): AppError {
  if (error instanceof AppError) return error;
  if (isDatabaseUnavailable(error)) {
    // The driver's error stays its cause: a caller of one order (the portal) answers it as the database away.
    const away = new AppError('service_unavailable');
    away.cause = error;
    return away;
  }
  log.error({ err: error, ...context }, message);
  return new AppError('internal_error');
}

/** Whether an order was refused because the database was away (orderRefusal). */
export function metDatabaseAway(refusal: AppError): boolean {
  return refusal.codeName === 'service_unavailable';
}

export function refuse(refusal: Refusal | null): void {
  if (refusal) throw new AppError(refusal.code, refusal.detail);
}

/** How one order of a lifecycle operation ended at the processor. */
export interface Outcome {
  readonly status: 'succeeded' | 'pending' | 'failed';
  /** Why the processor refused, when it did. */
  readonly reason?: string;
}
