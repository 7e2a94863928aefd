// How the sandbox processor answers each test card (the table in docs/api/authorise.md).
// Any other card that passes the Luhn check is approved.
import type { DeclineReason } from '../port.ts';

export type CardBehaviour =
  | { readonly kind: 'approve' }
  /** Approved; a merchant-initiated charge reaches the processor only after `delayMs` (a slow network). */
  | { readonly kind: 'slow_later'; readonly delayMs: number }
  /** Approved at once; its capture and its void each reach the processor only after 10 s (ACQUIRO_SANDBOX_CARD_DELAY). */
  | { readonly kind: 'slow_settle' }
  /** Approved when the shopper pays; every later merchant-initiated charge of the stored card is declined. */
  | { readonly kind: 'approve_first'; readonly later: DeclineReason }
  | { readonly kind: 'decline'; readonly reason: DeclineReason }
  /** `completionLost`: the completion of an authenticated challenge is approved, but its answer never reaches the gateway. */
  | { readonly kind: 'challenge'; readonly completionLost?: boolean }
  /** Approved; once captured, the acquirer reports a dispute a day later (`won`: reversed two days after capture). disputes.ts. */
  | { readonly kind: 'dispute'; readonly won: boolean }
  | { readonly kind: 'timeout' };

export interface TestCard {
  readonly number: string;
  readonly behaviour: CardBehaviour;
  readonly description: string;
}

export const TEST_CARDS: readonly TestCard[] = [
  { number: '4111111111111111', behaviour: { kind: 'approve' }, description: 'approved (Visa)' },
  { number: '5555555555554444', behaviour: { kind: 'approve' }, description: 'approved (Mastercard)' },
  { number: '378282246310005', behaviour: { kind: 'approve' }, description: 'approved (Amex, 4-digit CVC)' },
  { number: '4000000000000002', behaviour: { kind: 'decline', reason: 'generic' }, description: 'declined (generic)' },
  { number: '4000000000009995', behaviour: { kind: 'decline', reason: 'insufficient_funds' }, description: 'declined: insufficient funds' },
  { number: '4000000000000069', behaviour: { kind: 'decline', reason: 'expired_card' }, description: 'declined: expired card' },
  { number: '4000000000000127', behaviour: { kind: 'decline', reason: 'incorrect_cvc' }, description: 'declined: incorrect CVC' },
  { number: '4000000000009979', behaviour: { kind: 'decline', reason: 'lost_or_stolen' }, description: 'declined: lost or stolen card' },
  { number: '4000000000000119', behaviour: { kind: 'decline', reason: 'processor_error' }, description: 'declined: processor error' },
  {
    number: '4000000000000341',
    behaviour: { kind: 'approve_first', later: 'insufficient_funds' },
    description: 'approved; every later charge of the stored card (a subscription\'s) declined: insufficient funds',
  },
  {
    number: '4000000000000416',
    behaviour: { kind: 'slow_later', delayMs: 10_000 },
    description: 'approved; every later charge of the stored card reaches the processor only after 10 s, or ACQUIRO_SANDBOX_CARD_DELAY (a window to stop a worker in)',
  },
  {
    number: '4000000000000424',
    behaviour: { kind: 'slow_settle' },
    description:
      'approved; its capture or void (on a manual-capture account, or a review\'s decision) reaches the processor only after 10 s, or ACQUIRO_SANDBOX_CARD_DELAY (a window to stop a gateway in)',
  },
  {
    number: '4000000000003220',
    behaviour: { kind: 'challenge' },
    description: "3-D Secure challenge required; later merchant-initiated charges of the stored card (a subscription's) are approved without one",
  },
  {
    number: '4000000000003238',
    behaviour: { kind: 'challenge', completionLost: true },
    description:
      '3-D Secure challenge required; once authenticated the processor approves, but its answer is lost: the payment waits until the challenge\'s deadline, when the gateway asks the processor and records the approval',
  },
  {
    number: '4000000000000259',
    behaviour: { kind: 'timeout' },
    description: 'the processor does not answer in time: pending, approved when the gateway asks again',
  },
  {
    number: '4000000000000267',
    behaviour: { kind: 'dispute', won: false },
    description: 'approved; once captured, disputed a day later (chargeback.opened, reason 10.4 fraud): the amount is taken from the balance',
  },
  {
    number: '4000000000002685',
    behaviour: { kind: 'dispute', won: true },
    description: 'approved; once captured, disputed a day later (reason 13.1) and won two days after capture (chargeback.reversed): the amount comes back',
  },
  { number: '4100000000000019', behaviour: { kind: 'approve' }, description: 'high fraud risk: rejected by risk before the processor' },
  { number: '4000000000004954', behaviour: { kind: 'approve' }, description: 'elevated risk: held for review (/v1/review decides)' },
];

const BY_NUMBER = new Map(TEST_CARDS.map((card) => [card.number, card.behaviour]));

export function behaviourOf(pan: string): CardBehaviour {
  return BY_NUMBER.get(pan) ?? { kind: 'approve' };
}
