// A merchant's staff in the portal: their roles, the life of a member (invited until a password
// is set, active, disabled for good), and the stages of a portal session.
import { defineStateMachine } from './state-machine.ts';

export const ROLES = ['owner', 'admin', 'operator', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Roles whose members must enrol a second factor (TOTP) before their first session. */
export const SECOND_FACTOR_REQUIRED: readonly Role[] = ['owner', 'admin'];

export const MEMBER_MACHINE = defineStateMachine('member', {
  initial: ['invited', 'active'],
  next: {
    // A one-time link sets the first password (or `users create --password-stdin` does at once).
    invited: ['active', 'disabled'],
    // A reset, a role change or a new TOTP keeps the member active.
    active: ['active', 'disabled'],
    // Disabled for good: a new member is created instead, so the audit trail stays readable.
    disabled: [],
  },
});
export type MemberStatus = (typeof MEMBER_MACHINE.states)[number];

/**
 * A session signs in in stages: the password checked, then the second factor (second_factor) or,
 * for an owner or admin without one, its enrolment (enrol); then active.
 */
export const SESSION_MACHINE = defineStateMachine('portal session', {
  initial: ['second_factor', 'enrol', 'active'],
  next: {
    second_factor: ['active'],
    enrol: ['active'],
    active: ['active'],
  },
});
export type SessionStatus = (typeof SESSION_MACHINE.states)[number];
