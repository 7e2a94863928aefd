// Card numbers typed where they do not belong: a shopper writes one into a note, a name or an
// address line, and the merchant sends it on in a free-text field. It is masked there as a card
// field would be (`411111******1111`) before the request is stored, logged, echoed or notified.
//
// A card number here is a run of digits, single spaces or dashes between them allowed, that has a
// card brand's prefix, a length valid for that brand and a valid Luhn check digit (card-validator
// judges all three). A longer run is searched for such a number starting and ending where its
// groups do (`order 12 4111 1111 1111 1111` masks the last four groups).
import cardValidator from 'card-validator';
import { maskPan } from './card.ts';

/** At least 12 digits, with one space or dash at most between two of them. */
const RUN = /\d(?:[ -]?\d){11,}/;
const RUNS = new RegExp(RUN.source, 'g');
const MIN_DIGITS = 12;
const MAX_DIGITS = 19;

/** `text` with every card number in it masked; the same string when it holds none. */
export function maskCardNumbers(text: string): string {
  if (text.length < MIN_DIGITS || !RUN.test(text)) return text;
  return text.replace(RUNS, maskRun);
}

function isCardNumber(digits: string): boolean {
  return cardValidator.number(digits, { luhnValidateUnionPay: true }).isValid;
}

/** A run with its card numbers masked, each from its first group to its last; separators elsewhere kept. */
function maskRun(run: string): string {
  // [group, separator, group, separator, …, group]
  const parts = run.split(/([ -])/);
  const groups = parts.filter((_, i) => i % 2 === 0);
  let out = '';
  let start = 0;
  while (start < groups.length) {
    const end = cardEndingAt(groups, start);
    out += end === -1 ? groups[start] : maskPan(groups.slice(start, end + 1).join(''));
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
