import { describe, expect, it } from 'vitest';
import { CODES } from './errors.ts';
import { batchStatus, holdsExpiredBy, refusalFor, statusAfterRefund, type LifecycleOperation } from './lifecycle.ts';
import { canMove, PAYMENT_STATUSES, type PaymentStatus } from './payment.ts';

const OPERATIONS: readonly LifecycleOperation[] = ['capture', 'cancel', 'review', 'refund'];
/** Where each operation may take a payment when it succeeds. */
const TARGETS: Record<LifecycleOperation, readonly PaymentStatus[]> = {
  capture: ['captured'],
  cancel: ['cancelled'],
  review: ['captured', 'authorised', 'cancelled'],
  refund: ['partially_refunded', 'refunded'],
};

describe('refusalFor', () => {
  it.each(OPERATIONS.flatMap((op) => PAYMENT_STATUSES.map((status) => [op, status] as const)))('%s from %s', (op, status) => {
    const refusal = refusalFor(op, status);
    if (refusal === null) {
      // Every state an operation starts from has a move to each of its outcomes.
      for (const target of TARGETS[op]) expect(canMove(status, target)).toBe(true);
    } else {
      expect(CODES[refusal.code].code).toMatch(/^5\d{3}$/);
      expect(refusal.detail).not.toBe('');
    }
  });

  it('lets each operation start only where the issue says', () => {
    const starts = Object.fromEntries(OPERATIONS.map((op) => [op, PAYMENT_STATUSES.filter((s) => refusalFor(op, s) === null)]));
    expect(starts).toEqual({
      capture: ['authorised'],
      cancel: ['pending_review', 'authorised'],
      review: ['pending_review'],
      refund: ['captured', 'partially_refunded'],
    });
  });

  it('tells a captured payment to refund and an uncaptured one to cancel', () => {
    expect(refusalFor('cancel', 'captured')?.code).toBe('captured_refund_instead');
    expect(refusalFor('cancel', 'partially_refunded')?.code).toBe('captured_refund_instead');
    expect(refusalFor('refund', 'authorised')?.code).toBe('not_captured');
    expect(refusalFor('refund', 'refunded')?.code).toBe('refund_exceeds_captured');
    expect(refusalFor('capture', 'refunded')?.code).toBe('already_captured');
    expect(refusalFor('review', 'authorised')?.code).toBe('not_held_for_review');
  });
});

describe('statusAfterRefund and batchStatus', () => {
  it('is refunded only when everything captured is refunded', () => {
    expect(statusAfterRefund(1000, 1)).toBe('partially_refunded');
    expect(statusAfterRefund(1000, 999)).toBe('partially_refunded');
    expect(statusAfterRefund(1000, 1000)).toBe('refunded');
  });

  it('maps outcomes to 1, 2, 0', () => {
    expect([batchStatus('succeeded'), batchStatus('pending'), batchStatus('failed')]).toEqual(['1', '2', '0']);
  });
});

describe('holdsExpiredBy', () => {
  it('is the expiry days before now', () => {
    const now = new Date('2026-11-24T12:00:00Z');
    expect(holdsExpiredBy(now, 7)).toEqual(new Date('2026-11-17T12:00:00Z'));
    expect(holdsExpiredBy(now, 0)).toEqual(now);
  });
});
