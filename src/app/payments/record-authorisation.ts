// Records what the processor said about an authorisation: the payment's new state, its ledger
// journal, the stored card and the merchant's event, in one atomic statement. Used by every path
// that learns an outcome: the authorise call itself, 3-D Secure and APM completion, and the
// sweeper that asks the processor about payments whose outcome was unknown. Writers decide from
// the row as read and write only if nobody changed it since (its version); a loser re-reads and
// decides again, so two paths learning the same outcome record it once.
import type { AuthoriseOutcome, DeclineReason } from '../../connectors/port.ts';
import { CODES, type CodeName } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { captureEntries, feeEntries, feeOf, holdEntries } from '../../domain/ledger.ts';
import { canMove, PAYMENT_MACHINE, type PaymentStatus } from '../../domain/payment.ts';
import type { RiskDecision } from '../../domain/risk.ts';
import { journalRows, type JournalRow } from '../../db/repositories/ledger.ts';
import { findPayment, writeOutcome, type OutcomeWrite } from '../../db/repositories/payments.ts';
import type { AccountRow, PaymentRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import { paymentEventPayload, type PaymentEventType } from './events.ts';

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
}

/** What the processor said, or the gateway's own refusal before asking it (risk, no connector). */
export type AuthorisationDecision = AuthoriseOutcome | { readonly status: 'refused'; readonly code: CodeName };

const code = (name: CodeName) => ({ resultCode: CODES[name].code, resultMessage: CODES[name].message });
const MAX_ATTEMPTS = 5;

export async function recordAuthorisation(
  deps: Pick<Deps, 'database' | 'vault' | 'clock'>,
  context: AuthorisationContext,
  outcome: AuthorisationDecision,
): Promise<PaymentRow> {
  let payment = context.current ?? (await findPayment(deps.database.db, context.account.id, context.paymentId));
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (!payment) throw new Error(`payment ${context.paymentId} not found`);
    if (context.onlyFrom && !context.onlyFrom.includes(payment.status)) return payment;
    const change = changeFor(payment, context, outcome);
    // Another path (the sweeper, a 3-D Secure return) may have recorded an outcome first.
    if (change.status !== payment.status && !canMove(payment.status, change.status)) return payment;
    if (change.status === payment.status && payment.status !== 'processing' && payment.resultCode) return payment;
    const move = change.status === payment.status ? PAYMENT_MACHINE.stay(payment.status) : PAYMENT_MACHINE.move(payment.status, change.status);

    const next = { ...payment, ...change } as PaymentRow;
    const token = context.cardToStore && outcome.status === 'approved' ? sealCard(deps, context.cardToStore) : undefined;
    if (token) next.tokenId = token.id;
    const eventType = eventFor(next.status as PaymentStatus);
    const write: OutcomeWrite = {
      move,
      next,
      now: deps.clock.now(),
      readVersion: payment.version,
      ledger: journalsFor(context.account, next),
      ...(eventType ? { event: { id: newId('EV'), type: eventType, payload: paymentEventPayload(eventType, next) } } : {}),
      ...(token ? { token } : {}),
    };
    const written = await writeOutcome(deps.database, write);
    if (written) return written;
    payment = await findPayment(deps.database.db, context.account.id, context.paymentId);
  }
  throw new Error(`payment ${context.paymentId} kept changing while its outcome was recorded`);
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

function sealCard(deps: Pick<Deps, 'vault'>, card: CardToStore): NonNullable<OutcomeWrite['token']> {
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
function journalsFor(account: AccountRow, payment: PaymentRow): JournalRow[] {
  if (payment.status === 'authorised' || payment.status === 'pending_review') return journalRows('authorisation', holdEntries(payment.amount), payment.id);
  if (payment.status === 'captured') {
    return [
      ...journalRows('capture', captureEntries(payment.capturedAmount), payment.id),
      ...journalRows('fee', feeEntries(feeOf(payment.capturedAmount, payment.currency, account)), payment.id),
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
