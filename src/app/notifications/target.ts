// Where notifications may go. A notify_url is the merchant's, but the gateway makes the request
// from inside the operator's network, so a URL must never make it reach an internal service
// (server-side request forgery). Live mode: https only, no credentials in the URL, and every
// address the name resolves to — checked when connecting, not only when the URL was submitted —
// must be public unicast. Sandbox mode also allows plain http and loopback, for a receiver on the
// developer's own machine (docs/notifications.md); other internal ranges stay refused there too.
import ipaddr from 'ipaddr.js';
import type { Config } from '../../config.ts';
import { invalid } from '../validation.ts';

export type Mode = Config['mode'];

export type Verdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const OK: Verdict = { ok: true };
const refuse = (reason: string): Verdict => ({ ok: false, reason });

/** The range of an address as ipaddr.js names it (`private`, `loopback`, …), IPv4-mapped IPv6 unwrapped. */
export function addressRange(address: string): string {
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) {
    return 'ipv4Compatible'; // ::a.b.c.d, deprecated and never a public host
  }
  return parsed.range();
}

const RANGE_NAMES: Record<string, string> = {
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT',
  uniqueLocal: 'unique local',
  ipv4Compatible: 'IPv4-compatible',
  rfc6052: 'NAT64',
  rfc6145: 'IPv4-translated',
  deprecatedSiteLocal: 'site-local',
};

/** Whether the gateway may connect to this IP address in this mode. */
export function checkAddress(mode: Mode, address: string): Verdict {
  if (!ipaddr.isValid(address)) return refuse(`${address} is not an IP address`);
  const range = addressRange(address);
  if (range === 'unicast' || (mode === 'sandbox' && range === 'loopback')) return OK;
  return refuse(`${address} is a ${RANGE_NAMES[range] ?? range} address`);
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
  const name = url.hostname.toLowerCase().replace(/\.$/, '');
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
  if (!verdict.ok) throw invalid(field, verdict.reason);
}
