// Where notifications may go. A notify_url is the merchant's, but the gateway makes the request
// from inside the operator's network, so a URL must never make it reach an internal service
// (server-side request forgery). Live mode: https only, no credentials in the URL, and every
// address the name resolves to — checked when connecting, not only when the URL was submitted —
// must be public unicast. Sandbox mode also allows plain http and loopback, for a receiver on the
// developer's own machine (docs/notifications.md); other internal ranges stay refused there too.
import ipaddr from 'ipaddr.js';
import type { Config } from '../../config.ts';
import { AppError } from '../../domain/errors.ts';

export type Mode = Config['mode'];

/** `what`: the kind of address refused ("a private address"), without the address, for a checked name's. */
export type Verdict = { readonly ok: true } | { readonly ok: false; readonly reason: string; readonly what?: string };

const OK: Verdict = { ok: true };
const refuse = (reason: string, what?: string): Verdict => ({ ok: false, reason, ...(what ? { what } : {}) });

/** IPv6 ranges that carry an IPv4 address inside: a connection to them may reach that IPv4 host. */
const EMBEDDING: Record<string, (parts: readonly number[]) => number[]> = {
  rfc6052: (parts) => [parts[6]! >> 8, parts[6]! & 0xff, parts[7]! >> 8, parts[7]! & 0xff], // NAT64 64:ff9b::a.b.c.d
  rfc6145: (parts) => [parts[6]! >> 8, parts[6]! & 0xff, parts[7]! >> 8, parts[7]! & 0xff], // ::ffff:0:a.b.c.d
  '6to4': (parts) => [parts[1]! >> 8, parts[1]! & 0xff, parts[2]! >> 8, parts[2]! & 0xff], // 2002:aabb:ccdd::
  ipv4Compatible: (parts) => [parts[6]! >> 8, parts[6]! & 0xff, parts[7]! >> 8, parts[7]! & 0xff], // ::a.b.c.d
};

/**
 * The range of an address as ipaddr.js names it (`private`, `loopback`, …), by what the address
 * means: an IPv4-mapped IPv6 address is its IPv4 address; `::` and `::1` are unspecified and
 * loopback (not "IPv4-compatible"); a translated form (NAT64, 6to4, IPv4-compatible) is named
 * with the IPv4 address inside it.
 */
export function addressRange(address: string): { readonly range: string; readonly embedded?: { readonly address: string; readonly range: string } } {
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return { range: parsed.range() };
  const v6 = parsed as ipaddr.IPv6;
  let range: string = v6.range();
  // ::a.b.c.d, deprecated and never a public host (ipaddr.js calls it unicast); :: and ::1 keep their names.
  if (range === 'unicast' && v6.parts.slice(0, 6).every((part) => part === 0)) range = 'ipv4Compatible';
  const embed = EMBEDDING[range];
  if (!embed) return { range };
  const inner = new ipaddr.IPv4(embed(v6.parts));
  return { range, embedded: { address: inner.toString(), range: inner.range() } };
}

const RANGE_NAMES: Record<string, string> = {
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT',
  uniqueLocal: 'unique local',
  ipv4Compatible: 'IPv4-compatible',
  rfc6052: 'NAT64',
  rfc6145: 'IPv4-translated',
  '6to4': '6to4',
  deprecatedSiteLocal: 'site-local',
};

const nameOf = (range: string) => RANGE_NAMES[range] ?? range;
/** "a private address", "an unspecified address", "a unique local address". */
const aName = (range: string) => `${/^[aeio]|^u(?!ni)|^I/.test(nameOf(range)) ? 'an' : 'a'} ${nameOf(range)} address`;

/** Whether the gateway may connect to this IP address in this mode. */
export function checkAddress(mode: Mode, address: string): Verdict {
  if (!ipaddr.isValid(address)) return refuse(`${address} is not an IP address`);
  const { range, embedded } = addressRange(address);
  if (range === 'unicast' || (mode === 'sandbox' && range === 'loopback')) return OK;
  // A translated form is refused in any case; it is named by the address it leads to when that one is internal.
  const inside = embedded && embedded.range !== 'unicast' ? ` for ${embedded.address}, ${aName(embedded.range)}` : '';
  return refuse(`${address} is ${aName(range)}${inside}`, aName(range));
}

/** The host part of a URL as an IP address, or undefined when it is a name. */
export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return ipaddr.isValid(host) ? host : undefined;
}

/** Checks that need no DNS: scheme, credentials, and the host when it is an address or a local name. */
export function checkUrl(mode: Mode, text: string): Verdict {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse('an absolute http(s) URL');
  }
  const schemes = mode === 'live' ? ['https:'] : ['https:', 'http:'];
  if (!schemes.includes(url.protocol)) return refuse(mode === 'live' ? 'an https URL' : 'an http(s) URL');
  if (url.username || url.password) return refuse('a URL without a user name or password');
  const literal = literalAddress(url);
  if (literal) {
    const verdict = checkAddress(mode, literal);
    return verdict.ok ? OK : refuse(`a public address (${verdict.reason})`);
  }
  // `localhost.` and `localhost..` are localhost too: a name's trailing dots say nothing of where it leads.
  const name = url.hostname.toLowerCase().replace(/\.+$/, '');
  if (name === '' || name.split('.').includes('')) return refuse(`a host name without empty labels`);
  if (mode === 'live' && (name === 'localhost' || name.endsWith('.localhost') || !name.includes('.'))) {
    return refuse(`a public host name (${name} is local)`);
  }
  return OK;
}

/**
 * The submission-time check: refuses, as a 400 (4002) naming `field`, a notify_url that could
 * never be delivered to. Names are resolved only when sending, where the check is repeated.
 */
export function assertNotifyTarget(config: Pick<Config, 'mode'>, url: string | undefined, field: string): void {
  if (url === undefined) return;
  const verdict = checkUrl(config.mode, url);
  if (!verdict.ok) throw new AppError('invalid_field', `${field} is invalid: expected ${verdict.reason}`, { field });
}
