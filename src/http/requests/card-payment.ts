// The direct card payment request (/v1/authorise with a card or a token_id): its schema, and the
// parsing of a checked body into the use case's command. The order fields' rules are shared with
// the APM and hosted-page requests (order.ts).
import Type, { type Static } from 'typebox';
import { OrderFields, orderDetails } from './order.ts';
import { storedOrder, type CardPaymentCommand, type OrderRecord, type PaymentSource } from '../../app/payments/command.ts';
import { compile, invalid, Text, Url } from './validation.ts';
import { checkCardButExpiry, checkCardLeftOutCvc, isCardProblem } from '../../domain/card.ts';
import { AppError } from '../../domain/errors.ts';
import { canonicalString, type SignedBody } from '../../domain/signature.ts';

export const CardPaymentRequest = Type.Object({
  ...OrderFields,
  accept: Type.Optional(Text({ max: 1024 })),
  token_id: Type.Optional(Text({ max: 40, pattern: '^TK[0-9A-Z]{26}$', hint: 'a token_id this gateway issued' })),
  card: Type.Optional(Text({ max: 23, pattern: '^[0-9 -]+$', hint: 'the card number' })),
  expiration_month: Type.Optional(Text({ max: 2, pattern: '^[0-9]{1,2}$', hint: 'the month, 01 to 12' })),
  expiration_year: Type.Optional(Text({ max: 4, pattern: '^[0-9]{4}$', hint: 'the four-digit year' })),
  security_code: Type.Optional(Text({ max: 4, pattern: '^[0-9]{3,4}$', hint: '3 or 4 digits' })),
  /** `card`, or any name that is no APM's (docs/apm.md): kept with the order, so bounded like any text. */
  payment_method: Type.Optional(Text({ max: 32, hint: 'at most 32 characters' })),
  /** Where the shopper returns after a 3-D Secure challenge (our addition: docs/3ds.md). */
  return_url: Type.Optional(Url),
});

export type CardPaymentBody = Static<typeof CardPaymentRequest>;
export const cardPaymentRequest = compile(CardPaymentRequest);

/** Fields never kept with the order: the card group, the signature, the account's ids. */
const UNSTORED = new Set(['card', 'security_code', 'expiration_month', 'expiration_year', 'encryption_data', 'merchant_id', 'account_id']);

/** What a payment keeps of a checked body (OrderRecord): its order data, without the card group or the signature. */
export function orderRecordOf(body: Readonly<Record<string, unknown>>): OrderRecord {
  return Object.fromEntries(Object.entries(body).filter(([key]) => !UNSTORED.has(key))) as OrderRecord;
}

/** Same order, same fields: the CVC is left out so that it is never kept, even as a digest. */
export function requestIdentity(body: Readonly<Record<string, unknown>>): string {
  const { security_code: _cvc, ...rest } = body;
  return canonicalString(rest as SignedBody);
}

/** A shopper's card payment, from a body the schema has checked. */
export function cardPaymentCommand(body: CardPaymentBody, now: Date): CardPaymentCommand {
  const order = orderDetails(body, now);
  const command = { ...order, initiator: 'shopper' as const, identity: requestIdentity(body), record: { ...orderRecordOf(body), order: storedOrder(order) } };
  return { ...command, source: sourceOf(body, now) };
}

function sourceOf(body: CardPaymentBody, now: Date): PaymentSource {
  const cardFields = ['card', 'expiration_month', 'expiration_year', 'security_code'] as const;
  if (body.token_id) {
    const present = cardFields.find((field) => body[field] !== undefined);
    if (present) throw invalid(present, 'no card fields with token_id: the token stands for the card');
    return { kind: 'token', tokenId: body.token_id };
  }
  const missing = cardFields.find((field) => field !== 'security_code' && body[field] === undefined);
  if (missing) throw new AppError('missing_field', `${missing} is required (or token_id)`, { field: missing });
  // Whether the card has expired, and whether a CVC left out is refused, are the use case's to
  // ask: a retry of a payment accepted before (after its expiry month ended, or without the CVC
  // the merchant did not keep) is answered with the stored outcome (src/app/authorise).
  const card = { number: body.card!, expiryMonth: body.expiration_month!, expiryYear: body.expiration_year! };
  const checked =
    body.security_code === undefined ? checkCardLeftOutCvc(card, now) : checkCardButExpiry({ ...card, securityCode: body.security_code }, now);
  if (isCardProblem(checked)) throw new AppError(checked.reason, `${checked.detail}`, { field: checked.field });
  return { kind: 'card', card: checked };
}
