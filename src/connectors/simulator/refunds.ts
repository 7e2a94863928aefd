// How the sandbox processor answers refunds. Stateless: a refund_reason with one of these words
// picks the behaviour, and the reference it answers says how the refund ends, so a later
// refundStatus call needs no memory. Any other refund succeeds at once; `sandbox_slow` delays
// the refund on its way to the processor (a window to kill a gateway in), then answers as above.
import type { OperationOutcome, RefundRequest } from '../port.ts';

export const REFUND_TRIGGERS = {
  /** Pending now; succeeded when asked again (the settle-pending-refunds task does). */
  settleLater: 'sandbox_settle_later',
  /** Pending now; failed when asked again (the issuer returned it). */
  failLater: 'sandbox_fail_later',
  /** Refused at once. */
  decline: 'sandbox_decline',
  /** Reaches the processor only after SLOW_REFUND_MS (or ACQUIRO_SANDBOX_CARD_DELAY): a gateway killed meanwhile never sent it. */
  slow: 'sandbox_slow',
} as const;

export const SLOW_REFUND_MS = 10_000;

/** How long the refund takes to reach the sandbox processor; `slowMs` is the sandbox's configured hold. */
export function refundDelayMs(request: RefundRequest, slowMs = SLOW_REFUND_MS): number {
  return (request.reason ?? '').includes(REFUND_TRIGGERS.slow) ? slowMs : 0;
}

const SETTLES = '.settles';
const FAILS = '.fails';

export function simulateRefund(request: RefundRequest, reference: string): OperationOutcome {
  const reason = request.reason ?? '';
  if (reason.includes(REFUND_TRIGGERS.decline)) return { status: 'failed', reason: 'the sandbox processor declined the refund', reference };
  if (reason.includes(REFUND_TRIGGERS.failLater)) return { status: 'pending', reference: reference + FAILS };
  if (reason.includes(REFUND_TRIGGERS.settleLater)) return { status: 'pending', reference: reference + SETTLES };
  return { status: 'succeeded', reference };
}

export function simulateRefundStatus(reference: string): OperationOutcome {
  if (reference.endsWith(FAILS)) return { status: 'failed', reason: 'the issuer returned the refund', reference };
  return { status: 'succeeded', reference };
}
