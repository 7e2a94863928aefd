// Every periodic task a worker runs. Areas add theirs here.
import { expireAbandonedPayments } from '../app/apm/expire.ts';
import { resolveUnknownPayments } from '../app/payments/resolve-unknown.ts';
import type { PeriodicTask } from './runner.ts';

export const PERIODIC_TASKS: readonly PeriodicTask[] = [
  { name: 'resolve-unknown-payments', intervalMs: 10_000, run: (deps) => resolveUnknownPayments(deps) },
  { name: 'expire-abandoned-payments', intervalMs: 30_000, run: (deps) => expireAbandonedPayments(deps) },
];
