import { describe, expect, it } from 'vitest';
import { OPERATION_MACHINE, REFUND_MACHINE } from './lifecycle.ts';
import { PAYMENT_MACHINE } from './payment.ts';
import { PAYOUT_MACHINE } from './payouts/status.ts';
import { defineStateMachine, ForbiddenTransition, type StateMachine } from './state-machine.ts';

// The table of docs/states.md, written out again: a change to the machine must change both.
const PAYMENT_MOVES = new Set([
  'processing→requires_authentication', 'processing→requires_redirect', 'processing→pending_review', 'processing→authorised',
  'processing→captured', 'processing→failed',
  'requires_authentication→processing', 'requires_authentication→requires_redirect', 'requires_authentication→pending_review', 'requires_authentication→authorised',
  'requires_authentication→captured', 'requires_authentication→failed',
  'requires_redirect→processing', 'requires_redirect→pending_review', 'requires_redirect→authorised', 'requires_redirect→captured', 'requires_redirect→failed',
  'pending_review→authorised', 'pending_review→captured', 'pending_review→cancelled',
  'authorised→captured', 'authorised→cancelled',
  'captured→partially_refunded', 'captured→refunded',
  'partially_refunded→partially_refunded', 'partially_refunded→refunded',
]);
const SETTLING_MOVES = new Set(['pending→succeeded', 'pending→failed']);
// docs/payouts.md, Statuses.
const PAYOUT_MOVES = new Set(['SCHEDULED→PROCESSING', 'SCHEDULED→CANCELLED', 'PROCESSING→COMPLETED', 'PROCESSING→FAILED', 'COMPLETED→RETURNED']);

const pairs = (machine: StateMachine<string>) => machine.states.flatMap((from) => machine.states.map((to) => [from, to] as const));

describe.each([
  [PAYMENT_MACHINE, PAYMENT_MOVES],
  [REFUND_MACHINE, SETTLING_MOVES],
  [OPERATION_MACHINE, SETTLING_MOVES],
  [PAYOUT_MACHINE, PAYOUT_MOVES],
] as const)('the $name machine', (machine: StateMachine<string>, allowed: Set<string>) => {
  it.each(pairs(machine))('%s → %s: allowed exactly when the table says', (from, to) => {
    if (allowed.has(`${from}→${to}`)) {
      expect(machine.move(from, to)).toMatchObject({ machine: machine.name, from, to });
    } else {
      expect(() => machine.move(from, to)).toThrow(ForbiddenTransition);
    }
  });

  it('refuses a state it does not know, from or to', () => {
    expect(() => machine.move('settled', machine.states[0]!)).toThrow(ForbiddenTransition);
    expect(() => machine.stay('settled')).toThrow(ForbiddenTransition);
  });

  it('lets a write keep any known state', () => {
    for (const state of machine.states) expect(machine.stay(state)).toMatchObject({ from: state, to: state });
  });

  it('starts rows only in its initial states', () => {
    for (const state of machine.states) {
      if (machine.initial.includes(state)) expect(machine.enter(state).to).toBe(state);
      else expect(() => machine.enter(state)).toThrow(ForbiddenTransition);
    }
  });

  it('has no move out of a final state', () => {
    for (const [from, to] of pairs(machine)) if (machine.isFinal(from)) expect(machine.canMove(from, to)).toBe(false);
  });
});

describe('defineStateMachine', () => {
  it('names the machine and both states in its refusal', () => {
    const door = defineStateMachine('door', { initial: ['shut'], next: { shut: ['open'], open: ['shut'] } });
    expect(() => door.move('open', 'open')).toThrow('a door cannot move from open to open');
  });
});
