// Card numbers typed where they do not belong: a shopper writes one into a note, a name or an
// address line, and the merchant sends it on in a free-text field. It is masked there as a card
// field would be (`411111******1111`) before the request is stored, logged, echoed or notified.
//
// A card number here is a run of digits, single spaces or dashes between them allowed, that has a
// card brand's prefix, a length valid for that brand and a valid Luhn check digit (card-validator
// judges all three). A longer run is searched for such a number starting and ending where its
// groups do (`order 12 4111 1111 1111 1111` masks the last four groups).
//
// Digits may be of any script Unicode has decimal digits for (`\p{Nd}`: full-width `４`, as a
// Chinese or Japanese input method types them, Arabic-Indic `٤`, Persian `۴`, Devanagari `४`, …),
// mixed with ASCII ones; a space may be any space (`\p{Zs}`: the ideographic space, a no-break
// space) and a dash any dash (`\p{Pd}`: en dash, full-width hyphen, …), the minus sign, or the
// prolonged sound mark `ー` Japanese input methods type for "-". `٤١١١–١١١١…` is the same card
// number, judged on its digits' values and masked in ASCII like any other; text that is no card
// number is left exactly as typed.
import cardValidator from 'card-validator';
import { maskPan } from './card.ts';

const DIGIT = '\\p{Nd}';
/**
 * What is typed for a dash between a card number's groups, as a character class's contents: any
 * dash, the minus signs (U+2212, U+2796) and the prolonged sound marks (U+30FC, U+FF70). The hosted
 * page's name-on-card check reads the same (src/app/checkout/pay.ts).
 */
export const CARD_DASHES = '\\p{Pd}\u2212\u2796\u30FC\uFF70';
/** Spaces and dashes. */
const SEPARATOR = `[\\p{Zs}${CARD_DASHES}]`;
/** At least 12 digits, with one space or dash at most between two of them. */
const RUN = new RegExp(`${DIGIT}(?:${SEPARATOR}?${DIGIT}){11,}`, 'u');
const RUNS = new RegExp(RUN.source, 'gu');
const SEPARATORS = new RegExp(`(${SEPARATOR})`, 'u');
const NOT_ASCII = /[^0-9]/u;
const IS_DIGIT = /^\p{Nd}$/u;
const MIN_DIGITS = 12;
const MAX_DIGITS = 19;
/** Each non-ASCII digit met so far, by its value; Unicode has a few hundred, so this stays small. */
const digitValues = new Map<string, number>();

/** `text` with every card number in it masked; the same string when it holds none. */
export function maskCardNumbers(text: string): string {
  if (text.length < MIN_DIGITS || !RUN.test(text)) return text;
  return text.replace(RUNS, maskRun);
}

/** A group's digits in ASCII. */
function ascii(group: string): string {
  if (!NOT_ASCII.test(group)) return group;
  let out = '';
  for (const digit of group) out += valueOf(digit);
  return out;
}

/**
 * A decimal digit's value. Unicode encodes every script's digits as a run of ten code points, zero
 * to nine (a stability guarantee), some scripts' runs next to each other: the value is the place
 * in the run of consecutive digits it belongs to, counted in tens.
 */
function valueOf(digit: string): number {
  let value = digitValues.get(digit);
  if (value === undefined) {
    const code = digit.codePointAt(0)!;
    let first = code;
    while (IS_DIGIT.test(String.fromCodePoint(first - 1))) first--;
    value = (code - first) % 10;
    digitValues.set(digit, value);
  }
  return value;
}

function isCardNumber(digits: string): boolean {
  return cardValidator.number(digits, { luhnValidateUnionPay: true }).isValid;
}

/** A run with its card numbers masked, each from its first group to its last; separators elsewhere kept. */
function maskRun(run: string): string {
  // [group, separator, group, separator, …, group]
  const parts = run.split(SEPARATORS);
  const typed = parts.filter((_, i) => i % 2 === 0);
  const groups = typed.map(ascii);
  let out = '';
  let start = 0;
  while (start < groups.length) {
    const end = cardEndingAt(groups, start);
    out += end === -1 ? typed[start] : maskPan(groups.slice(start, end + 1).join(''));
    const next = end === -1 ? start + 1 : end + 1;
    if (next < groups.length) out += parts[2 * next - 1];
    start = next;
  }
  return out;
}

/** The last group of the longest card number that starts at group `start`, or -1. */
function cardEndingAt(groups: readonly string[], start: number): number {
  let digits = 0;
  let last = start;
  while (last < groups.length && digits + groups[last]!.length <= MAX_DIGITS) digits += groups[last++]!.length;
  for (let end = last - 1; end >= start; end--) {
    const candidate = groups.slice(start, end + 1).join('');
    if (candidate.length >= MIN_DIGITS && isCardNumber(candidate)) return end;
  }
  return -1;
}
