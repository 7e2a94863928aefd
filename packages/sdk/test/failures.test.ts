// How the client reports and survives what goes wrong between it and a real listening gateway: no
// connection, an answer lost after the gateway acted, a timeout, a 503 `9503`, a batch with some
// orders not done. The network is intercepted (a fetch that fails or drops the answer); the
// gateway and its database are real, so "done once" is what the gateway itself reports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/cli/commands.ts';
import { orderNo } from '../../../test/support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { AcquiroClient, AnswerError, sign, type FetchLike } from '../src/index.ts';

let gw: TestGateway;
let url: string;
let credentials: { merchant_id: string; account_id: string; secret_key: string };

beforeAll(async () => {
  gw = await startTestGateway();
  url = await gw.gateway.server.app.listen({ port: 0, host: '127.0.0.1' });
  credentials = (await gw.merchant({ captureMode: 'manual' })).credentials;
  const added = await runCommand(['ips', 'add', '--merchant-id', credentials.merchant_id, '--account-id', credentials.account_id, '--cidr', '127.0.0.1/32'], gw.gateway.deps);
  expect(added.exitCode).toBe(0);
});
afterAll(() => gw?.close());

interface Sent {
  readonly path: string;
  readonly key: string | undefined;
  readonly body: string;
}

/**
 * A client whose network does, attempt by attempt, what `plan` says: `pass` sends to the gateway;
 * `refuse` fails before sending (no connection); `drop` sends, lets the gateway act, and loses
 * the answer; a function answers in the gateway's place.
 */
function clientWith(plan: (attempt: number, path: string) => 'pass' | 'refuse' | 'drop' | ((sent: Sent) => Response), options: { retries?: number; timeoutMs?: number } = {}) {
  const sent: Sent[] = [];
  const fetch: FetchLike = async (target, init) => {
    const path = new URL(target).pathname;
    const request = { path, key: init.headers['idempotency-key'], body: init.body };
    sent.push(request);
    const step = plan(sent.length, path);
    if (step === 'refuse') throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') });
    if (typeof step === 'function') return step(request);
    const response = await globalThis.fetch(target, init as RequestInit);
    if (step === 'drop') {
      await response.text();
      throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    }
    return response;
  };
  const client = new AcquiroClient({ baseUrl: url, merchantId: credentials.merchant_id, accountId: credentials.account_id, secretKey: credentials.secret_key, fetch, ...options });
  return { client, sent };
}

const direct = () => new AcquiroClient({ baseUrl: url, merchantId: credentials.merchant_id, accountId: credentials.account_id, secretKey: credentials.secret_key });

async function capturedPayment(amount = '30.00') {
  const client = direct();
  const paid = await client.authorise({ order_no: orderNo(), currency: 'EUR', amount, card: '4111111111111111', expiration_month: '12', expiration_year: '2030', security_code: '123' });
  const ref = { transaction_id: paid.transaction_id, order_no: paid.order_no, currency: 'EUR', amount };
  await client.capture([ref]);
  return ref;
}

/** What the gateway says was refunded of the payment. */
async function refunded(transactionId: string): Promise<unknown> {
  return (await direct().refundSearch({ transaction_id: [transactionId] })).refund_list.map((r) => r.refund_amount);
}

const rejection = (promise: Promise<unknown>) => promise.then(() => expect.fail('resolved'), (error: unknown) => error as AnswerError);

/** A signed answer as the gateway writes a 503 `9503`, with Retry-After. */
const unavailable = (fields: Record<string, unknown>) => () => {
  const answer = { merchant_id: credentials.merchant_id, account_id: credentials.account_id, return_status: '0', return_message: '9503:Service temporarily unavailable: try again shortly', ...fields };
  return new Response(JSON.stringify({ ...answer, encryption_data: sign(answer, credentials.secret_key) }), { status: 503, headers: { 'retry-after': '1' } });
};

describe('capture, review, cancel and refund go under an Idempotency-Key', () => {
  it('sends a new key with each call, and the same key (and body) on its own retries', async () => {
    const ref = await capturedPayment();
    const { client, sent } = clientWith((attempt) => (attempt === 1 ? 'refuse' : 'pass'));
    const answer = await client.refund([{ ...ref, refund_amount: '5.00' }]);
    expect(answer.refund_orders[0]).toMatchObject({ refund_status: '1' });
    expect(sent).toHaveLength(2);
    expect(sent[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]).toEqual(sent[0]);
    await client.refund([{ ...ref, refund_amount: '1.00' }]);
    expect(sent[2]!.key).not.toBe(sent[0]!.key);
  });

  it('repeats a refund whose answer was lost with the same key: the gateway replays it, nothing is refunded twice', async () => {
    const ref = await capturedPayment();
    const { client, sent } = clientWith((attempt) => (attempt === 1 ? 'drop' : 'pass'));
    const answer = await client.refund([{ ...ref, refund_amount: '5.00' }], { idempotencyKey: `rf-${ref.transaction_id}` });
    expect(answer.refund_orders[0]).toMatchObject({ refund_status: '1', refund_amount: '5.00' });
    expect(sent.map((s) => s.key)).toEqual([`rf-${ref.transaction_id}`, `rf-${ref.transaction_id}`]);
    expect(await refunded(ref.transaction_id)).toEqual(['5.00']);
  });

  it('gives up after `retries`, saying the outcome is unknown and which key to repeat it with', async () => {
    const ref = await capturedPayment();
    const { client, sent } = clientWith(() => 'drop', { retries: 1 });
    const error = await rejection(client.refund([{ ...ref, refund_amount: '5.00' }]));
    expect(error).toBeInstanceOf(AnswerError);
    expect(error).toMatchObject({ problem: 'timeout', status: 0, retryable: true, attempts: 2, idempotencyKey: sent[0]!.key });
    expect(error.message).toMatch(/may or may not have been carried out/);
    // The merchant's own repeat with that key: still one refund.
    await direct().refund([{ ...ref, refund_amount: '5.00' }], { idempotencyKey: error.idempotencyKey! });
    expect(await refunded(ref.transaction_id)).toEqual(['5.00']);
  });

  it('sends a batch again with its key when some of its orders were not done (9503 on those orders)', async () => {
    const ref = await capturedPayment();
    const partly = (sent: Sent) => {
      const order = { ...(JSON.parse(sent.body) as { refund_orders: Record<string, string>[] }).refund_orders[0], refund_status: '0', error_message: '9503:Service temporarily unavailable: try again shortly' };
      const answer = { merchant_id: credentials.merchant_id, account_id: credentials.account_id, return_status: '1', return_message: 'OK', refund_orders: [order] };
      return new Response(JSON.stringify({ ...answer, encryption_data: sign(answer, credentials.secret_key) }));
    };
    const { client, sent } = clientWith((attempt) => (attempt === 1 ? partly : 'pass'));
    const answer = await client.refund([{ ...ref, refund_amount: '2.00' }]);
    expect(answer.refund_orders[0]).toMatchObject({ refund_status: '1', error_message: '' });
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual(sent[0]);
  });
});

describe('what is repeated, and what is not', () => {
  it('never repeats an unanswered call() without an idempotencyKey: a refund without a key would refund again', async () => {
    const ref = await capturedPayment();
    const { client, sent } = clientWith(() => 'drop');
    const error = await rejection(client.call('/v1/refund', { refund_orders: [{ ...ref, refund_amount: '5.00' }] }));
    expect(error).toMatchObject({ problem: 'timeout', retryable: false, attempts: 1, idempotencyKey: undefined });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.key).toBeUndefined();
    expect(await refunded(ref.transaction_id)).toEqual(['5.00']);
  });

  it('repeats a payment that got no answer with its order_no: one payment', async () => {
    const { client, sent } = clientWith((attempt) => (attempt === 1 ? 'drop' : 'pass'));
    const order = { order_no: orderNo(), currency: 'EUR', amount: '9.00', card: '4111111111111111', expiration_month: '12', expiration_year: '2030', security_code: '123' } as const;
    const answer = await client.authorise(order);
    expect(answer.order_status).toBe('1');
    expect(sent).toHaveLength(2);
    expect((await direct().authorise(order)).transaction_id).toBe(answer.transaction_id);
  });

  it('does not repeat a refusal (400), and reports it with its code', async () => {
    const { client, sent } = clientWith(() => 'pass');
    const error = await rejection(client.authorise({ order_no: orderNo(), currency: 'EUR', amount: '9,00', token_id: 'TK0' }));
    expect(error).toMatchObject({ problem: 'refused', status: 400, code: '4002', retryable: false, attempts: 1 });
    expect(sent).toHaveLength(1);
  });

  it('repeats a 503 9503 after its Retry-After, and reports it when retries are spent', async () => {
    const { client, sent } = clientWith((attempt) => (attempt === 1 ? unavailable({ orders_list: [] }) : 'pass'));
    const started = Date.now();
    const found = await client.refundSearch({ transaction_id: ['T0'] });
    expect(found.return_status).toBe('1');
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual(sent[0]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);

    const never = clientWith(() => unavailable({}), { retries: 0 });
    const error = await rejection(never.client.capture([{ transaction_id: 'T0', order_no: 'O0', currency: 'EUR', amount: '1.00' }]));
    expect(error).toMatchObject({ problem: 'refused', status: 503, code: '9503', verified: true, retryable: true, retryAfter: 1, attempts: 1 });
    expect(error.idempotencyKey).toBe(never.sent[0]!.key);
  });

  it('reports no connection and a timeout as such, with the cause', async () => {
    const refused = clientWith(() => 'refuse', { retries: 0 });
    const error = await rejection(refused.client.query({ order_no: 'ORD-1' }));
    expect(error).toMatchObject({ problem: 'network', status: 0, retryable: true, attempts: 1 });
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(error.cause).toBeInstanceOf(TypeError);

    // A gateway that never answers: the client's own timer ends the attempt.
    const silent: FetchLike = (_url, init) => new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    const slow = new AcquiroClient({ baseUrl: url, merchantId: 'M', accountId: 'A', secretKey: 'k', fetch: silent, timeoutMs: 50, retries: 1 });
    const timedOut = await rejection(slow.optimisePaymentMethods({ currency: 'EUR', amount: '1.00' }));
    expect(timedOut).toMatchObject({ problem: 'timeout', status: 0, retryable: true, attempts: 2 });
    expect(timedOut.message).toMatch(/no answer within 50 ms/);
  });

  it('signs the body as JSON sends it: a Date, a NaN or a value with toJSON signs what the gateway reads', async () => {
    const { client } = clientWith(() => 'pass', { retries: 0 });
    const answer = await client.authorise({
      order_no: orderNo(),
      currency: 'EUR',
      amount: '4.00',
      card: '4111111111111111',
      expiration_month: '12',
      expiration_year: '2030',
      security_code: '123',
      note: { toJSON: () => 'gift wrap' } as never,
      account_owner: [{ created: Number.NaN, first_name: 'Zoë' }],
      custom: new Date('2030-01-31T00:00:00Z') as never,
    });
    expect(answer).toMatchObject({ order_status: '1', note: 'gift wrap' });
  });
});
