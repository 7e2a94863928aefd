// The forms of a transaction's page: refund (re-authenticate above the threshold), cancel,
// capture, review, replay a notification. Each reads its fields, calls the use case the merchant
// API calls (src/app/portal/payment-actions.ts) and sends the member back to the transaction's
// page with the outcome; a refusal shows the API's code and message. The forms that move money
// carry the page's one-time key (form-keys.ts), read first: the same form sent twice answers what
// its first sending did. The refund's reason is free text, masked for card numbers as the API's is.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../../app/context.ts';
import {
  cancelTransaction,
  captureTransaction,
  refundNeedsReauth,
  refundTransaction,
  replayTransactionNotification,
  reviewTransaction,
  type ActionOutcome,
  type FormSending,
} from '../../../app/portal/payment-actions.ts';
import { PortalRefusal } from '../../../app/portal/refusal.ts';
import { maskCardNumbers } from '../../../domain/card-in-text.ts';
import { merchantTransaction } from '../../../app/portal/transactions.ts';
import { readFormKey } from '../form-keys.ts';
import { amountField, choiceField, textField } from '../forms.ts';
import { formOf, portalAction, type ActionResult, type PortalContext } from '../guard.ts';
import { transactionPath } from './transaction.ts';

type Params = { Params: { id: string } };

function done(id: string, what: string, outcome: ActionOutcome): ActionResult {
  return { redirect: `${transactionPath(id)}?done=${what}&outcome=${outcome.status}`, target: id };
}

/** The member sending the form, and the form's one-time key (refused when missing or malformed). */
function sendingOf(context: PortalContext, request: FastifyRequest): FormSending {
  return { merchantId: context.member.merchantId, userId: context.member.userId, formKey: readFormKey(formOf(request)) };
}

/** The refund's amount in the transaction's currency; the transaction is the member's merchant's or not found. */
async function refundAmountOf(deps: Deps, merchantId: string, request: FastifyRequest<Params>): Promise<number> {
  const { payment } = await merchantTransaction(deps, merchantId, request.params.id);
  const amount = amountField(formOf(request), 'refund_amount', payment.currency);
  if (amount === undefined) throw new PortalRefusal('refund_amount is missing', { field: 'refund_amount' });
  return amount;
}

export function transactionActionRoutes(app: FastifyInstance, deps: Deps): void {
  portalAction<Params>(app, deps, {
    path: '/transactions/:id/refund',
    permission: 'transactions.refund',
    async reauth(request, context) {
      try {
        readFormKey(formOf(request));
        const { payment } = await merchantTransaction(deps, context.member.merchantId, request.params.id);
        return refundNeedsReauth(await refundAmountOf(deps, context.member.merchantId, request), payment.currency);
      } catch {
        return false; // an unknown transaction, a bad amount or form key is refused by the action itself, without asking for the password first
      }
    },
    async handle(context, request) {
      const sending = sendingOf(context, request);
      const refundAmount = await refundAmountOf(deps, context.member.merchantId, request);
      // Free text, as the API's refund_reason: a card number typed into it is masked before it is stored, sent or shown.
      const typed = textField(formOf(request), 'refund_reason', { max: 256, hint: 'at most 256 characters' });
      const reason = typed === undefined ? undefined : maskCardNumbers(typed);
      const outcome = await refundTransaction(deps, sending, { transactionId: request.params.id, refundAmount, ...(reason ? { reason } : {}) });
      return done(request.params.id, 'refund', outcome);
    },
  });

  portalAction<Params>(app, deps, {
    path: '/transactions/:id/cancel',
    permission: 'transactions.cancel',
    async handle(context, request) {
      const sending = sendingOf(context, request);
      return done(request.params.id, 'cancel', await cancelTransaction(deps, sending, request.params.id));
    },
  });

  portalAction<Params>(app, deps, {
    path: '/transactions/:id/capture',
    permission: 'transactions.capture',
    async handle(context, request) {
      const sending = sendingOf(context, request);
      const { payment } = await merchantTransaction(deps, context.member.merchantId, request.params.id);
      const amount = amountField(formOf(request), 'amount', payment.currency);
      return done(request.params.id, 'capture', await captureTransaction(deps, sending, request.params.id, amount));
    },
  });

  portalAction<Params>(app, deps, {
    path: '/transactions/:id/review',
    permission: 'transactions.review',
    async handle(context, request) {
      const sending = sendingOf(context, request);
      const decision = choiceField(formOf(request), 'decision', ['approve', 'reject'] as const);
      if (!decision) throw new PortalRefusal('decision is missing: approve or reject', { field: 'decision' });
      return done(request.params.id, decision, await reviewTransaction(deps, sending, request.params.id, decision === 'approve'));
    },
  });

  portalAction<{ Params: { id: string; notifyId: string } }>(app, deps, {
    path: '/transactions/:id/notifications/:notifyId/replay',
    permission: 'notifications.replay',
    async handle(context, request) {
      const outcome = await replayTransactionNotification(deps, context.member.merchantId, request.params.id, request.params.notifyId);
      return { redirect: `${transactionPath(request.params.id)}?done=replay&outcome=${outcome.status}`, target: request.params.notifyId };
    },
  });
}
