// Records what the processor said about an authorisation: the payment's new state, its ledger
// journal, the stored card and the merchant's event, all in one transaction. Used by every path
// that learns an outcome: the authorise call itself, 3-D Secure and APM completion, and the
// sweeper that asks the processor about payments whose outcome was unknown.
import type { AuthoriseOutcome, DeclineReason } from '../../connectors/port.ts';
import { CODES, type CodeName } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { captureEntries, feeEntries, feeFor, holdEntries } from '../../domain/ledger.ts';
import { canMove, type PaymentStatus } from '../../domain/payment.ts';
import type { RiskDecision } from '../../domain/risk.ts';
import type { Tx } from '../../db/client.ts';
import { recordEvent } from '../../db/repositories/events.ts';
import { postJournal } from '../../db/repositories/ledger.ts';
import { lockPayment, updatePayment, type NewPayment } from '../../db/repositories/payments.ts';
import { insertToken } from '../../db/repositories/tokens.ts';
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
  /** A `review` decision holds an approved payment for /v1/review instead of capturing it. */
  readonly risk?: RiskDecision;
  readonly cardToStore?: CardToStore;
  /** Record only while the payment is in one of these states (an expiry must not overtake a charge in flight). */
  readonly onlyFrom?: readonly PaymentStatus[];
}

const code = (name: CodeName) => ({ resultCode: CODES[name].code, resultMessage: CODES[name].message });

/** What the processor said, or the gateway's own refusal before asking it (risk, no connector). */
export type AuthorisationDecision = AuthoriseOutcome | { readonly status: 'refused'; readonly code: CodeName };

export async function recordAuthorisation(
  deps: Pick<Deps, 'database' | 'vault'>,
  context: AuthorisationContext,
  outcome: AuthorisationDecision,
): Promise<PaymentRow> {
  return deps.database.db.transaction(async (tx) => {
    const payment = await lockPayment(tx, context.account.id, context.paymentId);
    if (!payment) throw new Error(`payment ${context.paymentId} not found`);
    if (context.onlyFrom && !context.onlyFrom.includes(payment.status as PaymentStatus)) return payment;
    const change = changeFor(payment, context, outcome);
    // Another path (the sweeper, a 3-D Secure return) may have recorded an outcome first.
    if (change.status !== payment.status && !canMove(payment.status as PaymentStatus, change.status)) return payment;
    if (change.status === payment.status && payment.status !== 'processing' && payment.resultCode) return payment;

    let tokenId: string | undefined;
    if (context.cardToStore && outcome.status === 'approved') tokenId = await storeCard(tx, deps, context.account.id, context.cardToStore);
    const updated = await updatePayment(tx, payment.id, { ...change, ...(tokenId ? { tokenId } : {}) });
    await postMovement(tx, context.account, updated);
    const event = eventFor(updated.status as PaymentStatus);
    if (event) {
      await recordEvent(tx, {
        accountId: updated.accountId,
        type: event,
        paymentId: updated.id,
        payload: paymentEventPayload(event, updated),
        notifyUrl: updated.notifyUrl,
      });
    }
    return updated;
  });
}

type Change = Partial<NewPayment> & { status: PaymentStatus };

function changeFor(payment: PaymentRow, context: AuthorisationContext, outcome: AuthorisationDecision): Change {
  const risk = context.risk
    ? { riskScore: context.risk.score, riskAction: context.risk.action, riskReasons: [...context.risk.reasons] }
    : {};
  switch (outcome.status) {
    case 'approved': {
      const threeds = outcome.threeDS ? { threedsResult: outcome.threeDS } : {};
      const base = { ...risk, ...threeds, connectorReference: outcome.reference, actionUrl: null };
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

async function storeCard(tx: Tx, deps: Pick<Deps, 'vault'>, accountId: string, card: CardToStore): Promise<string> {
  const id = newId('TK');
  const sealed = deps.vault.seal(card.pan, id);
  await insertToken(tx, {
    id,
    accountId,
    panCiphertext: sealed.ciphertext,
    vaultKeyId: sealed.keyId,
    brand: card.brand,
    bin: card.pan.slice(0, 6),
    last4: card.pan.slice(-4),
    panLength: card.pan.length,
    expiryMonth: card.expiryMonth,
    expiryYear: card.expiryYear,
    fingerprint: card.fingerprint,
  });
  return id;
}

/** The journal of the state just reached: a hold when authorised, the capture when captured. */
async function postMovement(tx: Tx, account: AccountRow, payment: PaymentRow): Promise<void> {
  const journal = { accountId: account.id, currency: payment.currency, paymentId: payment.id };
  if (payment.status === 'authorised' || payment.status === 'pending_review') {
    await postJournal(tx, { ...journal, kind: 'authorisation', entries: holdEntries(payment.amount) });
  } else if (payment.status === 'captured') {
    await postJournal(tx, { ...journal, kind: 'capture', entries: captureEntries(payment.capturedAmount) });
    await postJournal(tx, { ...journal, kind: 'fee', entries: feeEntries(feeFor(payment.capturedAmount, account.feeBps)) });
  }
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
