// The load the benches send: signed card payments built before the clock starts, driven closed
// loop at full speed (autocannon) or open loop at an even rate.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { sign } from '../src/domain/signature.ts';
import { freshCard } from '../test/support/fixtures.ts';
import type { Ids } from './target.ts';

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))]!;
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Signed, unique card payment bodies. */
/** More requests a second than any phase sends: bodies enough for that, so no order is sent twice (a twin waits for the first). */
export const MOST_PER_SECOND = 4_000;

export function bodies(ids: Ids, secret: string, count: number): string[] {
  const tag = randomBytes(4).toString('hex');
  return Array.from({ length: count }, (_, i) => {
    const body = {
      ...ids,
      order_no: `B-${tag}-${i}`,
      currency: 'USD',
      amount: '10.00',
      card: freshCard(),
      expiration_month: '12',
      expiration_year: '2030',
      security_code: '123',
    };
    return JSON.stringify({ ...body, encryption_data: sign(body, secret) });
  });
}

/** Closed loop at full speed: `connections` requests always in flight. Answers per second. */
export async function peakRate(url: string, payloads: string[], seconds: number, connections: number): Promise<number> {
  let next = 0;
  const result = await autocannon({
    url: `${url}/v1/authorise`,
    connections,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (request) => ({ ...request, body: payloads[next++ % payloads.length]! }) }],
  });
  if (result.non2xx > 0 || result.errors > 0) process.stdout.write(`  warning: ${result.non2xx} non-2xx answers, ${result.errors} errors\n`);
  return result.requests.average;
}

/**
 * Open loop: `send(i)` every 1/rate seconds whatever the answers do, for two warm-up seconds (not
 * measured: connections open, queues settle) and then `seconds`; latency counts from when each
 * request was due.
 */
export async function evenLatency(rate: number, seconds: number, send: (i: number) => Promise<unknown>) {
  const times: number[] = [];
  const warm = Math.round(rate * 2);
  const total = warm + Math.round(rate * seconds);
  const start = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(
      send(i).then(() => {
        if (i >= warm) times.push(performance.now() - due);
      }),
    );
  }
  await Promise.all(inFlight);
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99), sent: total };
}

// node:http on kept-alive connections: fetch's streams cost the generator several times the CPU
// per request, and the open-loop phases count the generator's own delays as the gateway's.
let agent = new http.Agent({ keepAlive: true });

/**
 * Closes the kept-alive connections and starts afresh. Before an HTTP phase that follows another
 * one: the agent lets a free connection go a second before the server's keep-alive timeout (5 s)
 * on a timer of this process, which an in-process phase in between (PGlite raw) can hold past that
 * timeout; a request sent on a connection the server is closing then fails with ECONNRESET (a
 * PGlite run ended so).
 */
export function freshConnections(): void {
  agent.destroy();
  agent = new http.Agent({ keepAlive: true });
}

/** A JSON POST, answered in full (the body read). */
export function postJson(url: string, payload: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
    const request = http.request(url, { method: 'POST', agent, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(payload);
  });
}

export const authorise = (url: string, payload: string) => postJson(`${url}/v1/authorise`, payload);

/** This process's event-loop delay over `phase`: the generator's own share of the latency it measures. */
export async function ownEventLoopDelay<T>(phase: () => Promise<T>): Promise<{ result: T; p99: number; max: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const result = await phase();
  histogram.disable();
  return { result, p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6 };
}

/**
 * CPU seconds (user + system) a process has used so far, from /proc. Per request, it is the
 * figure that holds on a machine whose other loads make rates and latencies drift.
 */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  // utime and stime are the 14th and 15th fields of stat; after the command's ")" they are the 12th and 13th.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
