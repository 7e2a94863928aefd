// Direct card payment, as a pipeline: validate → resolve the card → claim the order → assess risk
// → call the processor (outside any transaction) → record the outcome.
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuthoriseOutcome, CardDetails, Connector } from '../../connectors/port.ts';
import { TEST_CARDS } from '../../connectors/simulator/cards.ts';
import { AppError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { assessRisk, issuerCountryOf, riskSettingsFor, SANDBOX_RISK_CARDS, type RiskDecision } from '../../domain/risk.ts';
import { canonicalString, type SignedBody } from '../../domain/signature.ts';
import { claimPayment, findPaymentByOrderNo, type Claim } from '../../db/repositories/payments.ts';
import { riskRecord } from '../../db/repositories/risk.ts';
import { findToken } from '../../db/repositories/tokens.ts';
import type { AccountRow, PaymentRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import { assertNotifyTarget } from '../notifications/target.ts';
import { recordAuthorisation, type CardToStore } from '../payments/record-authorisation.ts';
import { cardPaymentCommand, type CardPaymentBody, type CardPaymentCommand } from './request.ts';

/** Fields never kept with the stored request: the card group and the signature. */
const UNSTORED = new Set(['card', 'security_code', 'expiration_month', 'expiration_year', 'encryption_data', 'merchant_id', 'account_id']);
const TEST_CARD_NUMBERS = new Set(TEST_CARDS.map((card) => card.number));

/** Authorisations in flight in this process, so a concurrent twin can wait on the first one. */
const inFlight = new Map<string, Promise<PaymentRow>>();

interface ResolvedCard {
  readonly details: CardDetails;
  readonly brand: string;
  readonly fingerprint: string;
  readonly tokenId?: string;
}

export async function authoriseCard(deps: Deps, account: AccountRow, body: CardPaymentBody): Promise<PaymentRow> {
  const command = cardPaymentCommand(body, deps.clock.now());
  assertNotifyTarget(deps.config, command.notifyUrl, 'notify_url');
  const card = await resolveCard(deps, account, command);
  const requestFingerprint = fingerprintRequest(deps, body);

  const paymentId = newId('T', deps.clock.now().getTime());
  const claimed = await claimPayment(deps.database, claimFor(account, command, card, paymentId, requestFingerprint, body));
  if (!claimed) return existingOutcome(deps, account, command.orderNo, requestFingerprint);

  const flight = process(deps, account, command, card, claimed);
  inFlight.set(claimed.id, flight);
  try {
    return await flight;
  } finally {
    inFlight.delete(claimed.id);
  }
}

async function process(deps: Deps, account: AccountRow, command: CardPaymentCommand, card: ResolvedCard, payment: PaymentRow): Promise<PaymentRow> {
  const risk = await assess(deps, account, command, card, payment.id);
  const context = {
    account,
    paymentId: payment.id,
    current: payment,
    risk,
    ...(command.storeCard && !card.tokenId ? { cardToStore: cardToStore(card) } : {}),
  };
  if (risk.action === 'reject') return recordAuthorisation(deps, context, { status: 'refused', code: 'risk_rejected' });
  const connector = deps.connectors.get(account.connector);
  if (!connector) {
    deps.log.error({ accountId: account.id, connector: account.connector }, 'no such connector in this mode');
    return recordAuthorisation(deps, context, { status: 'refused', code: 'processor_error' });
  }
  return recordAuthorisation(deps, context, await callProcessor(deps, connector, account, command, card, payment, risk));
}

async function callProcessor(
  deps: Deps,
  connector: Connector,
  account: AccountRow,
  command: CardPaymentCommand,
  card: ResolvedCard,
  payment: PaymentRow,
  risk: RiskDecision,
): Promise<AuthoriseOutcome> {
  const result = await connector
    .authorise({
      paymentId: payment.id,
      orderNo: command.orderNo,
      amount: command.amount,
      capture: account.captureMode === 'auto' && risk.action === 'accept',
      card: card.details,
      requestThreeDS: command.requestThreeDS,
      ...(command.authentication ? { authentication: command.authentication } : {}),
      shopper: {
        ...(command.shopperEmail ? { email: command.shopperEmail } : {}),
        ...(command.shopperIp ? { ip: command.shopperIp } : {}),
        ...(command.billingCountry ? { country: command.billingCountry } : {}),
      },
    })
    .catch((error: unknown) => ({ ok: false as const, error: { kind: 'network' as const, message: String(error) } }));
  if (result.ok) return result.value;
  // No clear answer: the charge may or may not exist. Pending until the processor says.
  deps.log.warn({ paymentId: payment.id, connector: connector.name, kind: result.error.kind }, 'authorisation outcome unknown');
  return { status: 'pending' };
}

async function resolveCard(deps: Deps, account: AccountRow, command: CardPaymentCommand): Promise<ResolvedCard> {
  if (command.source.kind === 'card') {
    const { card } = command.source;
    return {
      details: { pan: card.pan, expiryMonth: card.expiryMonth, expiryYear: card.expiryYear, securityCode: card.securityCode },
      brand: card.brand,
      fingerprint: deps.vault.fingerprint(card.pan),
    };
  }
  const token = await findToken(deps.database.db, account.id, command.source.tokenId);
  if (!token) throw new AppError('unknown_token', 'token_id is not known for this account', { field: 'token_id' });
  const pan = deps.vault.open({ ciphertext: token.panCiphertext, keyId: token.vaultKeyId }, token.id);
  return {
    details: { pan, expiryMonth: token.expiryMonth, expiryYear: token.expiryYear },
    brand: token.brand,
    fingerprint: token.fingerprint,
    tokenId: token.id,
  };
}

/** Same order, same fields: the CVC is left out so that it is never kept, even as a digest. */
function fingerprintRequest(deps: Deps, body: CardPaymentBody): string {
  const { security_code: _cvc, ...rest } = body;
  return deps.vault.fingerprint(canonicalString(rest as SignedBody));
}

function claimFor(
  account: AccountRow,
  command: CardPaymentCommand,
  card: ResolvedCard,
  id: string,
  requestFingerprint: string,
  body: CardPaymentBody,
): Claim {
  const stored = Object.fromEntries(Object.entries(body).filter(([key]) => !UNSTORED.has(key)));
  const pan = card.details.pan;
  return {
    id,
    accountId: account.id,
    merchantId: account.merchantId,
    orderNo: command.orderNo,
    kind: 'card',
    paymentMethod: 'card',
    amount: command.amount.minor,
    currency: command.amount.currency,
    requestFingerprint,
    request: stored,
    card: { brand: card.brand, bin: pan.slice(0, 6), last4: pan.slice(-4), length: pan.length, fingerprint: card.fingerprint },
    tokenId: card.tokenId ?? null,
    shopperEmail: command.shopperEmail ?? null,
    shopperIp: command.shopperIp ?? null,
    notifyUrl: command.notifyUrl ?? null,
    connector: account.connector,
  };
}

const TWIN_WAIT_MS = 15_000;

/**
 * The order_no is already claimed. Different fields: refused, the original untouched. Same
 * fields: the stored outcome, after waiting for a twin that is still talking to the processor.
 */
async function existingOutcome(deps: Deps, account: AccountRow, orderNo: string, requestFingerprint: string): Promise<PaymentRow> {
  let payment = await findPaymentByOrderNo(deps.database.db, account.id, orderNo);
  if (!payment) throw new Error(`order ${orderNo} claimed but not found`);
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

async function assess(deps: Deps, account: AccountRow, command: CardPaymentCommand, card: ResolvedCard, paymentId: string): Promise<RiskDecision> {
  const settings = riskSettingsFor(account.riskSettings);
  const pan = card.details.pan;
  const sandbox = deps.config.mode === 'sandbox';
  // Test cards keep their meaning under repeated test traffic (decisions §5): no velocity.
  const countVelocity = !(sandbox && TEST_CARD_NUMBERS.has(pan));
  const facts = await riskRecord(deps.database, {
    accountId: account.id,
    paymentId,
    since: new Date(deps.clock.now().getTime() - settings.velocityWindowSeconds * 1000),
    ...(countVelocity
      ? { velocity: { cardCap: settings.velocityCard.limit, emailCap: settings.velocityEmail.limit, ipCap: settings.velocityIp.limit } }
      : {}),
    card: card.fingerprint,
    bin: pan.slice(0, 6),
    email: command.shopperEmail,
    ip: command.shopperIp,
    country: command.billingCountry,
  });
  const issuerCountry = issuerCountryOf(pan.slice(0, 6));
  const sandboxCard = sandbox ? SANDBOX_RISK_CARDS.get(pan) : undefined;
  return assessRisk(
    {
      amount: command.amount,
      velocity: facts.velocity,
      blocklistHits: facts.blocklistHits,
      ...(command.billingCountry ? { billingCountry: command.billingCountry } : {}),
      ...(issuerCountry ? { issuerCountry } : {}),
      ...(sandboxCard ? { sandboxCard } : {}),
    },
    settings,
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
