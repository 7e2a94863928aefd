// The redirect / iFrame payment request (seed: /v1/checkout): the direct payment's fields less
// the card group and accept, plus where the shopper goes afterwards (return_url, cancel_url) and
// the page's language (default_lang). The card is typed on the hosted page, never sent here.
import Type, { type Static } from 'typebox';
import type { AccountRow } from '../../db/schema.ts';
import { AppError } from '../../domain/errors.ts';
import { OrderFields, orderDetails, type OrderDetails } from '../authorise/request.ts';
import { compile, invalid, Text, Url } from '../validation.ts';

export const LanguageTag = Text({ max: 35, pattern: '^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$', hint: 'a language tag such as pt-BR' });

export const CheckoutRequest = Type.Object({
  ...OrderFields,
  return_url: Url,
  cancel_url: Type.Optional(Url),
  default_lang: Type.Optional(LanguageTag),
});

export type CheckoutBody = Static<typeof CheckoutRequest>;
export const checkoutRequest = compile(CheckoutRequest);

/** Card fields, and stored cards, belong to the hosted page or to /v1/authorise: never echoed in a hand-off. */
export const REFUSED = ['card', 'expiration_month', 'expiration_year', 'security_code', 'accept', 'token_id', 'payment_method'] as const;

export interface CheckoutCommand {
  readonly order: OrderDetails;
  readonly returnUrl: string;
  readonly cancelUrl?: string;
  /** CSP host-sources that may frame the hosted page. */
  readonly frameAncestors: readonly string[];
}

export function checkoutCommand(body: Record<string, unknown>, account: AccountRow, now: Date): CheckoutCommand {
  const present = REFUSED.find((field) => body[field] !== undefined);
  if (present) {
    const why = present === 'token_id' ? 'charge a stored card with /v1/authorise' : 'the shopper enters the card on the hosted page';
    throw invalid(present, `no ${present} in /v1/checkout: ${why}`);
  }
  const parsed = checkoutRequest.parse(body);
  return {
    order: orderDetails(parsed, now),
    returnUrl: parsed.return_url,
    ...(parsed.cancel_url ? { cancelUrl: parsed.cancel_url } : {}),
    frameAncestors: frameAncestors(account, parsed.storefront_domains, true),
  };
}

/**
 * Who may frame the shopper's pages: the account's declared storefront domains. A request's own
 * storefront_domains may narrow that list, never widen it: a domain the account did not declare
 * is refused when the request arrives (`strict`), and left out when a page is drawn later.
 */
export function frameAncestors(account: AccountRow, requested: string | undefined, strict = false): string[] {
  const declared = account.storefrontDomains.map(hostSource).filter((source): source is string => source !== undefined);
  if (!requested) return declared;
  const narrowed: string[] = [];
  for (const domain of requested.split(/[\s,]+/).filter(Boolean)) {
    const source = hostSource(domain);
    if (source && declared.includes(source)) narrowed.push(source);
    else if (strict) {
      throw new AppError('invalid_field', 'storefront_domains is invalid: expected domains declared for the account', { field: 'storefront_domains' });
    }
  }
  return narrowed;
}

const HOST_SOURCE = /^(https?:\/\/)?(\*\.)?([a-z0-9-]+\.)*[a-z0-9-]+(:[0-9]{1,5})?$/;

/**
 * A storefront domain as a CSP host-source ("https://shop.example", "*.example.com",
 * "http://127.0.0.1:5555"), or undefined when it is not one: nothing else reaches the header.
 */
export function hostSource(domain: string): string | undefined {
  const clean = domain.trim().toLowerCase().replace(/\/+$/, '');
  return HOST_SOURCE.test(clean) ? clean : undefined;
}
