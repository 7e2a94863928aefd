// The dates a payment request names that a new order must not have passed: its subscription's
// contract_end (a UTC day, today or later) and the card's expiry month. Asked by the use case, not
// by the adapter: a request naming such a date may be the retry of an order accepted before the
// date passed, its answer lost, and a repeat is answered with the stored outcome whatever the day.
// A 400 would say nothing was stored, and a merchant trusting it would charge again under a new
// order_no. So the use case refuses with this only when the order_no is new.
import { cardExpired, EXPIRED_CARD } from '../../domain/card.ts';
import { AppError } from '../../domain/errors.ts';
import type { OrderDetails, PaymentSource } from './command.ts';

/** The refusal a new order naming a date that has passed by `now` gets; none when no date has. */
export function passedDate(order: OrderDetails, source: PaymentSource | undefined, now: Date): AppError | undefined {
  const end = order.subscription?.contractEnd;
  if (end !== undefined && end < now.toISOString().slice(0, 10)) {
    const field = 'subscription.contract_end';
    return new AppError('invalid_field', `${field} is invalid: expected a date not before today (UTC)`, { field });
  }
  if (source?.kind === 'card' && cardExpired(source.card, now)) {
    return new AppError(EXPIRED_CARD.reason, EXPIRED_CARD.detail, { field: EXPIRED_CARD.field });
  }
  return undefined;
}
