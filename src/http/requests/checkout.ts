// The redirect / iFrame payment request (/v1/checkout, docs/api/checkout.md): the direct payment's fields less
// the card group and accept, plus where the shopper goes afterwards (return_url, cancel_url) and
// the page's language (default_lang). The card is typed on the hosted page, never sent here.
// return_url is optional (decisions.md §4 requires it only of APM payments): without it the
// hosted page itself shows the shopper the outcome, and the merchant learns it from notify_url.
import Type, { type Static } from 'typebox';
import { frameAncestors } from '../../app/checkout/frame-ancestors.ts';
import type { CheckoutCommand } from '../../app/checkout/session.ts';
import { storedOrder } from '../../app/payments/command.ts';
import type { AccountRow } from '../../db/schema.ts';
import { canonicalString, type SignedBody } from '../../domain/signature.ts';
import { OrderFields, orderDetails } from './order.ts';
import { compile, invalid, lowerScheme, Text, Url } from './validation.ts';

export const LanguageTag = Text({ max: 35, pattern: '^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$', hint: 'a language tag such as pt-BR' });

export const CheckoutRequest = Type.Object({
  ...OrderFields,
  return_url: Type.Optional(Url),
  cancel_url: Type.Optional(Url),
  default_lang: Type.Optional(LanguageTag),
});

export type CheckoutBody = Static<typeof CheckoutRequest>;
export const checkoutRequest = compile(CheckoutRequest);

/** Card fields, and stored cards, belong to the hosted page or to /v1/authorise: never echoed in a hand-off. */
export const REFUSED = ['card', 'expiration_month', 'expiration_year', 'security_code', 'accept', 'token_id', 'payment_method'] as const;

/** Never kept with the order: the signature and the account's ids. */
const UNSTORED = new Set(['encryption_data', 'merchant_id', 'account_id']);

/** What makes a repeat of this body the same request (CheckoutCommand.identity). */
function identityOf(body: Record<string, unknown>): string {
  return `checkout\n${canonicalString(body as SignedBody)}`;
}

/**
 * The order_no and identity of a body checkoutCommand refused, as a checkout of it would have
 * been recorded: a retry of an order accepted before a check refused it (a storefront domain
 * removed from the account since) is answered with its session (recordedCheckout). Undefined
 * without an order_no.
 */
export function checkoutRepeatKey(body: Record<string, unknown>): { orderNo: string; identity: string } | undefined {
  return typeof body.order_no === 'string' ? { orderNo: body.order_no, identity: identityOf(body) } : undefined;
}

/** The hosted page's order, from the merchant's signed /v1/checkout body. */
export function checkoutCommand(body: Record<string, unknown>, account: AccountRow, now: Date): CheckoutCommand {
  const present = REFUSED.find((field) => body[field] !== undefined);
  if (present) {
    const why = present === 'token_id' ? 'charge a stored card with /v1/authorise' : 'the shopper enters the card on the hosted page';
    throw invalid(present, `no ${present} in /v1/checkout: ${why}`);
  }
  const parsed = checkoutRequest.parse(body);
  const order = orderDetails(parsed, now);
  return {
    order,
    identity: identityOf(body),
    // The checkout body's fields as checked (the card group is refused above), and the order.
    record: { ...Object.fromEntries(Object.entries(body).filter(([key]) => !UNSTORED.has(key))), order: storedOrder(order) },
    ...(parsed.return_url ? { returnUrl: lowerScheme(parsed.return_url) } : {}),
    ...(parsed.cancel_url ? { cancelUrl: lowerScheme(parsed.cancel_url) } : {}),
    frameAncestors: frameAncestors(account, parsed.storefront_domains, true),
  };
}

