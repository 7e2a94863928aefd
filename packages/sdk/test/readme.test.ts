// The README's examples run as written, one after the other as a merchant would paste them, against
// a listening gateway: only the client's address and credentials are the test gateway's, and
// `response` is the shopper's Node http.ServerResponse the checkout example writes to.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/cli/commands.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import * as sdk from '../src/index.ts';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The ```js blocks, in order. */
const blocks = [...README.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]!);

/** `import { a, b } from 'x'` as a statement an async function body can hold. */
function withoutImports(code: string): string {
  return code.replace(/^import \{([^}]+)\} from '([^']+)';$/gm, (_line, names: string, from: string) => `const {${names}} = ${from === '@acquiro/sdk' ? '__sdk' : `await __import('${from}')`};`);
}

let gw: TestGateway;
let env: { url: string; merchant_id: string; account_id: string; secret_key: string };

beforeAll(async () => {
  gw = await startTestGateway();
  const url = await gw.gateway.server.app.listen({ port: 0, host: '127.0.0.1' });
  // The examples capture part of a payment, then refund it: an account that captures on request.
  const { credentials } = await gw.merchant({ captureMode: 'manual' });
  env = { url, ...credentials };
  const ids = ['--merchant-id', credentials.merchant_id, '--account-id', credentials.account_id];
  expect((await runCommand(['ips', 'add', ...ids, '--cidr', '127.0.0.1/32'], gw.gateway.deps)).exitCode).toBe(0);
  expect((await runCommand(['balance', 'topup', ...ids, '--currency', 'USD', '--amount', '1000.00'], gw.gateway.deps)).exitCode).toBe(0);
});
afterAll(() => gw?.close());

describe('packages/sdk/README.md', () => {
  it('has its examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(10);
  });

  it('runs every example as written, in order, against a gateway', async () => {
    const client = blocks[0]!.replace("'https://pay.example.com'", JSON.stringify(env.url)).replace("'M100001'", JSON.stringify(env.merchant_id)).replace("'A100001'", JSON.stringify(env.account_id));
    const program = [client, ...blocks.slice(1)].map(withoutImports).join('\n');
    const written: { status?: number; body?: string } = {};
    const response = { writeHead: (status: number) => ({ end: (body: string) => Object.assign(written, { status, body }) }) };
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<Record<string, unknown>>;
    const run = new AsyncFunction('__sdk', '__import', 'process', 'response', `${program}\nreturn { payment, apm, captured, refunded, done, orders_list, refund_list, payment_methods, payout, onNotification, onReturn, signed };`);
    const results = await run(sdk, (name: string) => import(name), { env: { ACQUIRO_SECRET_KEY: env.secret_key } }, response);

    // What the examples' comments say they give.
    expect(results.payment).toMatchObject({ order_status: '1', payment_status: '2000', result_info: '0000:Success' });
    expect(results.apm).toMatchObject({ issuer_url: expect.stringContaining('/sandbox/apm/') });
    expect(written).toMatchObject({ status: 200, body: expect.stringMatching(/^<!doctype html>/i) });
    expect(results.captured).toMatchObject({ capture_orders: [{ capture_status: '1' }] });
    expect(results.refunded).toMatchObject({ refund_orders: [{ refund_status: '1', refund_reference_id: expect.stringMatching(/^RF/) }] });
    expect(results.done).toMatchObject({ cancel_status: '1' });
    expect(results.orders_list).toHaveLength(2);
    expect(results.refund_list).toHaveLength(1);
    expect(results.payment_methods).not.toHaveLength(0);
    expect(results.payout).toMatchObject({ status: expect.stringMatching(/^(PROCESSING|SCHEDULED|FAILED)$/) });
    const onNotification = results.onNotification as (raw: string) => number;
    const notice = { notify_id: 'EV1', notify_type: 'payment.captured', notify_time: Math.floor(Date.now() / 1000) };
    expect(onNotification(JSON.stringify({ ...notice, encryption_data: sdk.sign(notice, env.secret_key) }))).toBe(200);
    expect(onNotification(JSON.stringify({ ...notice, encryption_data: sdk.sign(notice, 'another key') }))).toBe(401);
    const onReturn = results.onReturn as (url: string) => string;
    const back = { order_no: 'ORD-1004', order_status: '1', return_time: String(Math.floor(Date.now() / 1000)) };
    expect(onReturn(`/return?${new URLSearchParams({ ...back, encryption_data: sdk.sign(back, env.secret_key) })}`)).toBe('1');
    expect(onReturn(`/return?${new URLSearchParams({ ...back, encryption_data: sdk.sign(back, 'another key') })}`)).toMatch(/not from the gateway/);
    expect(sdk.verify(results.signed as object, env.secret_key)).toBe(true);
  });
});
