// A gateway that stops (SIGTERM: its HTTP server closes) serves to the end the requests already in
// it, and refuses those that still arrive on connections open before the stop as any 503 of their
// endpoint: 9503 with Retry-After, in the operation's format and signed with the account's key,
// so a merchant's client reads it and sends the request again elsewhere (docs/operations.md).
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sign } from '../../src/domain/signature.ts';
import { cardPayment } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { readAnswer, type SignedClient } from '../support/client.ts';
import { until } from '../support/until.ts';

let gw: TestGateway;
let shop: SignedClient;
let port: number;
let stopped: Promise<void> | undefined;
const sockets: Socket[] = [];

// A long keep-alive timeout: a connection left open after its answer would hold the stop that long.
beforeEach(async () => {
  gw = await startTestGateway({ env: { ACQUIRO_KEEP_ALIVE_TIMEOUT: '60' } });
  shop = await gw.merchant();
  await gw.gateway.server.app.listen({ port: 0, host: '127.0.0.1' });
  port = (gw.gateway.server.app.server.address() as { port: number }).port;
  stopped = undefined;
});
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await (stopped ?? gw?.close());
});

/** Begins the stop, once the server no longer listens. */
async function stop(): Promise<void> {
  stopped = gw.close();
  await until('the server no longer listening', () => !gw.gateway.server.app.server.listening, { withinMs: 2_000, everyMs: 20 });
}

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly text: string;
}

/** A raw connection: what it sends is written by the test, what it receives is read once the server closes it. */
async function open(): Promise<{ socket: Socket; reply: Promise<Reply> }> {
  const socket = connect({ port, host: '127.0.0.1' });
  sockets.push(socket);
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString('utf8')));
  socket.on('error', () => {});
  const reply = new Promise<Reply>((resolve) =>
    socket.on('close', () => {
      const [head = '', ...rest] = received.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, text: rest.join('\r\n\r\n') });
    }),
  );
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  return { socket, reply };
}

const post = (path: string, body: Record<string, unknown>) => {
  const payload = JSON.stringify({ ...body, encryption_data: sign(body as never, shop.secret) });
  return { head: `POST ${path} HTTP/1.1\r\nHost: gateway.test\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n`, payload };
};

describe('a gateway that stops', () => {
  it('serves the request in flight and answers those arriving 503 9503 in their endpoint format, signed', async () => {
    const inFlight = post('/v1/authorise', cardPayment(shop.ids));
    const payment = post('/v1/authorise', cardPayment(shop.ids));
    const capture = post('/v1/capture', { ...shop.ids, capture_orders: [{ transaction_id: 'T1', order_no: 'O1', currency: 'USD', amount: '1.00' }] });
    // In flight: its headers are in, its body half sent. Arriving: only a first line so far.
    const a = await open();
    a.socket.write(inFlight.head + inFlight.payload.slice(0, 20));
    const b = await open();
    b.socket.write(payment.head.slice(0, 30));
    const c = await open();
    c.socket.write(capture.head.slice(0, 30));
    const d = await open();
    d.socket.write('GET /heal');
    await sleep(200);

    await stop();

    a.socket.write(inFlight.payload.slice(20));
    b.socket.write(payment.head.slice(30) + payment.payload);
    c.socket.write(capture.head.slice(30) + capture.payload);
    d.socket.write('th HTTP/1.1\r\nHost: gateway.test\r\n\r\n');
    const [served, refused, batch, health] = await Promise.all([a.reply, b.reply, c.reply, d.reply]);

    expect(served.status).toBe(200);
    expect(readAnswer(served.text, shop.secret).body.result_info).toBe('0000:Success');

    for (const answer of [refused, batch]) {
      expect([answer.status, answer.headers['retry-after'], answer.headers.connection]).toEqual([503, '1', 'close']);
      expect(readAnswer(answer.text, shop.secret).signed).toBe(true);
    }
    // The authorisation's XML respon, the batch's JSON, as any of their refusals.
    expect([refused.headers['content-type'], batch.headers['content-type']]).toEqual(['application/xml; charset=utf-8', 'application/json; charset=utf-8']);
    expect(readAnswer(refused.text, shop.secret).body.result_info).toBe('9503:Service temporarily unavailable: try again shortly');
    expect(readAnswer(batch.text, shop.secret).body.return_message).toBe('9503:Service temporarily unavailable: try again shortly');

    expect([health.status, JSON.parse(health.text)]).toEqual([503, { code: '9503', message: 'Service temporarily unavailable: try again shortly' }]);
    await stopped;
  });

  it('answers the kept-alive request it was serving with Connection: close, and closes that connection at once', async () => {
    // Kept alive: no Connection: close. Its headers are in, its body half sent, when the stop begins.
    const payment = post('/v1/authorise', cardPayment(shop.ids));
    const a = await open();
    a.socket.write(payment.head + payment.payload.slice(0, 20));
    await sleep(200);

    await stop();
    a.socket.write(payment.payload.slice(20));
    // Left open, the connection would idle for the keep-alive timeout (60 s here), and the stop with it.
    const served = await Promise.race([a.reply, sleep(20_000).then(() => 'still open' as const)]);

    expect(served).not.toBe('still open');
    if (served === 'still open') return;
    expect([served.status, served.headers.connection]).toEqual([200, 'close']);
    expect(readAnswer(served.text, shop.secret).body.result_info).toBe('0000:Success');
    await stopped;
  });

  it('answers the pages arriving with their 503 page, logged as a refusal and not as a fault', async () => {
    // The hosted payment page (any session: the stop refuses it before it is looked up) and the portal.
    const page = await open();
    page.socket.write('GET /checkout/CS1/tok');
    const portal = await open();
    portal.socket.write('GET /portal/sign');
    await sleep(200);

    await stop();
    page.socket.write('en HTTP/1.1\r\nHost: gateway.test\r\n\r\n');
    portal.socket.write('-in HTTP/1.1\r\nHost: gateway.test\r\n\r\n');
    const answers = await Promise.all([page.reply, portal.reply]);
    await stopped;

    expect(answers.map((answer) => [answer.status, answer.headers['content-type'], answer.headers.connection, answer.headers['retry-after']])).toEqual([
      [503, 'text/html; charset=utf-8', 'close', '1'],
      [503, 'text/html; charset=utf-8', 'close', '1'],
    ]);
    // An expected refusal while stopping, logged as the API's 503s are: at info, never at error.
    const lines = gw.logs.text.trim().split('\n').map((line) => JSON.parse(line) as { level: number; msg: string; status?: number });
    expect(lines.filter((line) => line.level >= 50).map((line) => line.msg)).toEqual([]);
    const refusals = lines.filter((line) => line.status === 503 && line.msg !== 'request').map((line) => [line.level, line.msg]);
    expect(refusals.sort()).toEqual([
      [30, 'page request refused'],
      [30, 'portal request refused'],
    ]);
  });
});
