// One HTTP POST of a notification. The name is resolved first and every address checked
// (target.ts); the connection then goes to exactly those addresses (the lookup is pinned), so a
// DNS answer that changes between the check and the connect cannot slip an internal address in.
// No redirect is followed (a 3xx is not an acknowledgement), no connection is reused, the whole
// attempt (the name's resolution included) has a deadline and at most RESPONSE_CAP bytes of the
// answer are read. The status line, once come, is the answer (docs/notifications.md, Acknowledging).
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { processLookups } from './lookups.ts';
import { checkAddress, checkUrl, literalAddress, type Mode } from './target.ts';

export const ATTEMPT_TIMEOUT_MS = 10_000;
export const RESPONSE_CAP = 64 * 1024;
const EXCERPT_BYTES = 1024;
const EXCERPT_CHARS = 256;

export interface HttpAnswer {
  readonly status: number;
  /** The start of the answer's body, for the delivery log. */
  readonly excerpt: string;
}

export interface PinnedTarget {
  readonly url: URL;
  /** The checked addresses to connect to; empty when the URL's host is itself an address. */
  readonly addresses: readonly LookupAddress[];
}

/** The two edges of a delivery that touch the network; tests replace them with spies. */
export interface Transport {
  resolve(hostname: string): Promise<readonly LookupAddress[]>;
  post(target: PinnedTarget, body: string, options: { timeoutMs: number }): Promise<HttpAnswer>;
}

export type Sent =
  | { readonly kind: 'answered'; readonly answer: HttpAnswer; readonly latencyMs: number }
  | {
      readonly kind: 'refused';
      /** For the delivery log (operators): the addresses a name resolved to included. */
      readonly reason: string;
      /** For a merchant (the portal's URL check): no address the gateway's resolver gave away. */
      readonly shown: string;
      readonly permanent: boolean;
    }
  | { readonly kind: 'error'; readonly error: string; readonly latencyMs: number };

/**
 * Checks the target for `mode`, resolves and checks its addresses, then posts `body` to them.
 * `lookupKey` (the account) shares out the process's lookups (lookups.ts); the URL's host by default.
 */
export async function sendNotification(
  transport: Transport,
  mode: Mode,
  notifyUrl: string,
  body: string,
  timeoutMs = ATTEMPT_TIMEOUT_MS,
  lookupKey?: string,
): Promise<Sent> {
  const verdict = checkUrl(mode, notifyUrl);
  if (!verdict.ok) return { kind: 'refused', reason: `notify_url must be ${verdict.reason}`, shown: `notify_url must be ${verdict.reason}`, permanent: true };
  const url = new URL(notifyUrl);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let addresses: readonly LookupAddress[] = [];
  if (!literalAddress(url)) {
    try {
      // Waiting for a lookup slot counts against the deadline too.
      addresses = await withinDeadline((signal) => processLookups.run(lookupKey ?? url.hostname, () => transport.resolve(url.hostname), signal), timeoutMs);
    } catch (error) {
      return { kind: 'error', error: `cannot resolve ${url.hostname}: ${messageOf(error)}`, latencyMs: elapsed() };
    }
    if (addresses.length === 0) return { kind: 'error', error: `${url.hostname} has no address`, latencyMs: elapsed() };
    // One internal address among public ones is enough to refuse: the connection could pick it.
    for (const { address } of addresses) {
      const check = checkAddress(mode, address);
      if (!check.ok) {
        // The resolver answers from inside the operator's network: what it said is not the merchant's to see.
        const shown = `${url.hostname} resolves to an address notifications may not go to (${check.what ?? 'an internal address'})`;
        return { kind: 'refused', reason: `${url.hostname} resolves to ${check.reason}`, shown, permanent: false };
      }
    }
  }
  try {
    // The resolution counts against the attempt's deadline: the whole attempt stays inside it (and the lease).
    const answer = await transport.post({ url, addresses }, body, { timeoutMs: addresses.length ? Math.max(1, timeoutMs - elapsed()) : timeoutMs });
    return { kind: 'answered', answer, latencyMs: elapsed() };
  } catch (error) {
    return { kind: 'error', error: messageOf(error), latencyMs: elapsed() };
  }
}

/**
 * A lookup the attempt stops waiting for after `ms`: getaddrinfo cannot be cancelled, and a
 * resolver that never answers would hold the attempt past its lease (another worker would then
 * send the event while this one still waits).
 */
function withinDeadline<T>(work: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const deadline = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`no answer within ${ms} ms`);
      deadline.abort(error);
      reject(error);
    }, ms);
  });
  return Promise.race([work(deadline.signal), late]).finally(() => clearTimeout(timer));
}

function messageOf(error: unknown): string {
  const coded = error as { code?: unknown; message?: unknown };
  return typeof coded.code === 'string' ? `${coded.code}: ${String(coded.message)}` : String(coded.message ?? error);
}

/** Answers the lookup with the addresses already checked, whatever the name. */
function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options.all) callback(null, addresses.map((a) => ({ address: a.address, family: a.family })));
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  }) as LookupFunction;
}

function post(target: PinnedTarget, body: string, options: { timeoutMs: number }): Promise<HttpAnswer> {
  const { url } = target;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        'user-agent': 'Acquiro-Notifications/1',
      },
      agent: false,
      ...(target.addresses.length ? { lookup: pinnedLookup(target.addresses) } : {}),
    });
    // Once the status line has come it is the answer, whatever happens to the rest: a body that
    // stalls until the deadline, or a connection reset after it, ends the attempt with that status
    // (as a body cut by a close or read up to the cap does); before it, either is no answer.
    let response: http.IncomingMessage | undefined;
    const chunks: Buffer[] = [];
    let read = 0;
    let settled = false;
    const answered = () => {
      if (settled || !response) return;
      settled = true;
      clearTimeout(deadline);
      const status = response.statusCode ?? 0;
      response.destroy();
      request.destroy();
      // U+0000 as U+FFFD, as for any byte that is not text: a PostgreSQL text column refuses
      // NUL, and an excerpt it refused left an acknowledged event unrecorded, sent again and again.
      const excerpt = Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_CHARS).replaceAll('\u0000', '\uFFFD');
      resolve({ status, excerpt });
    };
    const failed = (error: Error) => {
      if (response) return answered();
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      reject(error);
    };
    const deadline = setTimeout(() => (response ? answered() : request.destroy(new Error(`no answer within ${options.timeoutMs} ms`))), options.timeoutMs);
    request.on('error', failed);
    request.on('response', (answer) => {
      response = answer;
      answer.on('data', (chunk: Buffer) => {
        if (read < EXCERPT_BYTES) chunks.push(chunk.subarray(0, EXCERPT_BYTES - read));
        read += chunk.length;
        if (read >= RESPONSE_CAP) answered();
      });
      answer.on('end', answered);
      answer.on('error', answered);
      answer.on('close', answered);
    });
    request.end(body);
  });
}

export const networkTransport: Transport = {
  resolve: (hostname) => dnsLookup(hostname, { all: true, verbatim: true }),
  post,
};
