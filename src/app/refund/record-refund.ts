// Records what the processor said about claimed refunds, as one unit of work under the refunds'
// and their payments' locks (src/db/unit-of-work.ts), each decided by decideRefund: succeeded →
// the payment's refunded amount and state, the refund journal and the refund.succeeded event;
// failed → the reservation is freed and refund.failed is written; pending → asked again later by
// settlePendingRefunds, which moves it on the same way. A refund batch records a wave of its
// orders in one such unit of work; the sweeper records one refund in each.
import type { OperationOutcome } from '../../connectors/port.ts';
import { CODES } from '../../domain/errors.ts';
import { refundEntries } from '../../domain/ledger.ts';
import { REFUND_MACHINE, statusAfterRefund, type RefundStatus } from '../../domain/lifecycle.ts';
import { nextCheckFor, PAYMENT_MACHINE, type PaymentStatus } from '../../domain/payment.ts';
import type { Transition } from '../../domain/state-machine.ts';
import type { SubscriptionProgress } from '../../domain/subscriptions/subscription.ts';
import type { Journal } from '../../db/repositories/ledger.ts';
import { findPayment } from '../../db/repositories/payments.ts';
import { leaseDueRefunds, lockRefundsAndPayments, settleRefunds, type LockedRefund } from '../../db/repositories/refunds.ts';
import { runRawUnitOfWork, type Decision } from '../../db/unit-of-work.ts';
import type { AccountRow, PaymentRow, RefundRow } from '../../db/schema.ts';
import { nextCheck } from '../capture/operation.ts';
import { checkTimes } from '../clock/check-times.ts';
import { callConnector, canAskAgain } from '../batch/calls-in-flight.ts';
import { credentialsToSend } from '../merchants/connector.ts';
import type { Deps } from '../context.ts';
import { refundEventPayload } from './refund-answer.ts';

/** The processor's answer, or none that says what happened. */
export type RefundAnswer = OperationOutcome | { readonly status: 'unknown' };

export async function askRefund(deps: Deps, refund: RefundRow, connectorName: string, paymentReference: string | null, account?: AccountRow): Promise<RefundAnswer> {
  const connector = deps.connectors.get(connectorName);
  if (!connector) {
    deps.log.error({ refundId: refund.id, connector: connectorName }, 'no such connector in this mode');
    return { status: 'failed', reason: 'the processor of this transaction is not available' };
  }
  // The account's credentials only while its connector is still the payment's (credentialsFor).
  const credentials = await credentialsToSend(deps, refund.accountId, connectorName, account);
  if (!credentials) return { status: 'unknown' };
  // Under the deadline: unanswered by then, the outcome is unknown and the refund stays pending.
  const result = await callConnector(deps, (signal) =>
    refund.connectorReference
      ? connector.refundStatus({ refundId: refund.id, reference: refund.connectorReference, signal, credentials })
      : connector.refund({
          paymentId: refund.paymentId,
          reference: paymentReference ?? '',
          refundId: refund.id,
          amount: { minor: refund.amount, currency: refund.currency },
          ...(refund.reason ? { reason: refund.reason } : {}),
          signal,
          credentials,
        }),
  );
  if (result.ok) return result.value;
  deps.log.warn({ refundId: refund.id, error: result.error.kind }, 'refund outcome unknown');
  return { status: 'unknown' };
}

/** What recording a refund's answer changes: the refund's move and columns, the payment's. */
interface RefundChange {
  readonly refundMove: Transition<RefundStatus>;
  readonly refund: RefundRow;
  readonly paymentMove: Transition<PaymentStatus>;
  readonly payment: PaymentRow;
  /** The subscription the payment began, as it stands (its notification reports it); null: none. */
  readonly subscription: SubscriptionProgress | null;
  readonly journal?: Journal;
  readonly event?: 'refund.succeeded' | 'refund.failed';
}

/** A unit of work's changes, and the refunds it found settled already. */
interface RefundChanges {
  readonly changes: readonly RefundChange[];
  readonly settled: readonly RefundRow[];
}

type KnownAnswer = Exclude<RefundAnswer, { status: 'unknown' }>;

/** A claimed refund and what the processor answered about it. */
export interface RefundToRecord {
  readonly claimed: RefundRow;
  readonly answer: RefundAnswer;
}

/** Records the processor's answer about a claimed refund as one unit of work (src/db/unit-of-work.ts). */
export async function recordRefund(deps: Deps, claimed: RefundRow, answer: RefundAnswer): Promise<RefundRow> {
  const [recorded] = await recordRefunds(deps, [{ claimed, answer }]);
  return recorded!;
}

/**
 * Records the processor's answers about claimed refunds, each on a different payment, as one unit
 * of work: every refund is decided by decideRefund from its locked rows, and all of them commit
 * together (one commit for a wave of a batch). Answers the refunds in the given order; one whose
 * outcome is unknown stays as claimed, for the sweeper.
 */
export async function recordRefunds(deps: Deps, toRecord: readonly RefundToRecord[]): Promise<RefundRow[]> {
  const known = toRecord.filter((r): r is { claimed: RefundRow; answer: KnownAnswer } => r.answer.status !== 'unknown');
  if (known.length === 0) return toRecord.map((r) => r.claimed);
  if (new Set(known.map((r) => r.claimed.paymentId)).size !== known.length) throw new Error('recordRefunds: two refunds of one payment in one unit of work');
  const now = deps.clock.now();
  const at = checkTimes(deps, now);
  const { wallNow } = at;
  // Raw prepared statements: a refund batch records a wave of its orders at once (runRawUnitOfWork).
  const recorded = await runRawUnitOfWork<Map<string, LockedRefund>, RefundChanges, RefundRow[]>(deps.database, {
    lock: (query) => lockRefundsAndPayments(query, known.map((r) => r.claimed.id)),
    check(locked) {
      const decisions = known.map(({ claimed, answer }) => {
        const rows = locked.get(claimed.id);
        if (!rows) throw new Error(`refund ${claimed.id} lost its payment`);
        return decideRefund(rows, answer, now, wallNow);
      });
      // Settled already (the sweeper got there first): answered as they are.
      const settled = decisions.flatMap((d) => ('answer' in d ? [d.answer] : []));
      const changes = decisions.flatMap((d) => ('change' in d ? [d.change] : []));
      return changes.length === 0 ? { answer: settled } : { change: { changes, settled } };
    },
    async change(query, { changes, settled }) {
      const written = await settleRefunds(
        query,
        changes.map((change) => ({
          refund: change.refund,
          refundMove: change.refundMove,
          // A refund still pending leaves its payment as it is.
          ...(change.refundMove.to !== 'pending'
            ? { payment: { row: change.payment, move: change.paymentMove, nextCheckAt: nextCheckFor(change.paymentMove.to, at, null) } }
            : {}),
        })),
      );
      return [...written, ...settled];
    },
    journal: ({ changes }) => changes.flatMap((change) => (change.journal ? [change.journal] : [])),
    // written[i] is changes[i] as written.
    event: ({ changes }, written) =>
      changes.flatMap(({ event, payment, subscription }, i) =>
        event
          ? [{ accountId: payment.accountId, type: event, paymentId: payment.id, payload: refundEventPayload(event, written[i]!, payment, subscription), notifyUrl: payment.notifyUrl }]
          : [],
      ),
  });
  const byId = new Map(recorded.map((refund) => [refund.id, refund]));
  return toRecord.map(({ claimed }) => byId.get(claimed.id) ?? claimed);
}

/** The check step: the refund's and the payment's moves for the answer, or the refund as it is when it is settled already. */
function decideRefund({ refund, payment, subscription }: LockedRefund, answer: KnownAnswer, now: Date, wallNow: Date): Decision<RefundChange, RefundRow> {
  if (refund.status !== 'pending') return { answer: refund };
  if (answer.status === 'pending') {
    const waiting = { ...refund, connectorReference: answer.reference, nextCheckAt: nextCheck(wallNow, refund.attempts) };
    return { change: { refundMove: REFUND_MACHINE.stay(refund.status), refund: waiting, paymentMove: PAYMENT_MACHINE.stay(payment.status), payment, subscription } };
  }
  if (answer.status === 'succeeded') {
    const refunded = payment.refundedAmount + refund.amount;
    const paymentMove = PAYMENT_MACHINE.move(payment.status, statusAfterRefund(payment.capturedAmount, refunded));
    const settled: RefundRow = {
      ...refund,
      status: 'succeeded',
      connectorReference: answer.reference,
      resultCode: CODES.success.code,
      resultMessage: CODES.success.message,
      settledAt: now,
    };
    return {
      change: {
        refundMove: REFUND_MACHINE.move(refund.status, 'succeeded'),
        refund: settled,
        paymentMove,
        payment: { ...payment, refundedAmount: refunded, status: paymentMove.to },
        subscription,
        journal: { key: refund.id, kind: 'refund', accountId: payment.accountId, currency: payment.currency, paymentId: payment.id, referenceId: refund.id, entries: refundEntries(refund.amount), at: now },
        event: 'refund.succeeded',
      },
    };
  }
  // Failed: the reservation is freed, so the amount can be refunded again.
  const settled: RefundRow = {
    ...refund,
    status: 'failed',
    connectorReference: answer.reference ?? refund.connectorReference,
    resultCode: CODES.processor_refused.code,
    resultMessage: `refused by the processor: ${answer.reason}`,
    settledAt: now,
  };
  return {
    change: {
      refundMove: REFUND_MACHINE.move(refund.status, 'failed'),
      refund: settled,
      paymentMove: PAYMENT_MACHINE.stay(payment.status),
      payment: { ...payment, refundReserved: payment.refundReserved - refund.amount },
      subscription,
      event: 'refund.failed',
    },
  };
}

/**
 * Periodic task: refunds the processor settles later (or whose answer was lost) are asked about
 * again (refundStatus, or the same refund sent again when no reference came back) until they
 * succeed or fail. One whose connector this process lacks is left pending, never failed.
 */
export async function settlePendingRefunds(deps: Deps, limit = 50): Promise<number> {
  const leased = await leaseDueRefunds(deps.database.db, deps, limit, deps.config.processor.leaseMs);
  let settled = 0;
  for (const refund of leased) {
    const payment = await findPayment(deps.database.db, refund.accountId, refund.paymentId);
    if (!payment) continue;
    if (!canAskAgain(deps, payment.connector, 'refund', { refundId: refund.id })) continue;
    const after = await recordRefund(deps, refund, await askRefund(deps, refund, payment.connector, payment.connectorReference));
    if (after.status !== 'pending') settled += 1;
  }
  return settled;
}
