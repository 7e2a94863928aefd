// Which payment states each batch operation may start from, and the coded refusal for every other
// state. The moves themselves are in payment.ts; docs/states.md tabulates both.
import type { CodeName } from './errors.ts';
import type { PaymentStatus } from './payment.ts';
import { defineStateMachine } from './state-machine.ts';

export type LifecycleOperation = 'capture' | 'cancel' | 'review' | 'refund';

export interface Refusal {
  readonly code: CodeName;
  readonly detail: string;
}

const STARTS: Record<LifecycleOperation, readonly PaymentStatus[]> = {
  capture: ['authorised'],
  cancel: ['authorised', 'pending_review'],
  review: ['pending_review'],
  refund: ['captured', 'partially_refunded'],
};

const CAPTURED: readonly PaymentStatus[] = ['captured', 'partially_refunded', 'refunded'];
const UNFINISHED: readonly PaymentStatus[] = ['processing', 'requires_authentication', 'requires_redirect'];

/** Why `operation` cannot start on a payment in `status`; null when it can. */
/** The states `operation` may start from. */
export function startsFrom(operation: LifecycleOperation): readonly PaymentStatus[] {
  return STARTS[operation];
}

export function refusalFor(operation: LifecycleOperation, status: PaymentStatus): Refusal | null {
  if (STARTS[operation].includes(status)) return null;
  if (status === 'cancelled') return { code: 'already_cancelled', detail: 'the transaction is already cancelled' };
  if (UNFINISHED.includes(status)) {
    return { code: 'invalid_transaction_state', detail: 'the transaction is still pending (processor, 3-D Secure or APM): not yet authorised' };
  }
  if (status === 'failed') return { code: 'invalid_transaction_state', detail: 'the transaction failed: nothing was authorised' };
  switch (operation) {
    case 'capture':
      if (status === 'pending_review') {
        return { code: 'invalid_transaction_state', detail: 'the transaction is held for review: approve it with /v1/review first' };
      }
      return { code: 'already_captured', detail: 'the transaction is already captured' };
    case 'cancel':
      return { code: 'captured_refund_instead', detail: 'the transaction is captured: refund it instead' };
    case 'review':
      return { code: 'not_held_for_review', detail: `the transaction is not held for review (${CAPTURED.includes(status) ? 'captured' : status})` };
    case 'refund':
      if (status === 'refunded') return { code: 'refund_exceeds_captured', detail: 'the transaction is already fully refunded' };
      return { code: 'not_captured', detail: 'the transaction is not captured: cancel it instead' };
  }
}

const DAY_MS = 86_400_000;

/**
 * The line holds are judged by (authorised payments and payments held for review, by their
 * held_since: when the processor authorised them, not when they were created): one taken at or
 * before it has expired at `now` on a connector whose authorisation expiry is `expiryDays`, and the
 * processor no longer holds it. The expire-authorisations round leases by this line, and a capture
 * or a review approval judges by it too.
 */
export function holdsExpiredBy(now: Date, expiryDays: number): Date {
  return new Date(now.getTime() - expiryDays * DAY_MS);
}

/** The state a payment reaches once `refunded` of its `captured` amount has been refunded. */
export function statusAfterRefund(captured: number, refunded: number): PaymentStatus {
  return refunded >= captured ? 'refunded' : 'partially_refunded';
}

export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** A refund: claimed pending, then what the processor said. */
export const REFUND_MACHINE = defineStateMachine('refund', {
  initial: ['pending'],
  next: { pending: ['succeeded', 'failed'], succeeded: [], failed: [] } satisfies Record<RefundStatus, readonly RefundStatus[]>,
});

/** A capture or void of an authorisation (payment_operations): the same three states. */
export const OPERATION_MACHINE = defineStateMachine('payment operation', {
  initial: ['pending'],
  next: { pending: ['succeeded', 'failed'], succeeded: [], failed: [] } satisfies Record<RefundStatus, readonly RefundStatus[]>,
});

/**
 * The per-order status of batch answers and refund search: `1` done, `2` accepted but the
 * processor has not finished (it settles later, or its answer was lost), `0` refused.
 */
export function batchStatus(outcome: 'succeeded' | 'pending' | 'failed'): '1' | '2' | '0' {
  return outcome === 'succeeded' ? '1' : outcome === 'pending' ? '2' : '0';
}
