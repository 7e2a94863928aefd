// Records one dispute report of an acquirer (docs/chargebacks.md) as one unit of work under the
// payment's lock: `opened` makes the dispute (status open), debits the merchant's balance by its
// amount (a chargeback journal) and notifies chargeback.opened; `reversed` of an open dispute
// moves it to reversed, credits the amount back (chargeback_reversal) and notifies
// chargeback.reversed. A report seen again changes nothing: the dispute is unique per connector
// and the acquirer's id, its machine moves open → reversed once, and each journal's key is the
// dispute's. A report the gateway cannot place (no payment with that reference, another
// currency, more than was captured less what its open disputes already took back, a reversal of a
// dispute never opened) is answered `skipped` for the caller to log: a poll goes on past it.
//
// The command is typed, so whatever hears of a dispute (the poll task, a CLI or a webhook adapter)
// records it the same way: recordDispute in a transaction of its own, recordDisputeIn inside the
// caller's (the poll writes its reports and the connector's cursor together).
import type { DisputeReport } from '../../connectors/port.ts';
import { DISPUTE_MACHINE, type DisputeStatus } from '../../domain/disputes.ts';
import { newId } from '../../domain/ids.ts';
import { chargebackEntries, chargebackReversalEntries } from '../../domain/ledger.ts';
import { formatAmount } from '../../domain/money.ts';
import type { Transition } from '../../domain/state-machine.ts';
import type { Tx } from '../../db/client.ts';
import { findDispute, insertDispute, lockPaymentByReference, openDisputedAmount, transitionDispute } from '../../db/repositories/disputes.ts';
import type { Journal } from '../../db/repositories/ledger.ts';
import type { DisputeRow, PaymentRow, SubscriptionRow } from '../../db/schema.ts';
import { runUnitOfWork, runUnitOfWorkIn, type Decision, type UnitOfWork } from '../../db/unit-of-work.ts';
import type { Deps } from '../context.ts';
import { paymentEventPayload } from '../payments/events.ts';
import { subscriptionOfPayment } from '../subscriptions/payment-fields.ts';

export interface DisputeCommand {
  /** The connector that reported it (the payment's connector). */
  readonly connector: string;
  readonly report: DisputeReport;
}

export type SkipReason = 'unknown_payment' | 'other_currency' | 'beyond_capture' | 'never_opened';

export type DisputeRecorded =
  | { readonly outcome: 'opened' | 'reversed'; readonly dispute: DisputeRow }
  /** Recorded already: nothing new. */
  | { readonly outcome: 'unchanged'; readonly dispute: DisputeRow }
  | { readonly outcome: 'skipped'; readonly reason: SkipReason };

interface Locked {
  readonly payment: PaymentRow | null;
  readonly dispute: DisputeRow | null;
  readonly subscription: SubscriptionRow | null;
  /** What the payment's other open disputes already took back (read for an opening only). */
  readonly disputed: number;
}

type Change =
  | { readonly kind: 'open'; readonly payment: PaymentRow; readonly subscription: SubscriptionRow | null; readonly row: Omit<DisputeRow, 'status'> }
  | { readonly kind: 'reverse'; readonly payment: PaymentRow; readonly subscription: SubscriptionRow | null; readonly dispute: DisputeRow; readonly move: Transition<DisputeStatus> };

export type ChargebackEventType = 'chargeback.opened' | 'chargeback.reversed';

/** Records the report in a transaction of its own. */
export function recordDispute(deps: Deps, command: DisputeCommand): Promise<DisputeRecorded> {
  return runUnitOfWork(deps.database, disputeWork(deps, command));
}

/** Records the report in the caller's transaction: committed with the rest of it, or not at all. */
export function recordDisputeIn(tx: Tx, deps: Deps, command: DisputeCommand): Promise<DisputeRecorded> {
  return runUnitOfWorkIn(tx, disputeWork(deps, command));
}

function disputeWork(deps: Deps, { connector, report }: DisputeCommand): UnitOfWork<Locked, Change, DisputeRecorded> {
  const now = deps.clock.now();
  return {
    async lock(tx) {
      // The payment's lock serialises every writer of its disputes: two recordings of one report wait for each other.
      const payment = await lockPaymentByReference(tx, connector, report.paymentReference);
      if (!payment) return { payment: null, dispute: null, subscription: null, disputed: 0 };
      return {
        payment,
        dispute: await findDispute(tx, connector, report.disputeId),
        subscription: await subscriptionOfPayment(tx, payment),
        // Only an opening is capped by it; a reversal moves a dispute already counted.
        disputed: report.stage === 'opened' ? await openDisputedAmount(tx, payment.id) : 0,
      };
    },
    check: (locked) => decide(locked, connector, report, now),
    async change(tx, change) {
      if (change.kind === 'open') return { outcome: 'opened', dispute: await insertDispute(tx, DISPUTE_MACHINE.enter('open'), change.row) };
      return { outcome: 'reversed', dispute: await transitionDispute(tx, change.dispute.id, change.move, { reversedAt: report.at }) };
    },
    journal: (change, written) => ('dispute' in written ? [chargebackJournal(change.kind, written.dispute, now)] : []),
    event(change, written) {
      if (!('dispute' in written)) return undefined;
      const type: ChargebackEventType = change.kind === 'open' ? 'chargeback.opened' : 'chargeback.reversed';
      return {
        accountId: change.payment.accountId,
        type,
        paymentId: change.payment.id,
        payload: chargebackEventPayload(type, written.dispute, change.payment, change.subscription),
        notifyUrl: change.payment.notifyUrl,
      };
    },
  };
}

/** The check step: what the report changes, or why it changes nothing. */
function decide({ payment, dispute, subscription, disputed }: Locked, connector: string, report: DisputeReport, now: Date): Decision<Change, DisputeRecorded> {
  if (!payment) return { answer: { outcome: 'skipped', reason: 'unknown_payment' } };
  if (report.stage === 'reversed') {
    if (!dispute) return { answer: { outcome: 'skipped', reason: 'never_opened' } };
    if (dispute.status !== 'open') return { answer: { outcome: 'unchanged', dispute } };
    return { change: { kind: 'reverse', payment, subscription, dispute, move: DISPUTE_MACHINE.move(dispute.status, 'reversed') } };
  }
  if (dispute) return { answer: { outcome: 'unchanged', dispute } };
  if (report.amount.currency !== payment.currency) return { answer: { outcome: 'skipped', reason: 'other_currency' } };
  const amount = report.amount.minor;
  // Several disputes of one payment (a partial one, then the rest) together take back at most what was captured.
  if (!Number.isSafeInteger(amount) || amount <= 0 || amount > payment.capturedAmount - disputed) return { answer: { outcome: 'skipped', reason: 'beyond_capture' } };
  return {
    change: {
      kind: 'open',
      payment,
      subscription,
      row: {
        id: newId('DP', now.getTime()),
        accountId: payment.accountId,
        merchantId: payment.merchantId,
        paymentId: payment.id,
        connector,
        connectorDisputeId: report.disputeId,
        amount,
        currency: payment.currency,
        reasonCode: report.reasonCode,
        reason: report.reason ?? null,
        openedAt: report.at,
        reversedAt: null,
        createdAt: now,
      },
    },
  };
}

/** The merchant's balance debited by the dispute's amount, or credited back once it is reversed; keyed by the dispute. */
function chargebackJournal(kind: Change['kind'], dispute: DisputeRow, at: Date): Journal {
  const opened = kind === 'open';
  return {
    key: dispute.id,
    kind: opened ? 'chargeback' : 'chargeback_reversal',
    accountId: dispute.accountId,
    currency: dispute.currency,
    paymentId: dispute.paymentId,
    referenceId: dispute.id,
    entries: opened ? chargebackEntries(dispute.amount) : chargebackReversalEntries(dispute.amount),
    at,
  };
}

/** The body of a chargeback notification (docs/notifications.md): the payment's fields and the dispute's. */
export function chargebackEventPayload(type: ChargebackEventType, dispute: DisputeRow, payment: PaymentRow, subscription: SubscriptionRow | null): Record<string, unknown> {
  return {
    ...paymentEventPayload(type, payment, subscription),
    chargeback_id: dispute.id,
    chargeback_amount: formatAmount(dispute.amount, dispute.currency),
    chargeback_reason_code: dispute.reasonCode,
    chargeback_reason: dispute.reason ?? '',
    chargeback_status: dispute.status,
  };
}
