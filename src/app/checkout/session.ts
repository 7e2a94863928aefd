// A hosted-page session: created by the merchant's signed /v1/checkout request together with the
// payment's claim, opened once by the shopper's browser with the hand-off's signInfo, then used
// through a page URL whose token only that browser received.
//
// signInfo = "<session id>.<expiry, Unix seconds>.<MAC>", the MAC made with a gateway key (the
// Vault's, per purpose). It expires HANDOFF_TTL_MS after the session was created and opens the page
// once: the first hand-off POST marks the session, any later one is a replay.
import { AppError, CODES } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { sameSecret } from '../../domain/signature.ts';
import { claimWaitingPayment, findSession, findSessionOfPayment, insertSession, markHandedOff } from '../../db/repositories/checkout.ts';
import { findPaymentByOrderNo, type NewPayment } from '../../db/repositories/payments.ts';
import type { AccountRow, CheckoutSessionRow, PaymentRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import { assertNotifyTarget } from '../notifications/target.ts';
import type { OrderDetails, OrderRecord } from '../payments/command.ts';
import { checkTimes } from '../clock/check-times.ts';
import { passedDate } from '../payments/passed-date.ts';

/** How long the hand-off page may wait before the shopper's browser posts it. */
export const HANDOFF_TTL_MS = 30 * 60_000;
/** How long the shopper has to pay once the session exists; then the payment is abandoned (2009). */
export const SESSION_TTL_MS = 60 * 60_000;

/** A hosted-page order, built by its adapter (src/http/requests/checkout.ts parses /v1/checkout into one). */
export interface CheckoutCommand {
  readonly order: OrderDetails;
  /** Absent: the hosted page shows the outcome itself (src/app/checkout/page-state.ts). */
  readonly returnUrl?: string;
  readonly cancelUrl?: string;
  /** CSP host-sources that may frame the hosted page. */
  readonly frameAncestors: readonly string[];
  /** What the payment keeps of the order (echoed on the page and in answers). */
  readonly record: OrderRecord;
  /** What makes a repeat of this order the same request (see CardPaymentCommand.identity). */
  readonly identity: string;
}

export interface CheckoutSession {
  readonly session: CheckoutSessionRow;
  readonly payment: PaymentRow;
}

/**
 * Claims the order and creates its session, in one transaction. The same order_no with the same
 * fields finds the same session (and so the same hand-off), also once the subscription's
 * contract_end has passed (only a new order is refused for it); with other fields it is refused.
 */
export async function createCheckout(deps: Deps, account: AccountRow, command: CheckoutCommand): Promise<CheckoutSession> {
  const now = deps.clock.now();
  assertNotifyTarget(deps.config, command.order.notifyUrl, 'notify_url');
  const requestFingerprint = deps.vault.fingerprint(command.identity);
  const { order } = command;
  const row: NewPayment = {
    id: newId('T', now.getTime()),
    accountId: account.id,
    merchantId: account.merchantId,
    orderNo: order.orderNo,
    kind: 'checkout',
    paymentMethod: 'card',
    status: 'requires_redirect',
    amount: order.amount.minor,
    currency: order.amount.currency,
    requestFingerprint,
    request: command.record,
    shopperEmail: order.shopperEmail ?? null,
    shopperIp: order.shopperIp ?? null,
    notifyUrl: order.notifyUrl ?? null,
    connector: account.connector,
    resultCode: CODES.awaiting_shopper.code,
    resultMessage: CODES.awaiting_shopper.message,
    expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
  };
  // A contract_end that has passed refuses a new order only; a repeat finds its session below.
  const passed = passedDate(order, undefined, now);
  const created = passed ? null : await deps.database.db.transaction(async (tx) => {
    const payment = await claimWaitingPayment(tx, row, checkTimes(deps, now));
    if (!payment) return null;
    const session = await insertSession(tx, {
      id: newId('CS', now.getTime()),
      accountId: account.id,
      paymentId: payment.id,
      handoffExpiresAt: new Date(now.getTime() + HANDOFF_TTL_MS),
    });
    return { session, payment };
  });
  if (created) return created;

  const payment = await findPaymentByOrderNo(deps.database.db, account.id, order.orderNo);
  if (!payment && passed) throw passed;
  if (!payment || payment.requestFingerprint !== requestFingerprint) {
    throw new AppError('order_conflict', `order_no ${order.orderNo} was already used with different fields`, { field: 'order_no' });
  }
  const session = await findSessionOfPayment(deps.database.db, payment.id);
  if (!session) throw new Error(`checkout payment ${payment.id} has no session`);
  return { session, payment };
}

/**
 * The session a refused request repeats, when its order was recorded with the same fields: the
 * request's adapter refused it by a check that did not refuse the original (a storefront domain
 * removed from the account since, say), and the retry of an accepted order is answered with its
 * session, as a repeat sent after its contract_end is. Null when there is none, and the refusal
 * stands.
 */
export async function recordedCheckout(deps: Deps, account: AccountRow, orderNo: string, identity: string): Promise<CheckoutSession | null> {
  const payment = await findPaymentByOrderNo(deps.database.db, account.id, orderNo);
  if (!payment || payment.kind !== 'checkout' || payment.requestFingerprint !== deps.vault.fingerprint(identity)) return null;
  const session = await findSessionOfPayment(deps.database.db, payment.id);
  return session ? { session, payment } : null;
}

export function signInfoOf(deps: Pick<Deps, 'vault'>, session: CheckoutSessionRow): string {
  const claim = `${session.id}.${Math.floor(session.handoffExpiresAt.getTime() / 1000)}`;
  return `${claim}.${deps.vault.mac('checkout-handoff', claim)}`;
}

export type HandOff =
  | { readonly ok: true; readonly session: CheckoutSessionRow; readonly pageToken: string }
  | { readonly ok: false; readonly reason: 'forged' | 'expired' | 'replayed' };

/** The shopper's browser posts the hand-off: checks signInfo and opens the session, once. */
export async function openHandOff(deps: Deps, signInfo: string): Promise<HandOff> {
  const parts = /^(CS[0-9A-Z]{26})\.([0-9]{1,12})\.([A-Za-z0-9_-]{43})$/.exec(signInfo);
  if (!parts || !sameSecret(deps.vault.mac('checkout-handoff', `${parts[1]}.${parts[2]}`), parts[3]!)) return { ok: false, reason: 'forged' };
  const now = deps.clock.now();
  if (Number(parts[2]) * 1000 <= now.getTime()) return { ok: false, reason: 'expired' };
  const opened = await markHandedOff(deps.database.db, parts[1]!, now);
  if (opened) return { ok: true, session: opened, pageToken: pageTokenOf(deps, opened) };
  return (await findSession(deps.database.db, parts[1]!)) ? { ok: false, reason: 'replayed' } : { ok: false, reason: 'forged' };
}

/** The session a page URL names, when its token is the one its hand-off gave. */
export async function sessionOfPage(deps: Deps, sessionId: string, token: string): Promise<CheckoutSessionRow | null> {
  if (!/^CS[0-9A-Z]{26}$/.test(sessionId)) return null;
  const session = await findSession(deps.database.db, sessionId);
  if (!session?.handedOffAt || !sameSecret(pageTokenOf(deps, session), token)) return null;
  return session;
}

/** Derived, not stored: a MAC of the session and the moment of its one hand-off. */
export function pageTokenOf(deps: Pick<Deps, 'vault'>, session: CheckoutSessionRow): string {
  if (!session.handedOffAt) throw new Error(`session ${session.id} was not handed off`);
  return deps.vault.mac('checkout-page', `${session.id}.${session.handedOffAt.getTime()}`);
}

export function pageUrlOf(deps: Pick<Deps, 'vault' | 'config'>, session: CheckoutSessionRow): string {
  return `${deps.config.baseUrl}/checkout/${session.id}/${pageTokenOf(deps, session)}`;
}
