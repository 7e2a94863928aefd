// Whether an address lies in a CIDR block: the query allow-list and /metrics ask it. An IPv4
// address written as IPv6 (::ffff:127.0.0.1, as sockets report it) counts as the IPv4 address.
import ipaddr from 'ipaddr.js';

export function inBlock(cidr: string, ip: string): boolean {
  try {
    const address = ipaddr.process(ip);
    const [range, bits] = ipaddr.parseCIDR(cidr);
    return address.kind() === range.kind() && address.match(range, bits);
  } catch {
    return false;
  }
}

/** An address or CIDR block written the one way the allow-list stores it (127.0.0.1/32), or undefined when it is neither. */
export function normaliseCidr(text: string): string | undefined {
  try {
    if (text.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(text);
      return `${address.toString()}/${bits}`;
    }
    const address = ipaddr.process(text);
    return `${address.toString()}/${address.kind() === 'ipv4' ? 32 : 128}`;
  } catch {
    return undefined;
  }
}

/** An IPv4 or IPv6 address written the one way a checked shopper_ip is kept (2001:db8::7, 203.0.113.7 for ::ffff:203.0.113.7), or undefined when it is not one. */
export function normaliseIp(text: string): string | undefined {
  return ipaddr.isValid(text) ? ipaddr.process(text).toString() : undefined;
}
