// Records what the processor said about an authorisation: the payment's new state, its ledger
// journal, the stored card and the merchant's event, all or nothing. One decision (decideOutcome)
// and two ways to write it. The authorise call itself (recordAuthorisation) writes it in one
// optimistic statement: it decides from the row as read and writes only if nobody changed it
// since (its version); a loser re-reads and decides again. Every outcome learned later
// (recordLaterOutcome: 3-D Secure and APM completion, the hosted page, expiry, the sweeper of
// unknown outcomes) is a unit of work under the row lock. Either way two paths learning the same
// outcome record it once.
import type { AuthoriseOutcome, DeclineReason } from '../../connectors/port.ts';
import { CODES, type CodeName } from '../../domain/errors.ts';
import { newEventId, newId } from '../../domain/ids.ts';
import { captureEntries, feeEntries, feeOf, holdEntries } from '../../domain/ledger.ts';
import { canMove, PAYMENT_MACHINE, type PaymentStatus } from '../../domain/payment.ts';
import type { RiskDecision } from '../../domain/risk.ts';
import type { Transition } from '../../domain/state-machine.ts';
import { isHttpUrl } from '../../domain/web-address.ts';
import { journalRows, type Journal } from '../../db/repositories/ledger.ts';
import { findPayment, lockPayment, transitionPayment, writeOutcome, type OutcomeWrite } from '../../db/repositories/payments.ts';
import { deleteCardToken, insertCardToken } from '../../db/repositories/tokens.ts';
import { runUnitOfWork, type Decision } from '../../db/unit-of-work.ts';
import type { AccountRow, PaymentRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import { openOnApproval, termsOf, type PaymentWithSubscription } from '../subscriptions/open.ts';
import { paymentEventPayload, type PaymentEventType } from './events.ts';
import { checkTimes } from '../clock/check-times.ts';

export const DECLINE_CODES: Record<DeclineReason, CodeName> = {
  generic: 'declined',
  insufficient_funds: 'insufficient_funds',
  expired_card: 'expired_card',
  incorrect_cvc: 'incorrect_cvc',
  invalid_card: 'invalid_card',
  lost_or_stolen: 'lost_or_stolen',
  authentication_failed: 'authentication_failed',
  processor_error: 'processor_error',
  abandoned: 'payment_abandoned',
};

/** A card to keep in the vault if the processor approves (token_flag). */
export interface CardToStore {
  readonly pan: string;
  readonly brand: string;
  readonly expiryMonth: number;
  readonly expiryYear: number;
  readonly fingerprint: string;
}

export interface AuthorisationContext {
  readonly account: AccountRow;
  readonly paymentId: string;
  /** The row as the caller last read it (saves a read on the hot path). */
  readonly current?: PaymentRow;
  /** A `review` decision holds an approved payment for /v1/review instead of capturing it. */
  readonly risk?: RiskDecision;
  readonly cardToStore?: CardToStore;
  /** Record only while the payment is in one of these states (an expiry must not overtake a charge in flight). */
  readonly onlyFrom?: readonly PaymentStatus[];
  /** The merchant charged a stored credential alone (a subscription's charge): no shopper can act on it. */
  readonly merchantInitiated?: boolean;
}

/** What the processor said, or the gateway's own refusal before asking it (risk, no connector). */
export type AuthorisationDecision = AuthoriseOutcome | { readonly status: 'refused'; readonly code: CodeName };

const code = (name: CodeName) => ({ resultCode: CODES[name].code, resultMessage: CODES[name].message });
const MAX_ATTEMPTS = 5;

/**
 * The authorise call's own outcome (/v1/authorise, an APM's start):
 * the hot path's one optimistic statement, writeOutcome, re-read and re-decided when another
 * writer got there first.
 */
export async function recordAuthorisation(
  deps: Pick<Deps, 'database' | 'vault' | 'clock' | 'wallClock' | 'config'>,
  context: AuthorisationContext,
  outcome: AuthorisationDecision,
): Promise<PaymentRow> {
  let payment = context.current ?? (await findPayment(deps.database.db, context.account.id, context.paymentId));
  // A payment that begins a subscription creates it with its approval, in one transaction: the
  // unit of work's path, not the hot path's single statement.
  if (payment && termsOf(payment)) return recordLaterOutcome(deps, context, outcome);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (!payment) throw new Error(`payment ${context.paymentId} not found`);
    const decision = decideOutcome(deps, payment, context, outcome);
    if ('answer' in decision) return decision.answer;
    const { move, next, token, event } = decision.change;
    const now = deps.clock.now();
    const write: OutcomeWrite = {
      move,
      next,
      ...checkTimes(deps, now),
      readVersion: payment.version,
      ledger: journalsFor(context.account, next, now).flatMap((journal) => journalRows(journal.kind, journal.entries, journal.key)),
      // A payment that begins a subscription never takes this path (above): it reports none.
      ...(event ? { event: { id: newEventId(), type: event, payload: paymentEventPayload(event, next, null) } } : {}),
      ...(token ? { token } : {}),
    };
    const written = await writeOutcome(deps.database, write);
    if (written) return written;
    payment = await findPayment(deps.database.db, context.account.id, context.paymentId);
  }
  throw new Error(`payment ${context.paymentId} kept changing while its outcome was recorded`);
}

/**
 * Every other outcome: 3-D Secure or APM completion, the hosted page's settled attempt, expiry of
 * an abandoned payment, the processor asked again about an unknown one. One unit of work under
 * the payment's row lock (src/db/unit-of-work.ts).
 */
export async function recordLaterOutcome(
  deps: Pick<Deps, 'database' | 'vault' | 'clock' | 'wallClock' | 'config'>,
  context: AuthorisationContext,
  outcome: AuthorisationDecision,
): Promise<PaymentRow> {
  const now = deps.clock.now();
  const recorded = await runUnitOfWork<PaymentRow, OutcomeChange, PaymentWithSubscription>(deps.database, {
    async lock(tx) {
      const payment = await lockPayment(tx, context.account.id, context.paymentId);
      if (!payment) throw new Error(`payment ${context.paymentId} not found`);
      return payment;
    },
    check(payment) {
      const decision = decideOutcome(deps, payment, context, outcome);
      return 'answer' in decision ? { answer: { payment: decision.answer, subscription: null } } : decision;
    },
    async change(tx, { move, next, token, dropToken }) {
      if (token) await insertCardToken(tx, context.account.id, token);
      if (dropToken) await deleteCardToken(tx, context.account.id, dropToken);
      const { id: _id, accountId: _account, status: _status, version: _version, nextCheckAt: _next, heldSince: _held, createdAt: _created, updatedAt: _updated, ...columns } = next;
      const at = { ...checkTimes(deps, now), heldSince: holdStartOf(outcome, next.createdAt, now) };
      return openOnApproval(tx, now, move, await transitionPayment(tx, next.id, move, at, columns));
    },
    journal: (_change, { payment }) => journalsFor(context.account, payment, now),
    event: ({ event }, { payment, subscription }) =>
      event ? { accountId: payment.accountId, type: event, paymentId: payment.id, payload: paymentEventPayload(event, payment, subscription), notifyUrl: payment.notifyUrl } : undefined,
  });
  return recorded.payment;
}

/**
 * When the hold an approval learned late began: the processor's own time for it where it says
 * (a lost answer asked about at the payment's deadline comes long after it), never before the
 * payment was created nor after now (a processor's clock is not ours); now otherwise.
 */
function holdStartOf(outcome: AuthorisationDecision, createdAt: Date, now: Date): Date {
  if (outcome.status !== 'approved' || outcome.authorisedAt === undefined) return now;
  return new Date(Math.min(now.getTime(), Math.max(createdAt.getTime(), outcome.authorisedAt.getTime())));
}

/** What an outcome changes on the payment as read, or the payment as it is when there is nothing to record. */
interface OutcomeChange {
  readonly move: Transition<PaymentStatus>;
  readonly next: PaymentRow;
  readonly token?: SealedCard;
  /** The card token the payment kept for its subscription, to remove from the vault: the payment failed. */
  readonly dropToken?: string;
  readonly event?: PaymentEventType;
}

type SealedCard = NonNullable<OutcomeWrite['token']>;

function decideOutcome(
  deps: Pick<Deps, 'vault'>,
  payment: PaymentRow,
  context: AuthorisationContext,
  outcome: AuthorisationDecision,
): Decision<OutcomeChange, PaymentRow> {
  if (context.onlyFrom && !context.onlyFrom.includes(payment.status)) return { answer: payment };
  const change = changeFor(payment, context, outcome);
  // Another path (the sweeper, a 3-D Secure return) may have recorded an outcome first.
  if (change.status !== payment.status && !canMove(payment.status, change.status)) return { answer: payment };
  if (change.status === payment.status && payment.status !== 'processing' && payment.resultCode) return { answer: payment };
  const move = change.status === payment.status ? PAYMENT_MACHINE.stay(payment.status) : PAYMENT_MACHINE.move(payment.status, change.status);
  const next = { ...payment, ...change } as PaymentRow;
  // The card is kept when the payment is approved; a payment that begins a subscription keeps it
  // already when a challenge is required, or when the processor's answer is pending (a timeout):
  // the card number is gone by the time the challenge ends or the approval is learnt, and a
  // subscription without its card could never be opened (openOnApproval).
  const awaitsOutcome = (outcome.status === 'action_required' && outcome.action === 'authenticate') || outcome.status === 'pending';
  const keepsCard = outcome.status === 'approved' || (awaitsOutcome && termsOf(payment) !== undefined);
  const token = context.cardToStore && keepsCard && !payment.tokenId ? sealCard(deps, context.cardToStore) : undefined;
  if (token) next.tokenId = token.id;
  // A card kept for a subscription before its outcome was known, whose payment then failed (the
  // challenge failed or was abandoned, the processor declined): no subscription will charge it,
  // so it leaves the vault, and the failure reports no token_id (docs/subscriptions.md).
  const dropToken = next.status === 'failed' && keptForSubscription(payment) ? payment.tokenId! : undefined;
  if (dropToken) next.tokenId = null;
  const event = eventFor(next.status as PaymentStatus);
  return { change: { move, next, ...(token ? { token } : {}), ...(dropToken ? { dropToken } : {}), ...(event ? { event } : {}) } };
}

/**
 * Whether the payment's token is the card it kept itself for the subscription it would begin: a
 * payment that charged a stored card (token_id) names that token in its request instead.
 */
export function keptForSubscription(payment: PaymentRow): boolean {
  return payment.tokenId !== null && termsOf(payment) !== undefined && (payment.request as { token_id?: unknown }).token_id !== payment.tokenId;
}

type Change = Partial<PaymentRow> & { status: PaymentStatus };

function changeFor(payment: PaymentRow, context: AuthorisationContext, outcome: AuthorisationDecision): Change {
  const risk = context.risk
    ? { riskScore: context.risk.score, riskAction: context.risk.action, riskReasons: [...context.risk.reasons] }
    : {};
  switch (outcome.status) {
    case 'approved': {
      const threeds = outcome.threeDS ? { threedsResult: outcome.threeDS } : {};
      const network = outcome.networkTransactionId ? { networkTransactionId: outcome.networkTransactionId } : {};
      const base = { ...risk, ...threeds, ...network, connectorReference: outcome.reference, actionUrl: null };
      if (context.risk?.action === 'review') return { ...base, status: 'pending_review', ...code('review_pending') };
      if (outcome.captured) return { ...base, status: 'captured', capturedAmount: payment.amount, ...code('success') };
      return { ...base, status: 'authorised', ...code('success') };
    }
    case 'declined':
      return {
        ...risk,
        status: 'failed',
        connectorReference: outcome.reference ?? payment.connectorReference,
        actionUrl: null,
        ...(outcome.threeDS ? { threedsResult: outcome.threeDS } : {}),
        ...code(DECLINE_CODES[outcome.reason]),
      };
    case 'action_required':
      // A merchant-initiated charge has no shopper to authenticate or follow a redirect: waiting
      // for one would only fail it as abandoned much later. Nothing is charged before the shopper
      // acts, so it fails at once, a decline (2011) the subscription's dunning retries.
      if (context.merchantInitiated) return { ...risk, status: 'failed', connectorReference: outcome.reference, actionUrl: null, ...code('shopper_not_present') };
      // The shopper is sent to this URL (by the hosted page, or by the merchant, as redirect_url):
      // an absolute http(s) one or none. Anything else is the connector's fault, and nothing is
      // charged before the shopper acts, so the payment fails as a processor error (2008).
      if (!isHttpUrl(outcome.url)) return { ...risk, status: 'failed', connectorReference: outcome.reference, actionUrl: null, ...code('processor_error') };
      return {
        ...risk,
        status: outcome.action === 'authenticate' ? 'requires_authentication' : 'requires_redirect',
        connectorReference: outcome.reference,
        actionUrl: outcome.url,
        ...code(outcome.action === 'authenticate' ? 'authentication_required' : 'redirect_required'),
      };
    case 'pending':
      return { ...risk, status: 'processing', connectorReference: outcome.reference ?? payment.connectorReference, ...code('pending') };
    case 'refused':
      return { ...risk, status: 'failed', actionUrl: null, ...code(outcome.code) };
  }
}

function sealCard(deps: Pick<Deps, 'vault'>, card: CardToStore): SealedCard {
  const id = newId('TK');
  const sealed = deps.vault.seal(card.pan, id);
  return {
    id,
    ciphertext: sealed.ciphertext,
    vaultKeyId: sealed.keyId,
    brand: card.brand,
    bin: card.pan.slice(0, 6),
    last4: card.pan.slice(-4),
    length: card.pan.length,
    expiryMonth: card.expiryMonth,
    expiryYear: card.expiryYear,
    fingerprint: card.fingerprint,
  };
}

/** The journal of the state just reached: a hold when authorised, the capture (and fee) when captured. */
function journalsFor(account: AccountRow, payment: PaymentRow, at: Date): Journal[] {
  const journal = { key: payment.id, accountId: account.id, currency: payment.currency, paymentId: payment.id, at };
  if (payment.status === 'authorised' || payment.status === 'pending_review') return [{ ...journal, kind: 'authorisation', entries: holdEntries(payment.amount) }];
  if (payment.status === 'captured') {
    return [
      { ...journal, kind: 'capture', entries: captureEntries(payment.capturedAmount) },
      { ...journal, kind: 'fee', entries: feeEntries(feeOf(payment.capturedAmount, payment.currency, account)) },
    ];
  }
  return [];
}

function eventFor(status: PaymentStatus): PaymentEventType | undefined {
  switch (status) {
    case 'authorised':
      return 'payment.authorised';
    case 'captured':
      return 'payment.captured';
    case 'pending_review':
      return 'payment.review';
    case 'failed':
      return 'payment.failed';
    default:
      return undefined;
  }
}
