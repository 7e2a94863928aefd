// Every periodic task a worker runs. Areas add theirs here.
import { deliverDueNotifications, notificationsInFlight } from '../app/notifications/deliver.ts';
import { expireAbandonedPayments } from '../app/apm/expire.ts';
import { settleBalancesTask } from '../app/balances/settle.ts';
import { expireAuthorisations } from '../app/capture/expire-authorisations.ts';
import { resolveUnknownPayments } from '../app/payments/resolve-unknown.ts';
import { resolvePendingOperations } from '../app/capture/operation.ts';
import { settlePendingRefunds } from '../app/refund/record-refund.ts';
import { billSubscriptions } from '../app/subscriptions/bill.ts';
import { endExpiredSessions } from '../app/portal/sessions.ts';
import { drivePayouts } from '../app/payouts/rail.ts';
import { pollDisputes } from '../app/disputes/poll.ts';
import { KEY_DAYS, purgeKeysBefore } from '../db/repositories/idempotency.ts';
import type { PeriodicTask } from './runner.ts';

export const PERIODIC_TASKS: readonly PeriodicTask[] = [
  { name: 'resolve-unknown-payments', intervalMs: 10_000, run: (deps) => resolveUnknownPayments(deps) },
  // Polled every second: a new event reaches its receiver within about a second of its commit. A
  // round leaves slow attempts running in their slots (docs/notifications.md, Workers); stopping waits for them.
  {
    name: 'deliver-notifications',
    intervalMs: 1_000,
    run: (deps) => deliverDueNotifications(deps),
    drain: (deps) => notificationsInFlight(deps),
  },
  { name: 'resolve-pending-operations', intervalMs: 10_000, run: (deps) => resolvePendingOperations(deps) },
  { name: 'settle-pending-refunds', intervalMs: 5_000, run: (deps) => settlePendingRefunds(deps) },
  {
    // Wall time: a key is kept KEY_DAYS real days, whatever `acquiro clock advance` does to business time.
    name: 'purge-idempotency-keys',
    intervalMs: 3_600_000,
    run: (deps) => purgeKeysBefore(deps.database.db, new Date(deps.wallClock.now().getTime() - KEY_DAYS * 86_400_000)),
  },
  { name: 'expire-abandoned-payments', intervalMs: 30_000, run: (deps) => expireAbandonedPayments(deps) },
  // Pending money becomes available on each connector's schedule (docs/ledger.md, Settlement), a
  // minute's worth at a time: the task goes again at once only for a full batch.
  { name: 'settle-balances', intervalMs: 60_000, run: (deps) => settleBalancesTask(deps) },
  // Holds at the processor (uncaptured authorisations, payments still held for review) are voided
  // when their connector's authorisation expiry passes.
  { name: 'expire-authorisations', intervalMs: 60_000, run: (deps) => expireAuthorisations(deps) },
  // Subscriptions' charges as they fall due, and their retries (docs/subscriptions.md): within
  // seconds of the due time, or of a clock advance.
  { name: 'bill-subscriptions', intervalMs: 2_000, run: (deps) => billSubscriptions(deps) },
  // Portal sessions past their idle or absolute limit (refused on use anyway): their rows go.
  { name: 'end-expired-portal-sessions', intervalMs: 300_000, run: (deps) => endExpiredSessions(deps) },
  // Payouts: scheduled ones released on their date, processing ones sent and asked (docs/payouts.md).
  { name: 'drive-payouts', intervalMs: 5_000, run: (deps) => drivePayouts(deps) },
  // Chargebacks: the disputes each connector's acquirer reported since the last poll (docs/chargebacks.md).
  { name: 'poll-disputes', intervalMs: 60_000, run: (deps) => pollDisputes(deps) },
];
