// Identifiers carry a prefix that says what they are, then a time-sortable body (ULID layout:
// 10 Crockford base32 characters of milliseconds, 16 of randomness), so ids sort by creation.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export type IdPrefix =
  | 'T' // payment transaction
  | 'RF' // refund
  | 'TK' // stored card token
  | 'EV' // event / notification
  | 'CP' // capture
  | 'CS' // hosted payment page (checkout) session
  | 'VD' // void of an authorisation
  | 'TU' // sandbox top-up of a balance
  | 'ST' // settlement batch of one account's currency
  | 'RC' // subscription (recurring contract): a payment's recurring_id
  | 'SC' // one attempt at a subscription's charge
  | 'PO' // payout
  | 'PU' // portal user (a merchant's staff member)
  | 'DP' // dispute (a chargeback) the acquirer reported
  | 'J'; // ledger journal

// Randomness is drawn 4 KiB at a time: one system call serves 256 ids.
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let used = 0;

function randomChars(count: number): string {
  if (used + count > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    used = 0;
  }
  let chars = '';
  for (let i = 0; i < count; i++) chars += ALPHABET[pool[used++]! % 32];
  return chars;
}

function timeChars(now: number): string {
  let time = '';
  let ms = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[ms % 32] + time;
    ms = Math.floor(ms / 32);
  }
  return time;
}

export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  return prefix + timeChars(now) + randomChars(16);
}

// An event id is the notify_id a merchant may order a transaction's events by ("ignore an event
// older than the last one you applied", docs/notifications.md). Two events recorded in the same
// millisecond would sort by their random parts, so a later one could pass for the older: within
// a millisecond, the next event id is the last one's random part plus one (ULID's monotonic
// mode). Only event ids: they grant nothing, while other ids stay wholly random.
let lastEvent: { ms: number; digits: number[] } = { ms: -1, digits: [] };

/** The last event id's random digits plus one, or null when all 16 are the last digit. */
function incremented(digits: readonly number[]): number[] | null {
  const next = [...digits];
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i]! < 31) {
      next[i]! += 1;
      return next;
    }
    next[i] = 0;
  }
  return null;
}

export function newEventId(now: number = Date.now()): string {
  const following = now === lastEvent.ms ? incremented(lastEvent.digits) : null;
  const digits = following ?? [...randomChars(16)].map((char) => ALPHABET.indexOf(char));
  lastEvent = { ms: now, digits };
  return 'EV' + timeChars(now) + digits.map((digit) => ALPHABET[digit]).join('');
}
