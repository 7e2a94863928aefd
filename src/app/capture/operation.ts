// A capture or a void of one authorisation, for /v1/capture, /v1/cancel and /v1/review alike:
// claim it (a pending row, under the payment's lock, at most one live per payment) → ask the
// processor, outside any transaction → record what it said: the payment's new state, its
// journals and its event in one transaction. An answer that is not a clear success or failure
// leaves the operation pending; resolvePendingOperations asks again later with the same id.
import { eq } from 'drizzle-orm';
import type { Connector, Credentials, OperationOutcome } from '../../connectors/port.ts';
import { AppError, CODES, codeText } from '../../domain/errors.ts';
import { formatAmount } from '../../domain/money.ts';
import { newId } from '../../domain/ids.ts';
import { captureEntries, feeEntries, feeOf, releaseEntries } from '../../domain/ledger.ts';
import { OPERATION_MACHINE, type RefundStatus } from '../../domain/lifecycle.ts';
import { PAYMENT_MACHINE, type PaymentStatus } from '../../domain/payment.ts';
import type { Transition } from '../../domain/state-machine.ts';
import type { Tx } from '../../db/client.ts';
import type { Journal } from '../../db/repositories/ledger.ts';
import {
  insertOperation,
  leaseDueOperations,
  liveOperation,
  lockOperation,
  operationByRequestKey,
  transitionOperation,
  type OperationChanges,
} from '../../db/repositories/operations.ts';
import { findPayment, lockPayment, transitionPayment, type PaymentChanges } from '../../db/repositories/payments.ts';
import { runUnitOfWork, type Decision } from '../../db/unit-of-work.ts';
import { isDatabaseUnavailable } from '../../db/unavailable.ts';
import { accounts, type AccountRow, type PaymentOperationRow, type PaymentRow, type SubscriptionRow } from '../../db/schema.ts';
import { lockOrder, type OrderRef, type Outcome } from '../batch/orders.ts';
import { callConnector, canAskAgain } from '../batch/calls-in-flight.ts';
import { credentialsToSend } from '../merchants/connector.ts';
import type { Deps } from '../context.ts';
import { paymentEventPayload } from '../payments/events.ts';
import { openOnApproval, subscriptionOfPayment } from '../subscriptions/open.ts';
import { cancelledEvent, endWithFirstPayment } from '../subscriptions/cancel.ts';
import { checkTimes } from '../clock/check-times.ts';

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
  if (live) throw inProgress(live);
}

/** The refusal (5012) of an operation on a payment that `live`, a capture or void of it, is under way on. */
export function inProgress(live: PaymentOperationRow): AppError {
  return new AppError('operation_in_progress', `a ${live.kind === 'capture' ? 'capture' : 'cancellation'} of this transaction is in progress`);
}

/**
 * Claims a capture or void of `payment`, which the caller has locked and found in a state the
 * operation may start from. The partial unique index behind `liveOperation` is the last word.
 */
export async function claimOperation(
  tx: Tx,
  deps: Pick<Deps, 'clock' | 'wallClock' | 'config'>,
  payment: PaymentRow,
  claim: { kind: OperationKind; origin: OperationOrigin; amount: number; requestKey?: string | undefined },
): Promise<PaymentOperationRow> {
  await assertNoLiveOperation(tx, payment.id);
  return insertOperation(tx, {
    ...(claim.requestKey ? { requestKey: claim.requestKey } : {}),
    id: newId(claim.kind === 'capture' ? 'CP' : 'VD', deps.clock.now().getTime()),
    paymentId: payment.id,
    accountId: payment.accountId,
    kind: claim.kind,
    origin: claim.origin,
    amount: claim.amount,
    currency: payment.currency,
    // Not before the live call has surely ended (wall time): the sweeper must not second-guess it.
    nextCheckAt: new Date(deps.wallClock.now().getTime() + deps.config.processor.unknownAfterMs),
  });
}

/** An order's payment, locked, and the operation its keyed request claimed before, if any. */
export interface KeyedOrder {
  readonly payment: PaymentRow;
  readonly earlier: PaymentOperationRow | null;
}

/**
 * Locks the order's payment and reads the capture or void its keyed request claimed already, if
 * any (a request taken over from a dead one runs its orders again): the lock step of /v1/capture,
 * /v1/cancel and /v1/review.
 */
export async function lockKeyedOrder(tx: Tx, accountId: string, order: OrderRef): Promise<KeyedOrder> {
  const payment = await lockOrder(tx, accountId, order);
  return { payment, earlier: order.requestKey ? await operationByRequestKey(tx, accountId, order.requestKey) : null };
}

/** What an order's claim step wrote: a new operation to carry out, or the one its keyed request claimed before. */
export type Claimed = { readonly payment: PaymentRow; readonly operation: PaymentOperationRow } | { readonly earlier: OperationResult };

/** The answer to an order whose operation its keyed request claimed before: that operation as it stands. */
export function earlierClaim(payment: PaymentRow, earlier: PaymentOperationRow): { answer: Claimed } {
  return { answer: { earlier: { status: earlier.status, payment, operation: earlier } } };
}

/**
 * Carries out what was claimed; an operation claimed before is answered as it stands (a pending
 * one is asked about by resolvePendingOperations: asking now could race the first request's call).
 */
export async function carryOut(deps: Deps, claimed: Claimed, account?: AccountRow): Promise<OperationResult> {
  return 'earlier' in claimed ? claimed.earlier : executeOperation(deps, claimed.operation, claimed.payment, 'pending', account);
}

/**
 * Asks the processor to carry out a claimed operation, and records its answer. Once asked, the
 * processor may have done it: a record that fails leaves the operation pending as claimed, answered
 * so, for resolvePendingOperations to send again (its id is the processor's idempotency key) and
 * record; never refused, which would tell the merchant that nothing happened to a payment the
 * processor captured or voided. The database away is thrown on for a sweeper (`whenAway`
 * 'throw': its runner waits for the database), and answered pending to a merchant's order
 * ('pending': a batch's answer says what was done, src/http/batch/run.ts).
 */
export async function executeOperation(
  deps: Deps,
  operation: PaymentOperationRow,
  payment: PaymentRow,
  whenAway: 'throw' | 'pending' = 'throw',
  account?: AccountRow,
): Promise<OperationResult> {
  const answer = await askProcessor(deps, operation, payment, account);
  try {
    return await recordOperation(deps, operation, answer);
  } catch (error) {
    if (isDatabaseUnavailable(error)) {
      if (whenAway === 'throw') throw error;
      deps.log.warn({ code: '9503', operationId: operation.id, kind: operation.kind }, 'database unavailable: operation left pending for the sweeper');
    } else {
      deps.log.error({ err: error, operationId: operation.id, kind: operation.kind }, 'recording the operation failed: left pending for the sweeper');
    }
    return { status: 'pending', payment, operation };
  }
}

async function askProcessor(deps: Deps, operation: PaymentOperationRow, payment: PaymentRow, account?: AccountRow): Promise<Answer> {
  const connector = deps.connectors.get(payment.connector);
  if (!connector) {
    deps.log.error({ paymentId: payment.id, connector: payment.connector }, 'no such connector in this mode');
    return { status: 'failed', reason: 'the processor of this transaction is not available' };
  }
  // The account's credentials only while its connector is still the payment's (credentialsFor).
  const credentials = await credentialsToSend(deps, payment.accountId, payment.connector, account);
  if (!credentials) return { status: 'unknown' };
  // Under the deadline: unanswered by then, the outcome is unknown and the operation stays pending.
  const result = await callConnector(deps, (signal) => send(connector, operation, payment, { signal, credentials }));
  if (result.ok) return result.value;
  deps.log.warn({ operationId: operation.id, kind: operation.kind, error: result.error.kind }, 'operation outcome unknown');
  return { status: 'unknown' };
}

function send(connector: Connector, operation: PaymentOperationRow, payment: PaymentRow, call: { signal: AbortSignal; credentials: Credentials }) {
  const amount = { minor: operation.amount, currency: operation.currency };
  const reference = payment.connectorReference ?? '';
  return operation.kind === 'capture'
    ? connector.capture({ paymentId: payment.id, reference, amount, operationId: operation.id, ...call })
    : connector.cancel({ paymentId: payment.id, reference, amount, ...call });
}

const POLL_MS = 5_000;
const MAX_POLL_MS = 3_600_000;

/** When to ask again about an operation still pending after `attempts` checks (wall time). */
export function nextCheck(now: Date, attempts: number): Date {
  return new Date(now.getTime() + Math.min(MAX_POLL_MS, POLL_MS * 2 ** Math.min(attempts, 20)));
}

/** The locked rows an operation's answer is recorded on. */
interface OperationRows {
  readonly account: AccountRow;
  readonly payment: PaymentRow;
  readonly operation: PaymentOperationRow;
}

/** What recording an answer changes: the operation's move, and on success the payment's. */
interface OperationChange extends OperationRows {
  readonly status: OperationResult['status'];
  readonly operationMove: Transition<RefundStatus>;
  readonly operationChanges: OperationChanges;
  readonly paymentMove?: Transition<PaymentStatus>;
  readonly paymentChanges?: PaymentChanges;
}

/** An operation as recorded, with the subscription its payment began (as it stands) when the payment moved: its event reports it. */
type RecordedOperation = OperationResult & { readonly subscription?: SubscriptionRow | null; readonly ended?: SubscriptionRow | null };

/** Records the processor's answer as one unit of work (src/db/unit-of-work.ts). */
async function recordOperation(deps: Deps, claimed: PaymentOperationRow, answer: Answer): Promise<OperationResult> {
  const now = deps.clock.now();
  return runUnitOfWork<OperationRows, OperationChange, RecordedOperation>(deps.database, {
    async lock(tx) {
      const [account] = await tx.select().from(accounts).where(eq(accounts.id, claimed.accountId));
      const payment = await lockPayment(tx, claimed.accountId, claimed.paymentId);
      const operation = await lockOperation(tx, claimed.id);
      if (!account || !payment || !operation) throw new Error(`operation ${claimed.id} lost its payment`);
      return { account, payment, operation };
    },
    check: (rows) => decideOperation(rows, answer, deps.wallClock.now()),
    async change(tx, change) {
      const operation = await transitionOperation(tx, change.operation.id, change.operationMove, change.operationChanges);
      // A refusal the merchant is notified of reports the payment as it stands, with the subscription it began.
      if (change.status === 'failed') return { status: 'failed', payment: change.payment, operation, subscription: await subscriptionOfPayment(tx, change.payment) };
      // A review approval's capture is the payment's approval: a subscription it carries begins here.
      const { payment, subscription } = change.paymentMove
        ? await openOnApproval(tx, now, change.paymentMove, await transitionPayment(tx, change.payment.id, change.paymentMove, checkTimes(deps, now), change.paymentChanges))
        : { payment: change.payment, subscription: null };
      // A voided first payment (/v1/cancel, the portal, its authorisation expired) ends the subscription it began.
      const ended = change.paymentMove?.to === 'cancelled' ? await endWithFirstPayment(tx, now, payment) : null;
      return { status: change.status, payment, operation, subscription: ended ?? subscription, ended };
    },
    journal: (change) => (change.status === 'succeeded' ? operationJournals(change, now) : []),
    event(change, written) {
      if (change.status === 'failed') return refusalEvent(change.account, written);
      if (change.status !== 'succeeded') return undefined;
      const type = change.operation.kind === 'capture' ? 'payment.captured' : 'payment.cancelled';
      const event = { accountId: change.account.id, type, paymentId: written.payment.id, payload: paymentEventPayload(type, written.payment, written.subscription ?? null), notifyUrl: written.payment.notifyUrl };
      return written.ended ? [event, cancelledEvent(written.ended, change.operation.origin === 'expiry' ? 'first_payment_expired' : 'first_payment_cancelled')] : event;
    },
  });
}

/** The origins of a merchant's own request (/v1/capture, /v1/cancel, /v1/review, the portal), whose refusal by the processor is notified. */
const MERCHANT_ORIGINS: ReadonlySet<OperationOrigin> = new Set(['capture', 'cancel', 'review_approve', 'review_reject']);

/**
 * The event of a merchant's capture or void the processor refused (payment.capture_failed or
 * payment.cancel_failed), the payment unchanged: a merchant whose answer said pending learns the
 * outcome as it would have learnt a success. The gateway's own voids (expiries) notify nothing.
 */
function refusalEvent(account: AccountRow, { payment, operation, subscription }: RecordedOperation) {
  if (!MERCHANT_ORIGINS.has(operation.origin)) return undefined;
  const type = operation.kind === 'capture' ? 'payment.capture_failed' : 'payment.cancel_failed';
  // The same error_message as the batch answer's for a refusal (src/http/batch/outcome.ts).
  const payload = {
    ...paymentEventPayload(type, payment, subscription ?? null),
    ...(operation.kind === 'capture' ? { capture_amount: formatAmount(operation.amount, operation.currency) } : {}),
    error_message: codeText('processor_refused', `refused by the processor${operation.failureReason ? `: ${operation.failureReason}` : ''}`),
  };
  return { accountId: account.id, type, paymentId: payment.id, payload, notifyUrl: payment.notifyUrl };
}

/** The check step: the moves an answer makes, or the rows as they are when there is nothing to record. */
function decideOperation(rows: OperationRows, answer: Answer, wallNow: Date): Decision<OperationChange, OperationResult> {
  const { payment, operation } = rows;
  // The sweeper or a retry may have recorded the outcome first; an unknown answer records nothing.
  if (operation.status !== 'pending') return { answer: { status: operation.status, payment, operation } };
  switch (answer.status) {
    case 'unknown':
      return { answer: { status: 'pending', payment, operation } };
    case 'pending':
      return {
        change: {
          ...rows,
          status: 'pending',
          operationMove: OPERATION_MACHINE.stay(operation.status),
          operationChanges: { connectorReference: answer.reference, nextCheckAt: nextCheck(wallNow, operation.attempts) },
        },
      };
    case 'failed':
      return {
        change: {
          ...rows,
          status: 'failed',
          operationMove: OPERATION_MACHINE.move(operation.status, 'failed'),
          operationChanges: { failureReason: answer.reason, ...(answer.reference ? { connectorReference: answer.reference } : {}) },
        },
      };
    case 'succeeded':
      return {
        change: {
          ...rows,
          status: 'succeeded',
          operationMove: OPERATION_MACHINE.move(operation.status, 'succeeded'),
          operationChanges: { connectorReference: answer.reference },
          paymentMove: PAYMENT_MACHINE.move(payment.status, operation.kind === 'capture' ? 'captured' : 'cancelled'),
          paymentChanges: paymentChangesOf(operation),
        },
      };
  }
}

/** The payment's columns a succeeded capture or void sets beside its state. */
function paymentChangesOf(operation: PaymentOperationRow): PaymentChanges {
  if (operation.kind === 'capture') return { capturedAmount: operation.amount, resultCode: CODES.success.code, resultMessage: CODES.success.message };
  // A merchant's void (/v1/cancel, the portal) reports what a cancelled authorisation always
  // carries: 0000:Success. A payment held for review has 1003 until then, which must not outlive the hold.
  if (operation.origin === 'cancel') return { resultCode: CODES.success.code, resultMessage: CODES.success.message };
  if (operation.origin === 'review_reject') return { resultCode: CODES.review_rejected.code, resultMessage: CODES.review_rejected.message };
  if (operation.origin === 'review_expired') return { resultCode: CODES.review_expired.code, resultMessage: CODES.review_expired.message };
  if (operation.origin === 'expiry') return { resultCode: CODES.authorisation_expired.code, resultMessage: CODES.authorisation_expired.message };
  return {};
}

/** A succeeded operation's journals: the hold becomes captured money (the rest released, the fee on what was captured), or is released. */
function operationJournals({ account, payment, operation }: OperationRows, at: Date): Journal[] {
  const journal = { key: operation.id, accountId: account.id, currency: payment.currency, paymentId: payment.id, referenceId: operation.id, at };
  if (operation.kind !== 'capture') return [{ ...journal, kind: 'release', entries: releaseEntries(payment.amount) }];
  return [
    { ...journal, kind: 'capture', entries: [...releaseEntries(operation.amount), ...captureEntries(operation.amount)] },
    { ...journal, kind: 'release', entries: releaseEntries(payment.amount - operation.amount) },
    { ...journal, kind: 'fee', entries: feeEntries(feeOf(operation.amount, payment.currency, account)) },
  ];
}

/**
 * Periodic task: asks the processor again about operations whose answer was lost or pending,
 * by sending the same operation again (its id is the processor's idempotency key). One whose
 * connector this process lacks is left pending, never failed.
 */
export async function resolvePendingOperations(deps: Deps, limit = 50): Promise<number> {
  const leased = await leaseDueOperations(deps.database.db, deps, limit, deps.config.processor.leaseMs);
  let settled = 0;
  for (const operation of leased) {
    const payment = await findPayment(deps.database.db, operation.accountId, operation.paymentId);
    if (!payment) continue;
    if (!canAskAgain(deps, payment.connector, 'operation', { operationId: operation.id, kind: operation.kind })) continue;
    const result = await executeOperation(deps, operation, payment);
    if (result.status !== 'pending') settled += 1;
  }
  return settled;
}
