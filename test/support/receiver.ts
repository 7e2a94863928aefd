// A merchant's notification receiver on loopback: records every POST it gets and answers what
// the test tells it to (200 unless told otherwise).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { until } from './until.ts';

export interface Received {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly raw: string;
  readonly body: Record<string, any>;
}

/** 'hang' never answers; 'endless' answers 200 with a body that never ends. */
export type Reply = number | { status: number; body?: string; headers?: Record<string, string> } | 'hang' | 'endless';

export interface Receiver {
  /** http://127.0.0.1:<port> — append a path. */
  readonly base: string;
  readonly url: string;
  readonly received: Received[];
  /** How to answer the n-th request (0-based) it gets from now on; 200 when it returns undefined. */
  reply(answer: (request: Received, index: number) => Reply | undefined | Promise<Reply | undefined>): void;
  /**
   * The notification of `type` about `transactionId`, once it has come; throws after `withinMs`,
   * with `context()` (the processes' output) in the message.
   */
  notified(transactionId: string, type: string, withinMs: number, context?: () => string): Promise<Received>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let answer: (request: Received, index: number) => Reply | undefined | Promise<Reply | undefined> = () => 200;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, any> = {};
      try {
        body = JSON.parse(raw) as Record<string, any>;
      } catch {
        // kept raw: the test asserts on it
      }
      const entry = { path: request.url ?? '', headers: request.headers, raw, body };
      received.push(entry);
      const reply = (await answer(entry, received.length - 1)) ?? 200;
      if (reply === 'hang') return;
      if (reply === 'endless') return endless(response);
      const { status, body: text = 'ok', headers = {} } = typeof reply === 'number' ? { status: reply } : reply;
      response.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    url: `${base}/notify`,
    received,
    reply(next) {
      answer = next;
    },
    notified(transactionId, type, withinMs, context) {
      const found = () => received.find((r) => r.body.transaction_id === transactionId && r.body.notify_type === type);
      return until(`${type} for ${transactionId}`, found, { withinMs, everyMs: 100, detail: context });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function endless(response: http.ServerResponse): void {
  const chunk = Buffer.alloc(16 * 1024, 'x');
  response.writeHead(200, { 'content-type': 'text/plain' });
  const write = () => {
    while (!response.destroyed && response.write(chunk));
    if (!response.destroyed) response.once('drain', write);
  };
  response.on('close', () => response.removeAllListeners('drain'));
  write();
}

/** A loopback URL where nothing listens: every connection is refused. */
export async function deadUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/notify`;
}
