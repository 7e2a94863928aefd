// Card numbers typed where they do not belong: a shopper writes one into a note, a name or an
// address line, and the merchant sends it on in a free-text field. It is masked there as a card
// field would be (`411111******1111`) before the request is stored, logged, echoed or notified.
//
// A card number here is a run of digits, single spaces or dashes between them allowed, that has a
// card brand's prefix, a length valid for that brand and a valid Luhn check digit (card-validator
// judges all three). A longer run is searched for such a number starting and ending where its
// groups do (`order 12 4111 1111 1111 1111` masks the last four groups).
//
// Digits and separators may be full-width (U+FF10..U+FF19, the ideographic space U+3000, the
// full-width hyphen U+FF0D), as a Chinese or Japanese input method types them, mixed with ASCII
// ones: `４１１１－１１１１…` is the same card number, and is masked in ASCII like any other.
import cardValidator from 'card-validator';
import { maskPan } from './card.ts';

const DIGIT = '[0-9\uFF10-\uFF19]';
const SEPARATOR = '[ \\-\u3000\uFF0D]';
/** At least 12 digits, with one space or dash at most between two of them. */
const RUN = new RegExp(`${DIGIT}(?:${SEPARATOR}?${DIGIT}){11,}`);
const RUNS = new RegExp(RUN.source, 'g');
const SEPARATORS = new RegExp(`(${SEPARATOR})`);
const FULL_WIDTH_DIGITS = /[\uFF10-\uFF19]/g;
const MIN_DIGITS = 12;
const MAX_DIGITS = 19;

/** `text` with every card number in it masked; the same string when it holds none. */
export function maskCardNumbers(text: string): string {
  if (text.length < MIN_DIGITS || !RUN.test(text)) return text;
  return text.replace(RUNS, maskRun);
}

/** A group's digits in ASCII. */
function ascii(group: string): string {
  return group.replace(FULL_WIDTH_DIGITS, (digit) => String.fromCharCode(digit.charCodeAt(0) - 0xff10 + 0x30));
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
