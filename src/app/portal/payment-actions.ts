// What staff do to a transaction from its page: refund, cancel, capture, decide a review, replay
// a notification. Each builds the typed order the merchant API's use case takes from the
// transaction's own row (found under the member's merchant) and calls that same use case, so the
// rules and the refusals are the API's: no second path to money. A refusal keeps its catalogue
// code and message, as the API would answer it.
import { codeText } from '../../domain/errors.ts';
import { exponentOf } from '../../domain/money.ts';
import { merchantEvent } from '../../db/repositories/portal-transactions.ts';
import type { PaymentRow } from '../../db/schema.ts';
import type { OrderRef } from '../batch/orders.ts';
import { cancel } from '../cancel/cancel.ts';
import { capture } from '../capture/capture.ts';
import { outcomeOf } from '../capture/operation.ts';
import type { Deps } from '../context.ts';
import { replayNotification } from '../notifications/deliver.ts';
import { refund } from '../refund/refund.ts';
import { review } from '../review/review.ts';
import { asRefusal } from './api-refusal.ts';
import { PortalRefusal } from './refusal.ts';
import { merchantTransaction } from './transactions.ts';

/** A refund above this many whole units of its currency asks the member to re-authenticate. */
export const REFUND_REAUTH_ABOVE_UNITS = 500;

export function refundNeedsReauth(minor: number, currency: string): boolean {
  return minor > REFUND_REAUTH_ABOVE_UNITS * 10 ** exponentOf(currency);
}

/** How an action ended at the processor, as the API's per-order status says it. */
export interface ActionOutcome {
  readonly status: 'succeeded' | 'pending' | 'failed';
  /** `<code>:<message>` when not done, as the API's error_message. */
  readonly message: string;
}

function orderOf(payment: PaymentRow): OrderRef {
  return { transactionId: payment.id, orderNo: payment.orderNo, currency: payment.currency, amount: payment.amount };
}

function outcomeText(status: ActionOutcome['status'], reason?: string): ActionOutcome {
  const message = status === 'succeeded' ? '' : status === 'pending' ? codeText('pending') : codeText('processor_refused', `refused by the processor${reason ? `: ${reason}` : ''}`);
  return { status, message };
}

export async function refundTransaction(deps: Deps, merchantId: string, order: { transactionId: string; refundAmount: number; reason?: string }): Promise<ActionOutcome> {
  const { payment, account } = await merchantTransaction(deps, merchantId, order.transactionId);
  const row = await asRefusal(() => refund(deps, account, { ...orderOf(payment), refundAmount: order.refundAmount, ...(order.reason ? { reason: order.reason } : {}) }));
  if (row.status === 'failed') return { status: 'failed', message: `${row.resultCode ?? ''}:${row.resultMessage ?? ''}` };
  return outcomeText(row.status);
}

export async function cancelTransaction(deps: Deps, merchantId: string, transactionId: string): Promise<ActionOutcome> {
  const { payment, account } = await merchantTransaction(deps, merchantId, transactionId);
  const outcome = outcomeOf(await asRefusal(() => cancel(deps, account, orderOf(payment))));
  return outcomeText(outcome.status, outcome.reason);
}

/** Captures `amount` (minor units; the whole authorisation when absent). */
export async function captureTransaction(deps: Deps, merchantId: string, transactionId: string, amount?: number): Promise<ActionOutcome> {
  const { payment, account } = await merchantTransaction(deps, merchantId, transactionId);
  const outcome = outcomeOf(await asRefusal(() => capture(deps, account, { ...orderOf(payment), amount: amount ?? payment.amount })));
  return outcomeText(outcome.status, outcome.reason);
}

export async function reviewTransaction(deps: Deps, merchantId: string, transactionId: string, approve: boolean): Promise<ActionOutcome> {
  const { payment, account } = await merchantTransaction(deps, merchantId, transactionId);
  const outcome = await asRefusal(() => review(deps, account, { ...orderOf(payment), approve }));
  return outcomeText(outcome.status, outcome.reason);
}

/** Sends one of the transaction's notifications again now (the delivery worker's replay). */
export async function replayTransactionNotification(deps: Deps, merchantId: string, transactionId: string, notifyId: string): Promise<ActionOutcome> {
  const { payment } = await merchantTransaction(deps, merchantId, transactionId);
  const event = await merchantEvent(deps.database.db, merchantId, notifyId);
  if (!event || event.paymentId !== payment.id) throw new PortalRefusal('There is no such notification.', { status: 404 });
  const result = await replayNotification(deps, notifyId);
  if ('refused' in result) {
    throw new PortalRefusal(result.refused === 'no_target' ? 'This notification has no notify_url: there is nowhere to send it.' : result.refused === 'in_flight' ? 'This notification is being sent right now; look again in a minute.' : 'There is no such notification.', {
      status: result.refused === 'not_found' ? 404 : 409,
    });
  }
  return { status: result.outcome === 'delivered' ? 'succeeded' : 'failed', message: result.outcome === 'delivered' ? '' : `the receiver did not acknowledge it${result.httpStatus ? ` (HTTP ${result.httpStatus})` : ''}` };
}
