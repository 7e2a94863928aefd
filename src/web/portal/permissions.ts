// Who may do what in the portal: each action a page or a form declares, and the roles allowed it.
// The guard (guard.ts) checks it on every request; docs/portal.md prints this table, and
// test/api/portal-permissions.test.ts tries every role on every declared action.
import type { Role } from '../../domain/members.ts';

const EVERYONE = ['owner', 'admin', 'operator', 'viewer'] as const satisfies readonly Role[];
const OPERATORS = ['owner', 'admin', 'operator'] as const satisfies readonly Role[];
const ADMINS = ['owner', 'admin'] as const satisfies readonly Role[];
const OWNERS = ['owner'] as const satisfies readonly Role[];

export const PERMISSIONS = {
  'transactions.view': EVERYONE,
  'transactions.export': EVERYONE,
  'transactions.refund': OPERATORS,
  'transactions.cancel': OPERATORS,
  'transactions.capture': OPERATORS,
  'transactions.review': OPERATORS,
  'notifications.replay': OPERATORS,
  'subscriptions.view': EVERYONE,
  'subscriptions.cancel': OPERATORS,
  'payouts.view': EVERYONE,
  'payouts.cancel': ADMINS,
  'balances.view': EVERYONE,
  'reports.view': EVERYONE,
  'reports.export': EVERYONE,
  'settings.view': ADMINS,
  'settings.change': ADMINS,
  'settings.rotate-key': ADMINS,
  'members.view': ADMINS,
  'members.change': ADMINS,
  'audit.view': OWNERS,
  'audit.export': OWNERS,
  /** One's own password, second factor and sessions. */
  'self.manage': EVERYONE,
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export function may(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(role);
}

/** What each action means, for the matrix in docs/portal.md and the members page. */
export const PERMISSION_LABELS: Record<Permission, string> = {
  'transactions.view': 'Search and view transactions',
  'transactions.export': 'Export transactions (CSV)',
  'transactions.refund': 'Refund (above the threshold: re-authenticate)',
  'transactions.cancel': 'Cancel an authorisation',
  'transactions.capture': 'Capture an authorisation',
  'transactions.review': 'Decide a payment held for review',
  'notifications.replay': 'Replay a notification',
  'subscriptions.view': 'View subscriptions and their charges',
  'subscriptions.cancel': 'Cancel a subscription',
  'payouts.view': 'View payouts',
  'payouts.cancel': 'Cancel a scheduled payout',
  'balances.view': 'View balances',
  'reports.view': 'View settlement reports and charts',
  'reports.export': 'Export settlement reports (CSV)',
  'settings.view': 'View settings',
  'settings.change': 'Change query IPs, storefront domains, notification checks',
  'settings.rotate-key': 'Rotate the API key (re-authenticate)',
  'members.view': 'View members',
  'members.change': 'Invite, change role, disable members (re-authenticate)',
  'audit.view': 'View the audit log',
  'audit.export': 'Export the audit log (CSV)',
  'self.manage': 'Own password, second factor, sign out everywhere',
};
