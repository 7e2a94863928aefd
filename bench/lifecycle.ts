// Latency of the batch operations at the sizes merchants use: a 50-order refund batch and a
// 100-order query, each sent one at a time, p50/p99 over many rounds.
import { randomBytes } from 'node:crypto';
import { sign } from '../src/domain/signature.ts';
import { freshCard } from '../test/support/fixtures.ts';
import { postJson } from './load.ts';

export interface Account {
  readonly merchant_id: string;
  readonly account_id: string;
  readonly secret: string;
}

async function post(url: string, path: string, account: Account, fields: Record<string, unknown>): Promise<{ ms: number; body: string }> {
  const body = { merchant_id: account.merchant_id, account_id: account.account_id, ...fields };
  const payload = JSON.stringify({ ...body, encryption_data: sign(body as never, account.secret) });
  const started = performance.now();
  const { status, text } = await postJson(`${url}${path}`, payload);
  const ms = performance.now() - started;
  if (status !== 200) throw new Error(`${path} answered ${status}: ${text.slice(0, 300)}`);
  return { ms, body: text };
}

const percentile = (samples: number[], p: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

export interface LifecycleFigures {
  readonly refund: { p50: number; p99: number; rounds: number };
  readonly query: { p50: number; p99: number; rounds: number };
}

export type Order = { readonly transaction_id: string; readonly order_no: string };

/** 100 approved card payments to refund and query. */
export async function prepareOrders(url: string, account: Account): Promise<Order[]> {
  const tag = randomBytes(3).toString('hex');
  const orders: Order[] = [];
  for (let i = 0; i < 100; i++) {
    const order_no = `BL-${tag}-${i}`;
    const { body } = await post(url, '/v1/authorise', account, {
      order_no,
      currency: 'USD',
      amount: '150.00',
      card: freshCard(),
      expiration_month: '12',
      expiration_year: '2030',
      security_code: '123',
    });
    orders.push({ order_no, transaction_id: /<transaction_id>([^<]+)</.exec(body)![1]! });
  }
  return orders;
}

/** Times of `rounds` queries of the 100 orders' order_no, one at a time (needs 127.0.0.1 registered for queries). */
export async function queryTimes(url: string, account: Account, orders: readonly Order[], rounds: number): Promise<number[]> {
  const times: number[] = [];
  const order_no = orders.map((o) => o.order_no).join(',');
  for (let i = 0; i < rounds; i++) {
    const { ms, body } = await post(url, '/v1/retrievalTrans', account, { order_no });
    if ((body.match(/"query_result":"1"/g) ?? []).length !== orders.length) throw new Error(`query ${i} did not find ${orders.length} orders: ${body.slice(0, 300)}`);
    times.push(ms);
  }
  return times;
}

/** Times of `rounds` refund batches of 1.00 on each of the first 50 orders, one at a time. */
export async function refundTimes(url: string, account: Account, orders: readonly Order[], rounds: number): Promise<number[]> {
  const times: number[] = [];
  const refundOrders = orders.slice(0, 50).map((o) => ({ ...o, currency: 'USD', amount: '150.00', refund_amount: '1.00' }));
  for (let i = 0; i < rounds; i++) {
    const { ms, body } = await post(url, '/v1/refund', account, { refund_orders: refundOrders });
    if ((body.match(/"refund_status":"1"/g) ?? []).length !== refundOrders.length) throw new Error(`refund batch ${i} did not refund ${refundOrders.length} orders: ${body.slice(0, 300)}`);
    times.push(ms);
  }
  return times;
}

/** Rounds sent before each timed phase, untimed. A refund round takes 1.00 of each order's 150.00: warm and timed rounds stay within it. */
const WARM_ROUNDS = 10;

/** Needs the calling address (127.0.0.1) registered for the account's queries. */
export async function lifecycleLatencies(
  url: string,
  account: Account,
  rounds = { refund: 100, query: 200 },
  betweenPhases: () => Promise<void> = async () => {},
): Promise<LifecycleFigures> {
  const orders = await prepareOrders(url, account);
  // The query first: the refund rounds update the same payment rows thousands of times. Each
  // phase is timed once its path is warm, as the authorisation phases are: the first rounds of a
  // path the server has not run yet pay its compilation and the engine's first plans (on PGlite
  // the first refund batch took twice the p50, and its p99 of 100 was the second one's).
  await queryTimes(url, account, orders, WARM_ROUNDS);
  await betweenPhases();
  const query = await queryTimes(url, account, orders, rounds.query);
  await refundTimes(url, account, orders, WARM_ROUNDS);
  await betweenPhases();
  const refund = await refundTimes(url, account, orders, rounds.refund);
  const figures = (times: number[]) => ({ p50: percentile(times, 50), p99: percentile(times, 99), rounds: times.length });
  return { refund: figures(refund), query: figures(query) };
}
