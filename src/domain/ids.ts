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
  | 'RC' // subscription (recurring contract): a payment's recurring_id
  | 'SC' // one attempt at a subscription's charge
  | 'PO' // payout
  | 'PU' // portal user (a merchant's staff member)
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

export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  let time = '';
  let ms = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[ms % 32] + time;
    ms = Math.floor(ms / 32);
  }
  return prefix + time + randomChars(16);
}
