// Card data checks that need no I/O. The PAN lives only in memory: what leaves this module for
// storage or answers is the masked form, the BIN, the last four digits and the brand.
import cardValidator from 'card-validator';
import luhn10 from 'card-validator/dist/luhn-10.js';

export interface CardInput {
  readonly number: string;
  readonly expiryMonth: string;
  readonly expiryYear: string;
  readonly securityCode: string;
}

export interface CheckedCard {
  readonly pan: string;
  readonly brand: string;
  readonly expiryMonth: number;
  readonly expiryYear: number;
  readonly securityCode: string;
}

export type CardProblem =
  | { field: 'card'; reason: 'invalid_card_number'; detail: string }
  | { field: 'expiration_month' | 'expiration_year'; reason: 'invalid_expiry'; detail: string }
  | { field: 'security_code'; reason: 'invalid_security_code'; detail: string };

const BRANDS: Record<string, string> = {
  visa: 'VISA',
  mastercard: 'MASTERCARD',
  'american-express': 'AMEX',
  'diners-club': 'DINERS',
  discover: 'DISCOVER',
  jcb: 'JCB',
  unionpay: 'UNIONPAY',
  maestro: 'MAESTRO',
  mir: 'MIR',
  elo: 'ELO',
  hiper: 'HIPER',
  hipercard: 'HIPERCARD',
  verve: 'VERVE',
};

type NumberVerdict = ReturnType<typeof cardValidator.number>;

// card-validator finds a number's brand by prefix patterns of at most 8 digits, and copies its
// whole table of brands (a JSON round trip) on every call: the largest cost of a payment's own
// code in the server's CPU profile (docs/performance.md). Its verdict depends only on those 8
// digits, the length and the Luhn check, so it is asked once per combination and kept. The key
// holds the BIN and the length, never the number.
const BRAND_PREFIX_DIGITS = 8;
const MAX_VERDICTS = 10_000;
const verdicts = new Map<string, NumberVerdict>();

/** card-validator's verdict on a number of digits, asked once per prefix, length and Luhn result. */
export function numberVerdict(pan: string): NumberVerdict {
  const key = `${pan.slice(0, BRAND_PREFIX_DIGITS)}:${pan.length}:${luhn10(pan) ? 'L' : ''}`;
  let verdict = verdicts.get(key);
  if (!verdict) {
    if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
    verdict = cardValidator.number(pan);
    verdicts.set(key, verdict);
  }
  return verdict;
}

/** How far ahead an expiry date may be before we call it a typo. */
const MAX_YEARS_AHEAD = 20;

/** A card whose expiry month ended before `now`'s (UTC): the answer every check of it gives. */
// The refusal names the fields (decisions.md §3), after the words merchants already match on.
export const EXPIRED_CARD = {
  field: 'expiration_year',
  reason: 'invalid_expiry',
  detail: 'the card has expired: expiration_month and expiration_year name a past month',
} as const satisfies CardProblem;

/** Whether the card's expiry month ended before the month of `now` (UTC). */
export function cardExpired(card: Pick<CheckedCard, 'expiryMonth' | 'expiryYear'>, now: Date): boolean {
  const thisYear = now.getUTCFullYear();
  return card.expiryYear < thisYear || (card.expiryYear === thisYear && card.expiryMonth < now.getUTCMonth() + 1);
}

/** Every check of a card, its expiry against `now` included (the hosted page's card form). */
export function checkCard(input: CardInput, now: Date): CheckedCard | CardProblem {
  return checkCardAt(input, now, true, true);
}

/**
 * Every check but whether the card has expired by `now`: the direct payment's use case asks that
 * (cardExpired) once it knows whether the order is new, since the retry of a payment accepted
 * before the card's expiry month ended is answered with its stored outcome, not refused.
 */
export function checkCardButExpiry(input: CardInput, now: Date): CheckedCard | CardProblem {
  return checkCardAt(input, now, false, true);
}

/**
 * checkCardButExpiry for a request that left the CVC out: every other check, and securityCode ''.
 * No card is charged without its CVC: the direct payment's use case takes such a request only as
 * the retry of an order accepted before (a merchant must not keep the CVC to retry with).
 */
export function checkCardLeftOutCvc(input: Omit<CardInput, 'securityCode'>, now: Date): CheckedCard | CardProblem {
  return checkCardAt({ ...input, securityCode: '' }, now, false, false);
}

function checkCardAt(input: CardInput, now: Date, refuseExpired: boolean, checkCvc: boolean): CheckedCard | CardProblem {
  const pan = input.number.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(pan)) {
    return { field: 'card', reason: 'invalid_card_number', detail: 'card must be 12 to 19 digits' };
  }
  const verdict = numberVerdict(pan);
  if (!verdict.isValid || !verdict.card) {
    return { field: 'card', reason: 'invalid_card_number', detail: 'card fails the Luhn or length check' };
  }
  const brand = BRANDS[verdict.card.type] ?? verdict.card.type.toUpperCase();

  if (!/^(0?[1-9]|1[0-2])$/.test(input.expiryMonth)) {
    return { field: 'expiration_month', reason: 'invalid_expiry', detail: 'expiration_month must be 01 to 12' };
  }
  if (!/^\d{4}$/.test(input.expiryYear)) {
    return { field: 'expiration_year', reason: 'invalid_expiry', detail: 'expiration_year must be 4 digits' };
  }
  const month = Number(input.expiryMonth);
  const year = Number(input.expiryYear);
  if (refuseExpired && cardExpired({ expiryMonth: month, expiryYear: year }, now)) return EXPIRED_CARD;
  if (year > now.getUTCFullYear() + MAX_YEARS_AHEAD) {
    return { field: 'expiration_year', reason: 'invalid_expiry', detail: 'expiration_year is too far ahead' };
  }

  const cvcLength = verdict.card.code.size;
  if (checkCvc && !new RegExp(`^\\d{${cvcLength}}$`).test(input.securityCode)) {
    return {
      field: 'security_code',
      reason: 'invalid_security_code',
      detail: `security_code must be ${cvcLength} digits for this card`,
    };
  }
  return { pan, brand, expiryMonth: month, expiryYear: year, securityCode: input.securityCode };
}

export function isCardProblem(result: CheckedCard | CardProblem): result is CardProblem {
  return 'reason' in result;
}

/** `411111******1111`: the first six and last four digits, the rest starred. */
export function maskPan(pan: string): string {
  return pan.slice(0, 6) + '*'.repeat(pan.length - 10) + pan.slice(-4);
}

export function maskFrom(bin: string, last4: string, length: number): string {
  return bin + '*'.repeat(length - 10) + last4;
}
