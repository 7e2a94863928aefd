// The subscription cancellation request (/v1/cancelsubscription, docs/api/cancelsubscription.md):
// every field required; parsed into the use case's command.
import Type, { type Static } from 'typebox';
import type { CancelSubscriptionCommand } from '../../app/subscriptions/cancel.ts';
import { compile, Text } from './validation.ts';

export const CancelSubscriptionRequest = Type.Object({
  merchant_id: Text({ max: 32 }),
  account_id: Text({ max: 32 }),
  recurring_id: Text({ max: 64, pattern: '^[\\x21-\\x7e]+$', hint: 'the recurring_id of the payment that began the subscription' }),
  contract_name: Text({ max: 64 }),
  encryption_data: Text({ max: 128 }),
});

export type CancelSubscriptionBody = Static<typeof CancelSubscriptionRequest>;
export const cancelSubscriptionRequest = compile(CancelSubscriptionRequest);

export function cancelSubscriptionCommand(body: CancelSubscriptionBody): CancelSubscriptionCommand {
  return { recurringId: body.recurring_id, contractName: body.contract_name };
}
