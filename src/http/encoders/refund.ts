// The fields a refund adds to its order in the refund answer and the refund search:
// refund_status 1 done, 2 pending at the processor, 0 refused; refund_message `V<code>:<message>`.
import { refundMessage } from '../../app/refund/refund-answer.ts';
import { batchStatus } from '../../domain/lifecycle.ts';
import type { RefundRow } from '../../db/schema.ts';

/** The fields a refund adds to its order: status, message, references, error_message. */
export function refundFields(refund: RefundRow): Record<string, string> {
  return {
    refund_status: batchStatus(refund.status),
    refund_message: refundMessage(refund),
    refund_reference: refund.connectorReference ?? '',
    refund_reference_id: refund.id,
    error_message: refund.status === 'succeeded' ? '' : refundMessage(refund).slice(1),
  };
}
