// How a refund reads in its notification, written in the unit of work from the typed rows because
// the outbox stores it: refund_status 1 done, 2 pending at the processor, 0 refused;
// refund_message `V<code>:<message>` (`V0000:OK` on success). The answers' refund fields use the
// same message (src/http/encoders/refund.ts).
import { codeText } from '../../domain/errors.ts';
import { batchStatus } from '../../domain/lifecycle.ts';
import { formatAmount } from '../../domain/money.ts';
import type { PaymentRow, RefundRow } from '../../db/schema.ts';
import type { SubscriptionProgress } from '../../domain/subscriptions/subscription.ts';
import { paymentEventPayload } from '../payments/events.ts';

export const REFUND_OK = 'V0000:OK';

export function refundMessage(refund: RefundRow): string {
  switch (refund.status) {
    case 'succeeded':
      return REFUND_OK;
    case 'pending':
      return `V${codeText('pending')}`;
    case 'failed':
      return `V${refund.resultCode ?? ''}:${refund.resultMessage ?? ''}`;
  }
}

export type RefundEventType = 'refund.succeeded' | 'refund.failed';

/** The body of a refund notification (docs/notifications.md): the payment's fields and the refund's. */
export function refundEventPayload(type: RefundEventType, refund: RefundRow, payment: PaymentRow, subscription: SubscriptionProgress | null): Record<string, unknown> {
  return {
    ...paymentEventPayload(type, payment, subscription),
    refund_reference_id: refund.id,
    refund_amount: formatAmount(refund.amount, refund.currency),
    refund_status: batchStatus(refund.status),
    refund_message: refundMessage(refund),
  };
}
