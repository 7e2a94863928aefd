// Where the shopper goes when a payment they were sent away for has an outcome (hosted page,
// 3-D Secure challenge, APM issuer page): the merchant's return_url — cancel_url when the shopper
// gave up and the merchant gave one — with the outcome in the query, signed with the account's
// current key like any answer (docs/signing.md), over every query parameter of the final URL (the
// merchant's own ones included), so `verify(Object.fromEntries(url.searchParams), secret)` holds.
// The notification stays the authoritative word; this only tells the shop's page what to show.
import { CODES } from '../../domain/errors.ts';
import { formatAmount } from '../../domain/money.ts';
import { orderStatus, type PaymentStatus } from '../../domain/payment.ts';
import type { ReturnFields } from '../../domain/return-fields.ts';
import { sign } from '../../domain/signature.ts';
import type { PaymentRow, SubscriptionRow } from '../../db/schema.ts';
import type { AccountDirectory } from '../accounts/directory.ts';
import type { Deps } from '../context.ts';
import { maskedCard, resultInfo } from '../payments/events.ts';
import { recurringFields, subscriptionOfPayment } from '../subscriptions/payment-fields.ts';
import { findSessionOfPayment } from '../../db/repositories/checkout.ts';
import { pageUrlOf } from './session.ts';

/** The fields the merchant's return page receives, in this order (RETURN_FIELDS), then encryption_data. */
export function outcomeFields(payment: PaymentRow, subscription: SubscriptionRow | null, now: Date): ReturnFields {
  return {
    merchant_id: payment.merchantId,
    account_id: payment.accountId,
    order_no: payment.orderNo,
    transaction_id: payment.id,
    amount: formatAmount(payment.amount, payment.currency),
    currency: payment.currency,
    order_status: orderStatus(payment.status as PaymentStatus),
    result_info: resultInfo(payment),
    payment_method: payment.paymentMethod,
    card: maskedCard(payment),
    token_id: payment.tokenId ?? '',
    threeds_result: payment.threedsResult ?? '',
    ...recurringFields(payment, subscription),
    return_time: String(Math.floor(now.getTime() / 1000)),
  };
}

/** The merchant URL the payment sends the shopper to, before the outcome is added. */
export function returnTarget(payment: PaymentRow): string | undefined {
  const request = payment.request as Record<string, unknown>;
  const text = (name: string) => (typeof request[name] === 'string' && request[name] ? (request[name] as string) : undefined);
  const abandoned = payment.status === 'failed' && payment.resultCode === CODES.payment_abandoned.code;
  return (abandoned ? text('cancel_url') : undefined) ?? text('return_url');
}

/** return_url (or cancel_url) with the signed outcome; undefined when the payment has neither. */
export async function returnUrlOf(deps: Pick<Deps, 'wallClock' | 'database'>, directory: AccountDirectory, payment: PaymentRow): Promise<string | undefined> {
  const target = returnTarget(payment);
  if (!target) return undefined;
  const signing = await directory.find(payment.merchantId, payment.accountId);
  if (!signing) return undefined;
  const url = new URL(target);
  // return_time is the wall clock's: the merchant checks its age against its own clock.
  const subscription = await subscriptionOfPayment(deps.database.db, payment);
  for (const [name, value] of Object.entries(outcomeFields(payment, subscription, deps.wallClock.now()))) url.searchParams.set(name, value);
  url.searchParams.delete('encryption_data');
  url.searchParams.set('encryption_data', sign(Object.fromEntries(url.searchParams), signing.secrets[0]!));
  return url.href;
}

/**
 * Where the shopper goes after a page that finished part of a payment (3-D Secure, an APM
 * issuer page): back to the hosted page when the payment began there (it shows a refusal with
 * another try, or sends the shopper on), else to the merchant; undefined when there is nowhere.
 */
export async function shopperNextUrl(deps: Pick<Deps, 'wallClock' | 'vault' | 'config' | 'database'>, directory: AccountDirectory, payment: PaymentRow): Promise<string | undefined> {
  if (payment.kind === 'checkout') {
    const session = await findSessionOfPayment(deps.database.db, payment.id);
    if (session?.handedOffAt) return pageUrlOf(deps, session);
  }
  return returnUrlOf(deps, directory, payment);
}
