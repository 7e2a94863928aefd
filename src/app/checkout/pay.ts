// The hosted page's card form, posted: check what the shopper typed → claim the attempt (the
// payment moves from waiting to processing, so a second submit finds it taken) → the same risk
// and processor steps as a direct payment → settle the attempt. The card lives only in memory:
// the row keeps its BIN, last four and fingerprint, as for /v1/authorise.
import { checkCard, isCardProblem, type CheckedCard } from '../../domain/card.ts';
import { CARD_DASHES } from '../../domain/card-in-text.ts';
import { accountById, countAttempt, lockPaymentById } from '../../db/repositories/checkout.ts';
import { transitionPayment } from '../../db/repositories/payments.ts';
import { attemptKey, PAYMENT_MACHINE } from '../../domain/payment.ts';
import type { CheckoutSessionRow, PaymentRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import { cardClaim, decide, resolveCard, type ResolvedCard } from '../authorise/steps.ts';
import { keptForSubscription, recordLaterOutcome } from '../payments/record-authorisation.ts';
import { deleteCardToken } from '../../db/repositories/tokens.ts';
import { orderOf, settleAttempt } from './attempt.ts';
import { checkTimes } from '../clock/check-times.ts';

export type CardField = 'holder' | 'number' | 'expiry' | 'cvc';
/** Why a field was refused; `cvc3`/`cvc4` say how many digits the card's code has. */
export type FieldProblem = 'holder' | 'number' | 'expiry' | 'expired' | 'cvc3' | 'cvc4';

export type PayResult =
  | { readonly kind: 'invalid'; readonly problems: Partial<Record<CardField, FieldProblem>>; readonly holderName: string }
  | { readonly kind: 'settled'; readonly payment: PaymentRow }
  /** Not waiting for a card (another submit is in flight, or the payment has its outcome). */
  | { readonly kind: 'taken'; readonly payment: PaymentRow };

export interface CardForm {
  readonly holder_name?: unknown;
  readonly card_number?: unknown;
  readonly expiry?: unknown;
  readonly security_code?: unknown;
}

export async function payWithCard(deps: Deps, session: CheckoutSessionRow, form: CardForm): Promise<PayResult> {
  const now = deps.clock.now();
  const checked = checkForm(form, now);
  if ('problems' in checked) return { kind: 'invalid', problems: checked.problems, holderName: checked.holderName };

  const account = await accountById(deps.database.db, session.accountId);
  if (!account) throw new Error(`account ${session.accountId} not found`);
  const resolved = await resolveCard(deps, account, { kind: 'card', card: checked.card });
  const card = { ...resolved, details: { ...resolved.details, holderName: checked.holderName } };

  const claim = await deps.database.db.transaction(async (tx): Promise<{ state: 'taken' | 'expired' | 'claimed'; payment: PaymentRow }> => {
    const payment = await lockPaymentById(tx, session.paymentId);
    if (!payment) throw new Error(`payment ${session.paymentId} of session ${session.id} not found`);
    if (payment.status !== 'requires_redirect') return { state: 'taken', payment };
    if (payment.expiresAt && payment.expiresAt <= now) return { state: 'expired', payment };
    const attempt = await countAttempt(tx, session.id);
    // The card an earlier attempt kept for the subscription, refused since: no subscription will charge it.
    if (keptForSubscription(payment)) await deleteCardToken(tx, payment.accountId, payment.tokenId!);
    // A new attempt, with its own card: a 3-D Secure result of an earlier one (a failed challenge)
    // is not this attempt's, and stays only if this attempt brings one of its own.
    // Each attempt is a charge of its own at the processor, under its own idempotency key: the
    // first attempt's key again would get the first attempt's answer (docs/connectors.md). It
    // starts with no reference: an earlier attempt's would name that charge to a later status
    // query (an unknown outcome's) and to its recorded outcome.
    const columns = { ...cardColumns(card), threedsResult: null, processorKey: attemptKey(payment.id, attempt), connectorReference: null };
    return { state: 'claimed', payment: await transitionPayment(tx, payment.id, PAYMENT_MACHINE.move(payment.status, 'processing'), checkTimes(deps, now), columns) };
  });
  if (claim.state === 'taken') return { kind: 'taken', payment: claim.payment };
  if (claim.state === 'expired') return { kind: 'taken', payment: await abandon(deps, claim.payment) };

  const { context, outcome } = await decide(deps, account, orderOf(claim.payment, now), claim.payment, { card });
  return { kind: 'settled', payment: await settleAttempt(deps, session.id, context, outcome) };
}

/** The shopper cancelled, or let the page expire: the payment fails as abandoned (2009). */
export async function abandon(deps: Deps, payment: PaymentRow): Promise<PaymentRow> {
  const account = await accountById(deps.database.db, payment.accountId);
  if (!account) throw new Error(`account ${payment.accountId} not found`);
  return recordLaterOutcome(
    deps,
    { account, paymentId: payment.id, onlyFrom: ['requires_redirect'] },
    { status: 'declined', reason: 'abandoned' },
  );
}

// A name holds no card number, however it is spaced ("4242 4242 4242 4242" typed in the wrong
// field, "4242–4242…" with en dashes, minus signs or the "ー" Japanese input methods type for "-")
// or written (full-width "４２４２", as a Chinese or Japanese input method types digits, Arabic-Indic
// "٤٢٤٢", Devanagari "४२४२", any script's decimal digits): six digits in all, separators aside, are
// refused, so none reaches the processor as the cardholder's name or comes back on the page.
const CARD_DIGITS = new RegExp(`(?:\\p{Nd}[\\s.${CARD_DASHES}]*){6}`, 'u');

/**
 * The card's fields as the shopper's own digits: NFKC turns full-width digits, spaces and slashes
 * (an input method's "４１１１ １１１１", "１２／３０") into ASCII ones, which the checks read.
 */
function asciiForm(text: string): string {
  return text.normalize('NFKC');
}

function checkForm(
  form: CardForm,
  now: Date,
): { card: CheckedCard; holderName: string } | { problems: Partial<Record<CardField, FieldProblem>>; holderName: string } {
  const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
  const digits = (value: unknown) => asciiForm(text(value)).trim();
  const problems: Partial<Record<CardField, FieldProblem>> = {};
  const holderName = text(form.holder_name).replace(/\s+/g, ' ');
  if (holderName.length === 0 || holderName.length > 64 || CARD_DIGITS.test(asciiForm(holderName))) problems.holder = 'holder';
  const expiry = /^(\d{1,2})\s*\/?\s*(\d{2}|\d{4})$/.exec(digits(form.expiry));
  const checked = checkCard(
    {
      number: digits(form.card_number),
      expiryMonth: expiry?.[1] ?? '',
      expiryYear: expiry ? (expiry[2]!.length === 2 ? `20${expiry[2]}` : expiry[2]!) : '',
      securityCode: digits(form.security_code),
    },
    now,
  );
  if (isCardProblem(checked)) {
    if (checked.field === 'card') problems.number = 'number';
    // The card checks say, in their detail, how many digits the code has and whether the date is past.
    else if (checked.field === 'security_code') problems.cvc = /\b4 digits\b/.test(checked.detail) ? 'cvc4' : 'cvc3';
    else problems.expiry = /expired/.test(checked.detail) ? 'expired' : 'expiry';
  }
  if (isCardProblem(checked) || Object.keys(problems).length > 0) return { problems, holderName: problems.holder ? '' : holderName };
  return { card: checked, holderName };
}

/** The card columns of this attempt: BIN, last four, length and fingerprint, never the number. */
function cardColumns(card: ResolvedCard) {
  const { card: claimed, tokenId } = cardClaim(card);
  return {
    cardBrand: claimed.brand,
    cardBin: claimed.bin,
    cardLast4: claimed.last4,
    cardLength: claimed.length,
    cardFingerprint: claimed.fingerprint,
    tokenId,
  };
}
