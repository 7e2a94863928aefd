// The steps every authorisation shares, whatever started it (direct card, hosted page, APM):
// claim the order once, resolve the card, assess risk, call the processor outside any transaction.
// Each pipeline composes them and then records the outcome (recordAuthorisation).
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuthoriseOutcome, AuthoriseRequest, CardDetails, CardFacts, Connector, Initiator, StoredCredential } from '../../connectors/port.ts';
import { AppError } from '../../domain/errors.ts';
import { processorKeyOf } from '../../domain/payment.ts';
import { assessRisk, riskSettingsFor, type RiskDecision } from '../../domain/risk.ts';
import { findPaymentByOrderNo, type Claim } from '../../db/repositories/payments.ts';
import { riskRecord, type RiskProbe, type RiskRecord } from '../../db/repositories/risk.ts';
import { findToken, tokenApproved } from '../../db/repositories/tokens.ts';
import type { AccountRow, PaymentRow } from '../../db/schema.ts';
import { callConnector } from '../batch/calls-in-flight.ts';
import { credentialsFor } from '../merchants/connector.ts';
import type { Deps } from '../context.ts';
import type { AuthorisationContext, AuthorisationDecision, CardToStore } from '../payments/record-authorisation.ts';
import type { OrderDetails, PaymentSource } from '../payments/command.ts';


/**
 * Authorisations in flight in this process, so a concurrent twin here can wait on the first one;
 * a twin that reached another process finds the claimed row and polls it (existingOutcome).
 */
const inFlight = new Map<string, Promise<PaymentRow>>();

export interface ResolvedCard {
  readonly details: CardDetails;
  readonly brand: string;
  readonly fingerprint: string;
  readonly tokenId?: string;
}

/** How a pipeline claims its order: the insert (null when the order_no is taken) and what it claims. */
export interface OrderClaim {
  readonly orderNo: string;
  readonly requestFingerprint: string;
  insert(): Promise<PaymentRow | null>;
}

/**
 * Claims the order and runs `authorise` on the claim, once. When the order_no is already claimed,
 * the stored outcome instead (or 4009 when the fields differ).
 */
export async function claimOnce(
  deps: Deps,
  account: AccountRow,
  claim: OrderClaim,
  authorise: (claimed: PaymentRow) => Promise<PaymentRow>,
): Promise<PaymentRow> {
  const claimed = await claim.insert();
  if (!claimed) return existingOutcome(deps, account, claim.orderNo, claim.requestFingerprint);
  const flight = authorise(claimed);
  inFlight.set(claimed.id, flight);
  try {
    return await flight;
  } finally {
    inFlight.delete(claimed.id);
  }
}

const TWIN_WAIT_MS = 15_000;

/** The claim found the order_no taken: the order's stored outcome (storedOutcome). */
async function existingOutcome(deps: Deps, account: AccountRow, orderNo: string, requestFingerprint: string): Promise<PaymentRow> {
  const payment = await findPaymentByOrderNo(deps.database.db, account.id, orderNo);
  if (!payment) throw new Error(`order ${orderNo} claimed but not found`);
  return storedOutcome(deps, account, payment, requestFingerprint);
}

/**
 * A request a new order would be refused for (a date it names has passed: passedDate) may repeat
 * an order accepted before: then it is answered as any repeat (the stored outcome, or 4009 when
 * the fields differ); otherwise `refusal`, nothing stored. Only this refusal's path reads the
 * order: a valid request's authorisation costs no statement more.
 */
export async function repeatOrRefuse(deps: Deps, account: AccountRow, orderNo: string, requestFingerprint: string, refusal: AppError): Promise<PaymentRow> {
  const payment = await findPaymentByOrderNo(deps.database.db, account.id, orderNo);
  if (!payment) throw refusal;
  return storedOutcome(deps, account, payment, requestFingerprint);
}

/**
 * The order_no is already taken. Different fields: refused, the original untouched. Same
 * fields: the stored outcome, after waiting for a twin that is still talking to the processor.
 */
async function storedOutcome(deps: Deps, account: AccountRow, found: PaymentRow, requestFingerprint: string): Promise<PaymentRow> {
  let payment = found;
  const { orderNo } = payment;
  if (payment.requestFingerprint !== requestFingerprint) {
    throw new AppError('order_conflict', `order_no ${orderNo} was already used with different fields`, { field: 'order_no' });
  }
  const deadline = Date.now() + TWIN_WAIT_MS;
  // result_code stays empty from the claim until a first outcome is recorded.
  while (payment.status === 'processing' && payment.resultCode === null && Date.now() < deadline) {
    const flight = inFlight.get(payment.id);
    if (flight) return flight;
    await sleep(20);
    payment = (await findPaymentByOrderNo(deps.database.db, account.id, orderNo))!;
  }
  return payment;
}

export async function resolveCard(deps: Deps, account: AccountRow, source: PaymentSource): Promise<ResolvedCard> {
  if (source.kind === 'card') {
    const { card } = source;
    return {
      details: { pan: card.pan, expiryMonth: card.expiryMonth, expiryYear: card.expiryYear, securityCode: card.securityCode },
      brand: card.brand,
      fingerprint: deps.vault.fingerprint(card.pan),
    };
  }
  const token = await findToken(deps.database.db, account.id, source.tokenId);
  if (!token) throw new AppError('unknown_token', 'token_id is not known for this account', { field: 'token_id' });
  // The shopper's token_id: a card kept before its payment's outcome (a subscription's, through a
  // challenge) pays only once that payment was approved. Recurring charges follow an approval.
  if (source.kind === 'token' && !(await tokenApproved(deps.database.db, account.id, token))) {
    throw new AppError('unknown_token', 'token_id is not usable: the payment that stored the card was not approved', { field: 'token_id' });
  }
  const pan = deps.vault.open({ ciphertext: token.panCiphertext, keyId: token.vaultKeyId }, token.id);
  return {
    details: { pan, expiryMonth: token.expiryMonth, expiryYear: token.expiryYear },
    brand: token.brand,
    fingerprint: token.fingerprint,
    tokenId: token.id,
  };
}

/** The card as a claim records it: BIN, last four, length and fingerprint, never the number. */
export function cardClaim(card: ResolvedCard): { card: NonNullable<Claim['card']>; tokenId: string | null } {
  const pan = card.details.pan;
  return {
    card: { brand: card.brand, bin: pan.slice(0, 6), last4: pan.slice(-4), length: pan.length, fingerprint: card.fingerprint },
    tokenId: card.tokenId ?? null,
  };
}

export interface Decision {
  readonly context: AuthorisationContext;
  readonly outcome: AuthorisationDecision;
}

/**
 * How a card is charged, as the card networks require it flagged: who started the charge, and
 * whether it stores the card or charges a stored one (with the network's id of the first payment).
 */
export interface CardCharge {
  readonly initiator: Initiator;
  readonly storedCredential?: StoredCredential;
}

/** What the shopper pays with: a card (and how it is charged), or an APM with what its processor needs. */
export type Instrument =
  | { readonly card: ResolvedCard; readonly charge?: CardCharge }
  | { readonly paymentMethod: string; readonly methodData: Readonly<Record<string, unknown>>; readonly returnUrl: string };

/**
 * Risk, then the processor: what to record for a claimed payment. `facts` are the risk facts when
 * the claim already read them (the direct card payment); otherwise they are read here.
 */
export async function decide(
  deps: Deps,
  account: AccountRow,
  order: OrderDetails,
  payment: PaymentRow,
  instrument: Instrument,
  facts?: RiskRecord,
): Promise<Decision> {
  const card = 'card' in instrument ? instrument.card : undefined;
  const risk = assess(deps, account, order, card, facts ?? (await riskRecord(deps.database, riskProbe(deps, account, order, payment.id, card))));
  const context = {
    account,
    paymentId: payment.id,
    current: payment,
    risk,
    ...(card && order.storeCard && !card.tokenId ? { cardToStore: cardToStore(card) } : {}),
    ...('card' in instrument && instrument.charge?.initiator === 'merchant' ? { merchantInitiated: true } : {}),
  };
  if (risk.action === 'reject') return { context, outcome: { status: 'refused', code: 'risk_rejected' } };
  const connector = connectorOf(deps, account);
  if (!connector) return { context, outcome: { status: 'refused', code: 'processor_error' } };
  const outcome = await askToAuthorise(deps, connector, {
    paymentId: payment.id,
    // The attempt's own key (a hosted page's later attempts have theirs, written by their claim).
    idempotencyKey: processorKeyOf(payment),
    orderNo: order.orderNo,
    amount: order.amount,
    capture: account.captureMode === 'auto' && risk.action === 'accept',
    ...('card' in instrument
      ? { ...chargeFlags(order, instrument.card, instrument.charge), card: instrument.card.details, requestThreeDS: order.requestThreeDS, ...(order.authentication ? { authentication: order.authentication } : {}) }
      : { paymentMethod: instrument.paymentMethod, methodData: instrument.methodData, returnUrl: instrument.returnUrl }),
    shopper: shopperOf(order),
    // The account's own: the call goes to its connector. Opened from the row at hand (cached).
    credentials: credentialsFor(deps, account, account.connector),
  });
  return { context, outcome };
}

/** The connector's flags of a card charge: a card stored by this payment is its first use. */
function chargeFlags(order: OrderDetails, card: ResolvedCard, charge: CardCharge | undefined): Pick<AuthoriseRequest, 'initiator' | 'storedCredential'> {
  if (charge) return { initiator: charge.initiator, ...(charge.storedCredential ? { storedCredential: charge.storedCredential } : {}) };
  if (card.tokenId) return { initiator: 'shopper', storedCredential: { usage: 'subsequent' } };
  return { initiator: 'shopper', ...(order.storeCard ? { storedCredential: { usage: 'first' as const } } : {}) };
}

function connectorOf(deps: Deps, account: AccountRow): Connector | undefined {
  const connector = deps.connectors.get(account.connector);
  if (!connector) deps.log.error({ accountId: account.id, connector: account.connector }, 'no such connector in this mode');
  return connector;
}

function shopperOf(order: OrderDetails): AuthoriseRequest['shopper'] {
  return {
    ...(order.shopperEmail ? { email: order.shopperEmail } : {}),
    ...(order.shopperIp ? { ip: order.shopperIp } : {}),
    ...(order.billingCountry ? { country: order.billingCountry } : {}),
  };
}

/** The processor's answer; no clear answer is `pending`, never success. */
async function askToAuthorise(deps: Deps, connector: Connector, request: AuthoriseRequest): Promise<AuthoriseOutcome> {
  const result = await callConnector(deps, (signal) => connector.authorise({ ...request, signal }));
  if (result.ok) return result.value;
  // No clear answer: the charge may or may not exist. Pending until the processor says.
  deps.log.warn({ paymentId: request.paymentId, connector: connector.name, kind: result.error.kind }, 'authorisation outcome unknown');
  return { status: 'pending' };
}

/** What the account's acquirer knows of the card (its BIN tables); nothing when it says nothing. */
function cardFactsOf(deps: Deps, account: AccountRow, pan: string): CardFacts {
  return deps.connectors.get(account.connector)?.cardFacts?.(pan) ?? {};
}

/** What the risk rules need to look up for this order: velocity caps, blocklist keys. */
export function riskProbe(deps: Deps, account: AccountRow, order: OrderDetails, paymentId: string, card?: ResolvedCard): RiskProbe {
  const settings = riskSettingsFor(account.riskSettings);
  const pan = card?.details.pan;
  // Test cards keep their meaning under repeated test traffic (docs/api/authorise.md): no velocity.
  const countVelocity = !(deps.config.mode === 'sandbox' && pan !== undefined && cardFactsOf(deps, account, pan).testCard === true);
  return {
    accountId: account.id,
    paymentId,
    since: new Date(deps.clock.now().getTime() - settings.velocityWindowSeconds * 1000),
    ...(countVelocity
      ? { velocity: { cardCap: settings.velocityCard.limit, emailCap: settings.velocityEmail.limit, ipCap: settings.velocityIp.limit } }
      : {}),
    // Without a card (APM) the card and BIN match nothing, and the card velocity rule is skipped.
    card: card?.fingerprint ?? '',
    bin: pan?.slice(0, 8) ?? '',
    email: order.shopperEmail,
    ip: order.shopperIp,
    country: order.billingCountry,
  };
}

/** The risk decision from the facts; without a card (APM) the card rules are skipped. */
function assess(deps: Deps, account: AccountRow, order: OrderDetails, card: ResolvedCard | undefined, facts: RiskRecord): RiskDecision {
  const pan = card?.details.pan;
  const sandbox = deps.config.mode === 'sandbox';
  const { card: _cardVelocity, ...shopperVelocity } = facts.velocity;
  const velocity = card ? facts.velocity : shopperVelocity;
  const known: CardFacts = pan ? cardFactsOf(deps, account, pan) : {};
  const issuerCountry = known.issuerCountry;
  const sandboxCard = sandbox ? known.verdict : undefined;
  return assessRisk(
    {
      amount: order.amount,
      velocity,
      blocklistHits: facts.blocklistHits,
      ...(order.billingCountry ? { billingCountry: order.billingCountry } : {}),
      ...(issuerCountry ? { issuerCountry } : {}),
      ...(sandboxCard ? { sandboxCard } : {}),
    },
    riskSettingsFor(account.riskSettings),
  );
}

function cardToStore(card: ResolvedCard): CardToStore {
  return {
    pan: card.details.pan,
    brand: card.brand,
    expiryMonth: card.details.expiryMonth,
    expiryYear: card.details.expiryYear,
    fingerprint: card.fingerprint,
  };
}
