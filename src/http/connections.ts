// What a client may hold of the server: a request must arrive within its timeouts (a stalled
// header or body is answered 408 and closed), an idle keep-alive connection is closed after a few
// seconds, and one address holds a bounded number of connections. Without these, a chunked POST
// that stops after its first chunk stayed open for good, and a few clients could hold every socket.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config.ts';

/** Fastify's options for the timeouts of Config (docs/operations.md, "Timeouts and limits"). */
export function timeoutOptions(config: Pick<Config, 'timeouts'>) {
  const { headersMs, requestMs, keepAliveMs } = config.timeouts;
  return {
    requestTimeout: requestMs,
    keepAliveTimeout: keepAliveMs,
    http: {
      headersTimeout: headersMs,
      // Node checks these timeouts on this interval (30 s by default, which would let a stalled
      // request live 30 s past its timeout).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersMs / 2))),
    },
  };
}

/**
 * Closes a connection at once when its address already holds `max`. A configured trusted proxy
 * carries many clients' connections and is not counted.
 */
export function limitConnectionsPerClient(server: Server, max: number, trustedProxies: readonly string[]): void {
  const trusted = trustedProxies.map(parseRange).filter((range) => range !== null);
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (!address || isTrusted(address, trusted)) return;
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

function parseRange(text: string): Range | null {
  try {
    if (text.includes('/')) return ipaddr.parseCIDR(text);
    const address = ipaddr.process(text);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return null;
  }
}

function isTrusted(address: string, ranges: readonly Range[]): boolean {
  if (ranges.length === 0) return false;
  try {
    const parsed = ipaddr.process(address);
    return ranges.some(([range, bits]) => parsed.kind() === range.kind() && parsed.match(range, bits));
  } catch {
    return false;
  }
}
