// The /v1/cancelsubscription answer (docs/api/cancelsubscription.md): the request's fields, then
// cancel_status (1 cancelled, 0 not), error_message (`<code>:<message>` when 0) and the
// subscription's status as it now stands (empty when no subscription of the account has this
// recurring_id and contract_name).
import type { CancelOutcome } from '../../app/subscriptions/cancel.ts';
import { codeText, type AppError } from '../../domain/errors.ts';
import type { CancelSubscriptionBody } from '../requests/cancel-subscription.ts';
import { textField } from '../operation.ts';

export function cancelSubscriptionAnswer(body: CancelSubscriptionBody, outcome: CancelOutcome): Record<string, unknown> {
  return {
    merchant_id: body.merchant_id,
    account_id: body.account_id,
    recurring_id: body.recurring_id,
    contract_name: body.contract_name,
    cancel_status: outcome.status === 'cancelled' ? '1' : '0',
    error_message: outcome.status === 'cancelled' ? '' : codeText(outcome.code),
    subscription_status: outcome.subscription?.status ?? '',
  };
}

/** A refused request (400, 401, 404, ...): the echo of what could be read, cancel_status 0 and the code. */
export function cancelSubscriptionRefusal(body: Record<string, unknown>, error: AppError): Record<string, unknown> {
  return {
    merchant_id: textField(body, 'merchant_id'),
    account_id: textField(body, 'account_id'),
    recurring_id: textField(body, 'recurring_id'),
    contract_name: textField(body, 'contract_name'),
    cancel_status: '0',
    error_message: error.info,
    subscription_status: '',
  };
}
