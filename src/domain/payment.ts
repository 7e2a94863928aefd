// The payment state machine. docs/states.md draws it; src/domain/state-machine.test.ts walks it.
import { defineStateMachine, type Transition } from './state-machine.ts';

export const PAYMENT_STATUSES = [
  'processing', // claimed; the processor's answer is not (yet) known: pending, never success
  'requires_authentication', // 3-D Secure challenge outstanding
  'requires_redirect', // APM: the shopper must finish at issuer_url
  'pending_review', // authorised at the processor, held by risk until /v1/review decides
  'authorised', // funds held, waiting for /v1/capture (manual capture accounts)
  'captured',
  'partially_refunded',
  'refunded',
  'cancelled', // voided before capture, or rejected on review
  'failed', // declined, rejected by risk, authentication failed, abandoned
] as const;

export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

const NEXT: Record<PaymentStatus, readonly PaymentStatus[]> = {
  processing: ['requires_authentication', 'requires_redirect', 'pending_review', 'authorised', 'captured', 'failed'],
  // → requires_redirect: a hosted page's challenge failed, and the page waits for another card.
  requires_authentication: ['processing', 'requires_redirect', 'pending_review', 'authorised', 'captured', 'failed'],
  // → pending_review: an APM payment risk holds, approved on the issuer page.
  requires_redirect: ['processing', 'pending_review', 'authorised', 'captured', 'failed'],
  pending_review: ['authorised', 'captured', 'cancelled'],
  authorised: ['captured', 'cancelled'],
  captured: ['partially_refunded', 'refunded'],
  partially_refunded: ['partially_refunded', 'refunded'],
  refunded: [],
  cancelled: [],
  failed: [],
};

/** The payment's machine: every status write of a payment is a Transition made by it. */
export const PAYMENT_MACHINE = defineStateMachine('payment', {
  // A direct, APM or stored-credential payment is claimed processing; a hosted page's waits for the card.
  initial: ['processing', 'requires_redirect'],
  next: NEXT,
});

export function canMove(from: PaymentStatus, to: PaymentStatus): boolean {
  return PAYMENT_MACHINE.canMove(from, to);
}

export function isFinal(status: PaymentStatus): boolean {
  return PAYMENT_MACHINE.isFinal(status);
}

/** The states in which the processor holds the payment's authorisation, neither captured nor voided yet. */
export const HOLD_STATES: readonly PaymentStatus[] = ['pending_review', 'authorised'];

/**
 * Whether `move` is the one that begins the payment's hold at the processor: the authorisation,
 * recorded as the payment enters a hold state from outside them (approved by the processor, after a
 * 3-D Secure challenge, on an APM's issuer page, or at once). Its held_since is stamped then, and
 * the connector's authorisation expiry counts from it. An approval from review
 * (pending_review → authorised) asks the processor nothing: the hold is the same one, and keeps its time.
 */
export function beginsHold(move: Transition<PaymentStatus>): boolean {
  return HOLD_STATES.includes(move.to) && !HOLD_STATES.includes(move.from);
}

/** A 3-D Secure challenge not finished within this is failed as abandoned. */
export const CHALLENGE_TTL_MS = 30 * 60_000;

/** The moment of a write on both clocks, and how long after it a processing payment is asked about. */
export interface CheckTimes {
  /** Business time. */
  readonly now: Date;
  /** Wall time. */
  readonly wallNow: Date;
  /**
   * Wall time from a claim (or a pending answer) to the first "ask the processor again": longer
   * than the core's deadline for one connector call plus the moment between the claim's commit and
   * the call's start (config.processor.unknownAfterMs, from ACQUIRO_CONNECTOR_TIMEOUT).
   */
  readonly unknownAfterMs: number;
}

/**
 * When a sweeper should next look at a payment that has just reached `status` (next_check_at): a
 * processing one is asked about once its live call has surely ended (wall time: a technical timer
 * the test clock must not hurry), a challenge or a shopper's page is given up at its deadline
 * (business time), any other state waits for no one.
 */
export function nextCheckFor(status: PaymentStatus, at: CheckTimes, expiresAt: Date | null): Date | null {
  const now = at.now;
  switch (status) {
    case 'processing':
      return new Date(at.wallNow.getTime() + at.unknownAfterMs);
    case 'requires_authentication':
      return new Date(now.getTime() + CHALLENGE_TTL_MS);
    case 'requires_redirect':
      return expiresAt;
    default:
      return null;
  }
}

/** Whether the payment still waits for something outside the merchant's control. */
export function isPending(status: PaymentStatus): boolean {
  return status === 'processing' || status === 'requires_authentication' || status === 'requires_redirect';
}

/** `order_status` of the direct payment answer. */
export function orderStatus(status: PaymentStatus): '0' | '1' | '2' | '3' {
  switch (status) {
    case 'authorised':
    case 'captured':
    case 'partially_refunded':
    case 'refunded':
      return '1';
    case 'processing':
    case 'requires_authentication':
    case 'requires_redirect':
      return '2';
    case 'pending_review':
      return '3';
    case 'cancelled':
    case 'failed':
      return '0';
  }
}

/** The four-digit `payment_status` of query answers. */
export const PAYMENT_STATUS_CODES: Record<PaymentStatus, string> = {
  processing: '1000',
  requires_authentication: '1001',
  requires_redirect: '1002',
  pending_review: '1003',
  authorised: '2000',
  captured: '3000',
  partially_refunded: '3001',
  refunded: '3002',
  cancelled: '4000',
  failed: '5000',
};

/**
 * The processor's idempotency key of a payment's `attempt`th card attempt (counted from 1): the
 * transaction id for the first, `<transaction id>-<n>` after it. Each attempt of a hosted page is
 * a charge of its own, so a processor honouring the key answers each on its own card.
 */
export function attemptKey(paymentId: string, attempt: number): string {
  return attempt <= 1 ? paymentId : `${paymentId}-${attempt}`;
}

/** The key the payment's current attempt was sent with (processor_key; the transaction id when none). */
export function processorKeyOf(payment: { readonly id: string; readonly processorKey: string | null }): string {
  return payment.processorKey ?? payment.id;
}
