// Whether an address lies in a CIDR block: the query allow-list and /metrics ask it. An IPv4
// address written as IPv6 (::ffff:127.0.0.1, as sockets report it) counts as the IPv4 address,
// and so a block inside the IPv4-mapped range (::ffff:10.0.0.0/104) counts as the IPv4 block it
// names (10.0.0.0/8), as proxy-addr reads ACQUIRO_TRUSTED_PROXIES: kept as IPv6, no caller matched it.
import ipaddr from 'ipaddr.js';

type Block = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** The IPv6 bits before an IPv4 address in the mapped range ::ffff:0:0/96. */
const MAPPED_PREFIX = 96;

/** Parses a CIDR block, a block of the IPv4-mapped range as the IPv4 block; throws when it is not one. */
function parseBlock(cidr: string): Block {
  const [address, bits] = ipaddr.parseCIDR(cidr);
  if (address.kind() === 'ipv6' && bits >= MAPPED_PREFIX) {
    const v6 = address as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return [v6.toIPv4Address(), bits - MAPPED_PREFIX];
  }
  return [address, bits];
}

export function inBlock(cidr: string, ip: string): boolean {
  try {
    const address = ipaddr.process(ip);
    const [range, bits] = parseBlock(cidr);
    return address.kind() === range.kind() && address.match(range, bits);
  } catch {
    return false;
  }
}

/** An address or CIDR block written the one way the allow-list stores it (127.0.0.1/32), or undefined when it is neither. */
export function normaliseCidr(text: string): string | undefined {
  try {
    if (text.includes('/')) {
      // A block by its first address: 192.168.1.77/24 allows what 192.168.1.0/24 allows, and is
      // stored, listed and removed as that one block.
      const [address, bits] = parseBlock(text);
      const block = `${address.toString()}/${bits}`;
      const first = address.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(block) : ipaddr.IPv6.networkAddressFromCIDR(block);
      return `${first.toString()}/${bits}`;
    }
    const address = ipaddr.process(text);
    return `${address.toString()}/${address.kind() === 'ipv4' ? 32 : 128}`;
  } catch {
    return undefined;
  }
}

/**
 * Which of `stored` (an allow-list's rows) are the block `cidr` (as normaliseCidr writes it),
 * whatever form each was stored in before blocks were normalised: the IPv4-mapped IPv6 form
 * (::ffff:a00:0/104), or with host bits set (10.0.0.1/8). Removing the block removes them all.
 */
export function storedForms(cidr: string, stored: readonly string[]): string[] {
  return stored.filter((text) => text === cidr || normaliseCidr(text) === cidr);
}

/**
 * An IPv4 or IPv6 address written the one way a checked shopper_ip is kept (2001:db8::7, 203.0.113.7
 * for ::ffff:203.0.113.7), or undefined when it is not one. An IPv6 zone (fe80::7%eth0) is dropped:
 * it names an interface of the host that wrote it, not the shopper, and kept it got a payment past
 * a blocked address, and a new one each time past the IP velocity limit.
 */
export function normaliseIp(text: string): string | undefined {
  if (!ipaddr.isValid(text)) return undefined;
  const address = ipaddr.process(text);
  if (address.kind() === 'ipv6') (address as ipaddr.IPv6).zoneId = undefined;
  return address.toString();
}

/** The bits of an IPv6 address that name one subscriber's network: a /64 at the least (RFC 6177). */
const SUBSCRIBER_BITS = 64;

/**
 * What a per-address budget (failed authentications, failed passwords) counts a client by: an IPv4
 * address itself, an IPv6 one by its /64. Whoever holds one IPv6 address holds its whole /64, 2^64
 * addresses that would each have a budget of their own. Text that is no address is its own key.
 */
export function budgetKeyOf(ip: string): string {
  try {
    const address = ipaddr.process(ip);
    if (address.kind() === 'ipv4') return address.toString();
    const network = ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${SUBSCRIBER_BITS}`);
    return `${network.toString()}/${SUBSCRIBER_BITS}`;
  } catch {
    return ip;
  }
}
