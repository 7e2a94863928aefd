// A capture or a void of one authorisation, for /v1/capture, /v1/cancel and /v1/review alike:
// claim it (a pending row, under the payment's lock, at most one live per payment) → ask the
// processor, outside any transaction → record what it said: the payment's new state, its
// journals and its event in one transaction. An answer that is not a clear success or failure
// leaves the operation pending; resolvePendingOperations asks again later with the same id.
import { eq } from 'drizzle-orm';
import type { Connector, OperationOutcome } from '../../connectors/port.ts';
import { AppError, CODES } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { captureEntries, feeEntries, feeOf, releaseEntries } from '../../domain/ledger.ts';
import { OPERATION_MACHINE } from '../../domain/lifecycle.ts';
import { PAYMENT_MACHINE } from '../../domain/payment.ts';
import type { Tx } from '../../db/client.ts';
import { recordEvent } from '../../db/repositories/events.ts';
import { postJournal } from '../../db/repositories/ledger.ts';
import { insertOperation, leaseDueOperations, liveOperation, lockOperation, transitionOperation } from '../../db/repositories/operations.ts';
import { findPayment, lockPayment, transitionPayment } from '../../db/repositories/payments.ts';
import { accounts, type AccountRow, type PaymentOperationRow, type PaymentRow } from '../../db/schema.ts';
import type { Outcome } from '../batch/orders.ts';
import type { Deps } from '../context.ts';
import { paymentEventPayload } from '../payments/events.ts';
import { UNKNOWN_AFTER_MS } from '../payments/resolve-unknown.ts';

export type OperationKind = PaymentOperationRow['kind'];
export type OperationOrigin = PaymentOperationRow['origin'];

/** What became of an operation: `pending` until the processor clearly says. */
export interface OperationResult {
  readonly status: 'succeeded' | 'pending' | 'failed';
  readonly payment: PaymentRow;
  readonly operation: PaymentOperationRow;
}

/** The per-order outcome of a batch answer. */
export function outcomeOf(result: OperationResult): Outcome {
  return { status: result.status, ...(result.operation.failureReason ? { reason: result.operation.failureReason } : {}) };
}

/** The processor's answer, or none that says what happened. */
type Answer = OperationOutcome | { readonly status: 'unknown' };

/** Refuses while another capture or void of the payment is pending (or already succeeded). */
export async function assertNoLiveOperation(tx: Tx, paymentId: string): Promise<void> {
  const live = await liveOperation(tx, paymentId);
  if (live) {
    throw new AppError('operation_in_progress', `a ${live.kind === 'capture' ? 'capture' : 'cancellation'} of this transaction is in progress`);
  }
}

/**
 * Claims a capture or void of `payment`, which the caller has locked and found in a state the
 * operation may start from. The partial unique index behind `liveOperation` is the last word.
 */
export async function claimOperation(
  tx: Tx,
  deps: Pick<Deps, 'clock'>,
  payment: PaymentRow,
  claim: { kind: OperationKind; origin: OperationOrigin; amount: number },
): Promise<PaymentOperationRow> {
  await assertNoLiveOperation(tx, payment.id);
  return insertOperation(tx, {
    id: newId(claim.kind === 'capture' ? 'CP' : 'VD', deps.clock.now().getTime()),
    paymentId: payment.id,
    accountId: payment.accountId,
    kind: claim.kind,
    origin: claim.origin,
    amount: claim.amount,
    currency: payment.currency,
    // Not before the live call has surely ended: the sweeper must not second-guess it.
    nextCheckAt: new Date(deps.clock.now().getTime() + UNKNOWN_AFTER_MS),
  });
}

/** Asks the processor to carry out a claimed operation, and records its answer. */
export async function executeOperation(deps: Deps, operation: PaymentOperationRow, payment: PaymentRow): Promise<OperationResult> {
  return recordOperation(deps, operation, await askProcessor(deps, operation, payment));
}

async function askProcessor(deps: Deps, operation: PaymentOperationRow, payment: PaymentRow): Promise<Answer> {
  const connector = deps.connectors.get(payment.connector);
  if (!connector) {
    deps.log.error({ paymentId: payment.id, connector: payment.connector }, 'no such connector in this mode');
    return { status: 'failed', reason: 'the processor of this transaction is not available' };
  }
  const result = await send(connector, operation, payment).catch((error: unknown) => ({
    ok: false as const,
    error: { kind: 'network' as const, message: String(error) },
  }));
  if (result.ok) return result.value;
  deps.log.warn({ operationId: operation.id, kind: operation.kind, error: result.error.kind }, 'operation outcome unknown');
  return { status: 'unknown' };
}

function send(connector: Connector, operation: PaymentOperationRow, payment: PaymentRow) {
  const amount = { minor: operation.amount, currency: operation.currency };
  const reference = payment.connectorReference ?? '';
  return operation.kind === 'capture'
    ? connector.capture({ paymentId: payment.id, reference, amount, operationId: operation.id })
    : connector.cancel({ paymentId: payment.id, reference, amount });
}

const POLL_MS = 5_000;
const MAX_POLL_MS = 3_600_000;

/** When to ask again about an operation still pending after `attempts` checks. */
export function nextCheck(now: Date, attempts: number): Date {
  return new Date(now.getTime() + Math.min(MAX_POLL_MS, POLL_MS * 2 ** Math.min(attempts, 20)));
}

async function recordOperation(deps: Deps, claimed: PaymentOperationRow, answer: Answer): Promise<OperationResult> {
  return deps.database.db.transaction(async (tx) => {
    const [account] = await tx.select().from(accounts).where(eq(accounts.id, claimed.accountId));
    const payment = await lockPayment(tx, claimed.accountId, claimed.paymentId);
    const operation = await lockOperation(tx, claimed.id);
    if (!account || !payment || !operation) throw new Error(`operation ${claimed.id} lost its payment`);
    // The sweeper or a retry may have recorded the outcome first.
    if (operation.status !== 'pending') return { status: operation.status, payment, operation };
    switch (answer.status) {
      case 'succeeded': {
        const done = await transitionOperation(tx, operation.id, OPERATION_MACHINE.move(operation.status, 'succeeded'), {
          connectorReference: answer.reference,
        });
        return { status: 'succeeded', payment: await applyOperation(tx, deps.clock.now(), account, payment, done), operation: done };
      }
      case 'failed': {
        const failed = await transitionOperation(tx, operation.id, OPERATION_MACHINE.move(operation.status, 'failed'), {
          failureReason: answer.reason,
          ...(answer.reference ? { connectorReference: answer.reference } : {}),
        });
        return { status: 'failed', payment, operation: failed };
      }
      case 'pending': {
        const waiting = await transitionOperation(tx, operation.id, OPERATION_MACHINE.stay(operation.status), {
          connectorReference: answer.reference,
          nextCheckAt: nextCheck(deps.clock.now(), operation.attempts),
        });
        return { status: 'pending', payment, operation: waiting };
      }
      case 'unknown':
        return { status: 'pending', payment, operation };
    }
  });
}

/** The succeeded operation's effect on the payment: state, journals, event. */
async function applyOperation(tx: Tx, now: Date, account: AccountRow, payment: PaymentRow, operation: PaymentOperationRow): Promise<PaymentRow> {
  const move = PAYMENT_MACHINE.move(payment.status, operation.kind === 'capture' ? 'captured' : 'cancelled');
  const journal = { key: operation.id, accountId: account.id, currency: payment.currency, paymentId: payment.id, referenceId: operation.id };
  let updated: PaymentRow;
  if (operation.kind === 'capture') {
    updated = await transitionPayment(tx, payment.id, move, now, {
      capturedAmount: operation.amount,
      resultCode: CODES.success.code,
      resultMessage: CODES.success.message,
    });
    // The hold becomes captured money; an uncaptured rest is released; the fee is on what was captured.
    await postJournal(tx, { ...journal, kind: 'capture', entries: [...releaseEntries(operation.amount), ...captureEntries(operation.amount)] });
    await postJournal(tx, { ...journal, kind: 'release', entries: releaseEntries(payment.amount - operation.amount) });
    await postJournal(tx, { ...journal, kind: 'fee', entries: feeEntries(feeOf(operation.amount, payment.currency, account)) });
  } else {
    const rejected =
      operation.origin === 'review_reject'
        ? { resultCode: CODES.review_rejected.code, resultMessage: CODES.review_rejected.message }
        : operation.origin === 'expiry'
          ? { resultCode: CODES.authorisation_expired.code, resultMessage: CODES.authorisation_expired.message }
          : {};
    updated = await transitionPayment(tx, payment.id, move, now, rejected);
    await postJournal(tx, { ...journal, kind: 'release', entries: releaseEntries(payment.amount) });
  }
  const type = operation.kind === 'capture' ? 'payment.captured' : 'payment.cancelled';
  await recordEvent(tx, { accountId: account.id, type, paymentId: payment.id, payload: paymentEventPayload(type, updated), notifyUrl: updated.notifyUrl });
  return updated;
}

/**
 * Periodic task: asks the processor again about operations whose answer was lost or pending,
 * by sending the same operation again (its id is the processor's idempotency key).
 */
export async function resolvePendingOperations(deps: Deps, limit = 50): Promise<number> {
  const leased = await leaseDueOperations(deps.database.db, deps.clock.now(), limit, UNKNOWN_AFTER_MS * 2);
  let settled = 0;
  for (const operation of leased) {
    const payment = await findPayment(deps.database.db, operation.accountId, operation.paymentId);
    if (!payment) continue;
    const result = await executeOperation(deps, operation, payment);
    if (result.status !== 'pending') settled += 1;
  }
  return settled;
}
