// What the blocklist takes, as the value it keeps: only values a payment can carry (its
// shopper_email, shopper_ip and billing_country are checked the same way), so no entry is a block
// that could never hit. A card is named by a payment made with it, so it is no text to check here.
import countries from 'i18n-iso-countries';
import { normaliseIp } from './ip.ts';

export type BlockKind = 'card' | 'email' | 'ip' | 'bin' | 'country';

/** What the payment request takes for shopper_email (src/http/requests/validation.ts). */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The stored form of a value of every kind but a card (emails lower-cased, IP addresses normalised), or why it is none. */
export function blockValue(kind: Exclude<BlockKind, 'card'>, value: string): { readonly value: string } | { readonly problem: string } {
  switch (kind) {
    case 'email':
      return value.length <= 254 && EMAIL.test(value) ? { value: value.toLowerCase() } : { problem: `--value ${value} is not an email address` };
    case 'bin':
      return /^[0-9]{6,8}$/.test(value) ? { value } : { problem: `--value ${value} is not a BIN: 6 to 8 digits` };
    case 'country':
      return /^[A-Z]{2}$/.test(value) && countries.isValid(value) ? { value } : { problem: `--value ${value} is not an ISO 3166 two-letter country code` };
    case 'ip': {
      // Written the way shopper_ip is kept once checked (src/http/requests/validation.ts), which
      // the blocklist rule compares it with: as typed, `2001:DB8::7` or `::ffff:203.0.113.7`
      // never matched a payment, and `203.0.113.300` was taken for a block.
      const address = normaliseIp(value);
      return address ? { value: address } : { problem: `--value ${value} is not an IPv4 or IPv6 address` };
    }
  }
}
