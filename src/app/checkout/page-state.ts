// What the hosted page URL shows, from the payment's state: the card form while it waits for the
// shopper, a short wait while an attempt is with the processor, the 3-D Secure challenge, or the
// way back to the merchant once there is an outcome (or, when the merchant gave no return_url,
// the outcome itself). Every step of the flow comes back here.
import { CODES } from '../../domain/errors.ts';
import { parseAmount, type Money } from '../../domain/money.ts';
import { orderStatus, type PaymentStatus } from '../../domain/payment.ts';
import { accountById, merchantName, paymentById } from '../../db/repositories/checkout.ts';
import type { AccountRow, CheckoutSessionRow, PaymentRow } from '../../db/schema.ts';
import type { AccountDirectory } from '../accounts/directory.ts';
import type { Deps } from '../context.ts';
import { MAX_ATTEMPTS } from './attempt.ts';
import { abandon } from './pay.ts';
import { frameAncestors } from './frame-ancestors.ts';
import { returnUrlOf } from './return-to-merchant.ts';

export interface OrderLine {
  readonly name: string;
  readonly quantity: number;
  /** Line total in minor units, when the request priced it. */
  readonly amount?: number;
}

export interface HostedOrder {
  readonly account: AccountRow;
  readonly payment: PaymentRow;
  readonly merchantName: string;
  readonly lines: readonly OrderLine[];
  readonly breakdown: readonly { readonly label: 'subtotal' | 'shipping' | 'tax' | 'discount'; readonly minor: number }[];
  readonly total: Money;
  readonly frameAncestors: readonly string[];
  readonly request: Readonly<Record<string, unknown>>;
}

/**
 * What the shopper is told when the page shows the outcome itself: order_status's answers as a
 * shopper reads them (held for review is pending to them), a shopper's own cancel apart.
 */
export type Outcome = 'paid' | 'declined' | 'abandoned' | 'pending';

export function outcomeOf(payment: PaymentRow): Outcome {
  switch (orderStatus(payment.status as PaymentStatus)) {
    case '1':
      return 'paid';
    case '0':
      return payment.resultCode === CODES.payment_abandoned.code ? 'abandoned' : 'declined';
    default:
      return 'pending';
  }
}

export type PageState =
  | { readonly kind: 'form'; readonly order: HostedOrder; readonly attemptsLeft: number; readonly lastResultCode?: string }
  | { readonly kind: 'processing'; readonly order: HostedOrder }
  | { readonly kind: 'authenticate'; readonly order: HostedOrder; readonly url: string }
  | { readonly kind: 'return'; readonly order: HostedOrder; readonly outcome: Outcome; readonly url: string | undefined }
  | { readonly kind: 'expired'; readonly order: HostedOrder; readonly url: string | undefined };

export async function hostedPageState(deps: Deps, directory: AccountDirectory, session: CheckoutSessionRow): Promise<PageState> {
  let payment = await paymentById(deps.database.db, session.paymentId);
  const account = await accountById(deps.database.db, session.accountId);
  if (!payment || !account) throw new Error(`session ${session.id} lost its payment or account`);
  const waiting = payment.status === 'requires_redirect';
  const pastDeadline = payment.expiresAt !== null && payment.expiresAt <= deps.clock.now();
  if (waiting && pastDeadline) payment = await abandon(deps, payment);
  // Past its deadline, a page abandoned unpaid says it has expired, whether this visit failed it
  // or the expire-abandoned-payments task did before the shopper came back (it runs every 30 s):
  // a shopper who left the page open must not read that they cancelled, nor be sent on unasked.
  if (pastDeadline && isAbandoned(payment)) {
    return { kind: 'expired', order: await orderOf(deps, account, payment), url: await returnUrlOf(deps, directory, payment) };
  }
  const order = await orderOf(deps, account, payment);
  if (payment.status === 'requires_redirect') {
    return {
      kind: 'form',
      order,
      attemptsLeft: Math.max(0, MAX_ATTEMPTS - session.attempts),
      ...(session.lastResultCode ? { lastResultCode: session.lastResultCode } : {}),
    };
  }
  if (payment.status === 'requires_authentication' && payment.actionUrl) return { kind: 'authenticate', order, url: payment.actionUrl };
  // Processing with no answer yet is an attempt in flight; "pending" is the processor's own word.
  if (payment.status === 'processing' && payment.resultCode !== CODES.pending.code) return { kind: 'processing', order };
  return { kind: 'return', order, outcome: outcomeOf(payment), url: await returnUrlOf(deps, directory, payment) };
}

function isAbandoned(payment: PaymentRow): boolean {
  return payment.status === 'failed' && payment.resultCode === CODES.payment_abandoned.code;
}

async function orderOf(deps: Deps, account: AccountRow, payment: PaymentRow): Promise<HostedOrder> {
  const request = payment.request as Record<string, unknown>;
  const text = (name: string) => (typeof request[name] === 'string' ? (request[name] as string) : undefined);
  const minor = (value: string | undefined) => {
    const parsed = value === undefined ? undefined : parseAmount(value, payment.currency);
    return parsed && 'minor' in parsed ? parsed.minor : 0;
  };
  const breakdown = [
    { label: 'subtotal' as const, minor: minor(text('item_total')) },
    { label: 'shipping' as const, minor: minor(text('shipping')) + minor(text('handling')) + minor(text('insurance')) },
    { label: 'tax' as const, minor: minor(text('tax_total')) },
    { label: 'discount' as const, minor: -(minor(text('discount')) + minor(text('shipping_discount'))) },
  ].filter((entry) => entry.minor !== 0);
  return {
    account,
    payment,
    merchantName: await merchantName(deps.database.db, payment.merchantId),
    lines: linesOf(request, payment.currency),
    breakdown,
    total: { minor: payment.amount, currency: payment.currency },
    frameAncestors: frameAncestors(account, text('storefront_domains')),
    request,
  };
}

/** The order's lines from `items` (name#,#number#,#unit price#,#quantity records) or cart_items. */
function linesOf(request: Record<string, unknown>, currency: string): OrderLine[] {
  const priced = (unit: string | undefined, quantity: number) => {
    const parsed = unit === undefined ? undefined : parseAmount(unit, currency);
    return parsed && 'minor' in parsed ? { amount: parsed.minor * quantity } : {};
  };
  if (typeof request.items === 'string') {
    return request.items.split('#;#').map((record) => {
      const [name = '', , unit, quantity = '1'] = record.split('#,#');
      return { name, quantity: Number(quantity), ...priced(unit, Number(quantity)) };
    });
  }
  if (Array.isArray(request.cart_items)) {
    return request.cart_items.map((entry) => {
      const item = ((entry as Record<string, unknown>)?.basic_item_data ?? {}) as Record<string, unknown>;
      const price = (item.price ?? {}) as Record<string, unknown>;
      const quantity = typeof item.quantity === 'string' ? Number(item.quantity) : 1;
      const unit = price.currency === undefined || price.currency === currency ? price.amount_local_currency : undefined;
      return { name: String(item.name ?? ''), quantity, ...priced(typeof unit === 'string' ? unit : undefined, quantity) };
    });
  }
  return [];
}
