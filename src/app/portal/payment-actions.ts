// What staff do to a transaction from its page: refund, cancel, capture, decide a review, replay
// a notification. Each builds the typed order the merchant API's use case takes from the
// transaction's own row (found under the member's merchant) and calls that same use case, so the
// rules and the refusals are the API's: no second path to money. A refusal keeps its catalogue
// code and message, as the API would answer it.
//
// A refund, capture, cancel or review decision is sent from a form that carries a one-time key
// (src/web/portal/form-keys.ts); the use case claims under it, as under an API request's
// Idempotency-Key, so the same form sent twice moves the money once and its repeat answers what
// the first sending did.
import { codeText } from '../../domain/errors.ts';
import { exponentOf, formatAmount } from '../../domain/money.ts';
import { merchantEvent } from '../../db/repositories/portal-transactions.ts';
import type { AccountRow, PaymentRow } from '../../db/schema.ts';
import type { OrderRef } from '../batch/orders.ts';
import { cancel } from '../cancel/cancel.ts';
import { capture } from '../capture/capture.ts';
import { outcomeOf } from '../capture/operation.ts';
import type { Deps } from '../context.ts';
import { replayNotification } from '../notifications/deliver.ts';
import { refund } from '../refund/refund.ts';
import { review } from '../review/review.ts';
import { asRefusal } from './api-refusal.ts';
import { refuseDisabledAccount } from './disabled-account.ts';
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

/** Who sends a transaction's form: a member of a merchant, with the one-time key the page wrote into the form. */
export interface FormSending {
  readonly merchantId: string;
  readonly userId: string;
  readonly formKey: string;
}

/** What a form does; a review's two decisions are two, so approving cannot be answered as a rejection. */
type FormAction = 'refund' | 'capture' | 'cancel' | 'approve' | 'reject';

/**
 * The order key (OrderRef.requestKey) a form's sending claims under: the form's key, namespaced by
 * the member, the action and the transaction, so that a key sent by anyone else, to another action
 * or on another transaction is another claim, never an answer to this one. It cannot be an API
 * order key either: those are `<scope>:<position>`, the scope 16 base64url (or, from before
 * migration 0019, 32 hex) characters with no colon, while this one's first colon is its 7th character.
 */
function formRequestKey(sending: FormSending, action: FormAction, transactionId: string): string {
  return `portal:${sending.userId}:${action}:${transactionId}:${sending.formKey}`;
}

/** The member's merchant's transaction, for an action that moves money: refused (4410) while its account is disabled. */
async function transactionToAct(deps: Deps, merchantId: string, transactionId: string): Promise<{ payment: PaymentRow; account: AccountRow }> {
  const found = await merchantTransaction(deps, merchantId, transactionId);
  await refuseDisabledAccount(deps, merchantId, found.account.id);
  return found;
}

function orderOf(payment: PaymentRow, sending: FormSending, action: FormAction): OrderRef {
  return { transactionId: payment.id, orderNo: payment.orderNo, currency: payment.currency, amount: payment.amount, requestKey: formRequestKey(sending, action, payment.id) };
}

/**
 * The form was sent before with another amount (the page kept, its amount changed): its key is
 * spent, and this sending is refused rather than answered with what the first one did.
 */
function keySpent(what: string, minor: number, currency: string): PortalRefusal {
  return new PortalRefusal(`This form was sent before, for ${what} of ${formatAmount(minor, currency)} ${currency}: open the transaction again to send another.`, {
    field: 'form_key',
    status: 409,
  });
}

function outcomeText(status: ActionOutcome['status'], reason?: string): ActionOutcome {
  const message = status === 'succeeded' ? '' : status === 'pending' ? codeText('pending') : codeText('processor_refused', `refused by the processor${reason ? `: ${reason}` : ''}`);
  return { status, message };
}

export async function refundTransaction(deps: Deps, sending: FormSending, order: { transactionId: string; refundAmount: number; reason?: string }): Promise<ActionOutcome> {
  const { payment, account } = await transactionToAct(deps, sending.merchantId, order.transactionId);
  const row = await asRefusal(() => refund(deps, account, { ...orderOf(payment, sending, 'refund'), refundAmount: order.refundAmount, ...(order.reason ? { reason: order.reason } : {}) }));
  // A refund claimed under this form's key before: only its amount can differ from what was asked now.
  if (row.amount !== order.refundAmount) throw keySpent('a refund', row.amount, row.currency);
  if (row.status === 'failed') return { status: 'failed', message: `${row.resultCode ?? ''}:${row.resultMessage ?? ''}` };
  return outcomeText(row.status);
}

export async function cancelTransaction(deps: Deps, sending: FormSending, transactionId: string): Promise<ActionOutcome> {
  const { payment, account } = await transactionToAct(deps, sending.merchantId, transactionId);
  const outcome = outcomeOf(await asRefusal(() => cancel(deps, account, orderOf(payment, sending, 'cancel'))));
  return outcomeText(outcome.status, outcome.reason);
}

/** Captures `amount` (minor units; the whole authorisation when absent). */
export async function captureTransaction(deps: Deps, sending: FormSending, transactionId: string, amount?: number): Promise<ActionOutcome> {
  const { payment, account } = await transactionToAct(deps, sending.merchantId, transactionId);
  const asked = amount ?? payment.amount;
  const result = await asRefusal(() => capture(deps, account, { ...orderOf(payment, sending, 'capture'), amount: asked }));
  // A capture claimed under this form's key before: only its amount can differ from what was asked now.
  if (result.operation.amount !== asked) throw keySpent('a capture', result.operation.amount, result.operation.currency);
  const outcome = outcomeOf(result);
  return outcomeText(outcome.status, outcome.reason);
}

export async function reviewTransaction(deps: Deps, sending: FormSending, transactionId: string, approve: boolean): Promise<ActionOutcome> {
  const { payment, account } = await transactionToAct(deps, sending.merchantId, transactionId);
  const outcome = await asRefusal(() => review(deps, account, { ...orderOf(payment, sending, approve ? 'approve' : 'reject'), approve }));
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
