// The rail task (`drive-payouts`): moves payouts on through the payout port of their connector,
// never inside a transaction. Each due payout is leased (QUEUES.duePayouts), then:
//   not yet with the rail → claimed (a unit of work, while the merchant and account are enabled;
//     otherwise held as it is), SCHEDULED on its payment_date → PROCESSING, then sent as below;
//   PROCESSING → sent (createPayout, the payout's id as the rail's idempotency key) until the rail
//     gives a reference, then asked (payoutStatus); its answer recorded as one unit of work:
//     completed → COMPLETED (the reservation paid out, our fee booked), failed → FAILED (released);
//   COMPLETED → asked again while the return window lasts: returned → RETURNED (credited back).
// An answer that says nothing (timeout, network, unreadable) records nothing: the lease runs out
// and the payout is asked again. docs/payouts.md, Statuses.
import { withDeadline, type PayoutOutcome } from '../../connectors/port.ts';
import { utcDay } from '../../domain/payouts/dates.ts';
import { awaitsRail, FAILURE_TYPES, isFailureType, PAYOUT_MACHINE, type PayoutStatus } from '../../domain/payouts/status.ts';
import type { Transition } from '../../domain/state-machine.ts';
import { leaseDuePayouts, lockPayout, movePayout, routePayoutToAccountConnector, type PayoutChanges } from '../../db/repositories/payouts.ts';
import type { PayoutRow } from '../../db/schema.ts';
import { runRawUnitOfWork, type Decision } from '../../db/unit-of-work.ts';
import { accountEnabled } from '../accounts/enabled.ts';
import { credentialsToSend } from '../merchants/connector.ts';
import type { Deps } from '../context.ts';
import { fundsJournal, moveBalance, type FundsKind, type FundsMovement } from '../balances/funds.ts';
import { payoutEventPayload, railBeneficiary, type PayoutEventType } from './view.ts';

/** How long a leased payout is held before another worker may ask about it. */
export const PAYOUT_LEASE_MS = 30_000;
/** The rail is asked again this soon about a payout it is still processing. */
export const POLL_MS = 5_000;
/** A completed payout is watched for a return this long after its payment date (or its completion, when later), asked hourly (first after 30 s). */
export const RETURN_WINDOW_DAYS = 5;
const FIRST_RETURN_CHECK_MS = 30_000;
const RETURN_POLL_MS = 3_600_000;
/** A rail call's deadline: the connector timeout (ACQUIRO_CONNECTOR_TIMEOUT), at most 10 s, well inside the lease. */
const MAX_CALL_TIMEOUT_MS = 10_000;

export type RailAnswer = PayoutOutcome | { readonly status: 'unknown' };

const railCallMs = (deps: Pick<Deps, 'config'>) => Math.min(MAX_CALL_TIMEOUT_MS, deps.config.processor.callTimeoutMs);

/**
 * One round: the due payouts leased, then each sent to (or asked of) its rail in turn. The round
 * stops before a call that could outlast the lease: past it another worker may lease the same
 * payout and the rail would hear it twice (harmless under the payout's id, but traffic the rail
 * may count). What is left keeps its lease and is taken up when it runs out.
 */
export async function drivePayouts(deps: Deps, limit = 50): Promise<number> {
  const leaseEnds = deps.wallClock.now().getTime() + PAYOUT_LEASE_MS;
  const leased = await leaseDuePayouts(deps.database.db, deps, limit, PAYOUT_LEASE_MS);
  let moved = 0;
  for (const due of leased) {
    if (deps.wallClock.now().getTime() + railCallMs(deps) > leaseEnds) break;
    let payout = awaitsRail(due) ? await claimForRail(deps, due) : due;
    if (!payout || (payout.status !== 'PROCESSING' && payout.status !== 'COMPLETED')) continue;
    payout = await routedToARail(deps, payout);
    const after = await recordRail(deps, payout, await askRail(deps, payout));
    if (after.status !== payout.status) moved += 1;
  }
  return moved;
}

/**
 * The claim of a payout not yet with the rail, before it is sent: under the payout's lock, and
 * only while its merchant and account are enabled, their rows locked for share (accountEnabled),
 * as a subscription's charge is marked sent. A disable committed first holds the payout: null, it
 * stays as it is with its reservation (the lease leaves it out until the enable). A disable
 * committed later waited for this claim: the payout is already on its way. A SCHEDULED payout
 * whose date has come moves to PROCESSING here, keeping the lease: it is sent next.
 */
async function claimForRail(deps: Deps, payout: PayoutRow): Promise<PayoutRow | null> {
  const at = deps.clock.now();
  type Locked = { readonly locked: PayoutRow | null; readonly enabled: boolean };
  const claimed = await runRawUnitOfWork<Locked, Transition<PayoutStatus>, PayoutRow | 'held'>(deps.database, {
    async lock(query) {
      const locked = await lockPayout(query, payout.id);
      return { locked, enabled: locked !== null && (await accountEnabled(query, locked.accountId)) };
    },
    check({ locked, enabled }) {
      if (!locked || !awaitsRail(locked)) return { answer: locked ?? payout };
      if (!enabled) return { answer: 'held' };
      return locked.status === 'SCHEDULED' ? { change: PAYOUT_MACHINE.move('SCHEDULED', 'PROCESSING') } : { answer: locked };
    },
    change: (query, move) => movePayout(query, payout.id, move, { nextCheckAt: new Date(at.getTime() + PAYOUT_LEASE_MS), at, keepLease: true }),
  });
  if (claimed !== 'held') return claimed;
  // Only a disable between the lease and this claim gets here: the lease leaves held payouts out.
  deps.log.info({ payoutId: payout.id, accountId: payout.accountId }, 'payout held: its merchant or account is disabled');
  return null;
}

/**
 * A payout taken on a connector that has no payout rail was never sent anywhere: it follows its
 * account to the connector the operator routes it to (docs/payouts.md), or it would stay
 * PROCESSING, its reservation held, for ever. Only when that connector is registered here and has
 * no rail: one this process does not know may have sent it from another process.
 */
async function routedToARail(deps: Deps, payout: PayoutRow): Promise<PayoutRow> {
  const connector = deps.connectors.get(payout.connector);
  if (!connector || connector.payouts || payout.railReference) return payout;
  return (await routePayoutToAccountConnector(deps.database.query, payout)) ?? payout;
}

/** What the rail says about a payout: it is sent (again, under the same key) until the rail gives a reference. */
export async function askRail(deps: Deps, payout: PayoutRow): Promise<RailAnswer> {
  const rail = deps.connectors.get(payout.connector)?.payouts;
  if (!rail) {
    deps.log.error({ payoutId: payout.id, connector: payout.connector }, 'no payout rail for this connector in this mode');
    return { status: 'unknown' };
  }
  const request = payout.request as { reference?: string };
  // The account's credentials only while its connector is still the payout's (credentialsFor).
  const credentials = await credentialsToSend(deps, payout.accountId, payout.connector);
  if (!credentials) return { status: 'unknown' };
  const result = await withDeadline(
    (signal) =>
      payout.railReference
        ? rail.payoutStatus({ payoutId: payout.id, reference: payout.railReference, signal, credentials })
        : rail.createPayout({
            payoutId: payout.id,
            amount: { minor: payout.amountBeneficiaryReceives, currency: payout.paymentCurrency },
            beneficiary: railBeneficiary(payout),
            reference: request.reference ?? payout.shortReferenceId,
            signal,
            credentials,
          }),
    railCallMs(deps),
  );
  if (result.ok) return result.value;
  deps.log.warn({ payoutId: payout.id, error: result.error.kind }, 'payout outcome unknown');
  return { status: 'unknown' };
}

interface RailChange {
  readonly move: Transition<PayoutStatus>;
  readonly changes: PayoutChanges;
  readonly funds?: { readonly kind: FundsKind; readonly movement: FundsMovement };
  readonly event?: PayoutEventType;
}

/** Records the rail's answer about a payout as one unit of work under the payout's lock. */
export async function recordRail(deps: Deps, payout: PayoutRow, answer: RailAnswer): Promise<PayoutRow> {
  if (answer.status === 'unknown') return payout;
  const at = deps.clock.now();
  return runRawUnitOfWork<PayoutRow | null, RailChange, PayoutRow>(deps.database, {
    lock: (query) => lockPayout(query, payout.id),
    check: (locked) => (locked ? decide(locked, answer, at) : { answer: payout }),
    async change(query, change) {
      if (change.funds && !(await moveBalance(query, change.funds.kind, change.funds.movement))) {
        throw new Error(`payout ${payout.id}: the reservation is not there to ${change.funds.kind}`);
      }
      return movePayout(query, payout.id, change.move, change.changes);
    },
    journal: (change) => (change.funds ? [fundsJournal(change.funds.kind, change.funds.movement, at)] : []),
    event: (change, row) =>
      change.event ? { accountId: row.accountId, type: change.event, payload: payoutEventPayload(change.event, row), notifyUrl: row.notifyUrl } : undefined,
  });
}

/** The check step: the payout's move for the rail's answer, or the payout as it is. */
function decide(payout: PayoutRow, answer: PayoutOutcome, at: Date): Decision<RailChange, PayoutRow> {
  const reference = 'reference' in answer && answer.reference ? answer.reference : null;
  const movement = (amount: number, fee = 0): FundsMovement => ({ accountId: payout.accountId, currency: payout.sourceCurrency, amount, key: payout.id, fee });
  const later = (ms: number) => new Date(at.getTime() + ms);
  if (payout.status === 'PROCESSING') {
    if (answer.status === 'processing') {
      return { change: { move: PAYOUT_MACHINE.stay('PROCESSING'), changes: { railReference: reference, nextCheckAt: later(POLL_MS), at } } };
    }
    if (answer.status === 'failed') {
      const failureType = isFailureType(answer.failureType) ? answer.failureType : 'REJECTED_BY_BANK';
      return {
        change: {
          move: PAYOUT_MACHINE.move('PROCESSING', 'FAILED'),
          changes: { railReference: reference, failureType, failureReason: answer.failureReason || FAILURE_TYPES[failureType], nextCheckAt: null, at },
          funds: { kind: 'payout_release', movement: movement(payout.amountPayerPays) },
          event: 'payout.failed',
        },
      };
    }
    // Completed (a rail that already reports a return has paid first: the return is recorded next).
    return {
      change: {
        move: PAYOUT_MACHINE.move('PROCESSING', 'COMPLETED'),
        changes: { railReference: reference, nextCheckAt: later(FIRST_RETURN_CHECK_MS), at },
        funds: { kind: 'payout', movement: movement(payout.amountPayerPays, payout.feeAmount) },
        event: 'payout.completed',
      },
    };
  }
  if (payout.status === 'COMPLETED') {
    if (answer.status === 'returned') {
      return {
        change: {
          move: PAYOUT_MACHINE.move('COMPLETED', 'RETURNED'),
          changes: { failureType: 'RETURNED_BY_BANK', failureReason: answer.failureReason || FAILURE_TYPES.RETURNED_BY_BANK, nextCheckAt: null, at },
          // What was sent comes back at the original rate; the fee is kept.
          funds: { kind: 'payout_return', movement: movement(payout.amountPayerPays - payout.feeAmount) },
          event: 'payout.returned',
        },
      };
    }
    // From its payment date, or from its completion (updatedAt: a stay leaves it) when it was paid
    // later than that (held while disabled, or long at the rail): a return is watched for as long.
    const watchEnds = Math.max(utcDay(payout.paymentDate).getTime(), payout.updatedAt.getTime()) + RETURN_WINDOW_DAYS * 86_400_000;
    const next = at.getTime() + RETURN_POLL_MS;
    return { change: { move: PAYOUT_MACHINE.stay('COMPLETED'), changes: { nextCheckAt: next < watchEnds ? new Date(next) : null, at } } };
  }
  return { answer: payout };
}
