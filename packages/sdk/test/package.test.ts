// The SDK as a merchant gets it: `npm pack` (which builds it), the tarball installed into a fresh
// project outside the repository with nothing from the network, then used against a listening
// gateway from JavaScript (import and require) under the machine's own Node and the project's
// pinned Node 24, and from TypeScript compiled by `tsc --strict` with no type libraries at all.
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { tempDir } from '../../../test/support/temp.ts';

const run = promisify(execFile);
const ROOT = new URL('../../../', import.meta.url).pathname;
const PACKAGE = join(ROOT, 'packages/sdk');
const PINNED_NODE = join(ROOT, 'node_modules/node/bin/node');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/** The machine's own `node`: the first on PATH that is not a node_modules/.bin shim. */
function systemNode(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '' || dir.includes('node_modules')) continue;
    try {
      accessSync(join(dir, 'node'), constants.X_OK);
      return join(dir, 'node');
    } catch {
      // not here
    }
  }
  throw new Error('no node on PATH outside node_modules');
}

/** npm and the programs it runs see the PATH without this run's npm_* settings. */
const cleanEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir() };

let gw: TestGateway;
let project: string;
let config: string;

beforeAll(async () => {
  gw = await startTestGateway();
  const url = await gw.gateway.server.app.listen({ port: 0, host: '127.0.0.1' });
  const { credentials } = await gw.merchant();
  config = JSON.stringify({ baseUrl: url, merchantId: credentials.merchant_id, accountId: credentials.account_id, secretKey: credentials.secret_key });

  const work = tempDir('acquiro-sdk-');
  const packed = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: PACKAGE, env: cleanEnv, maxBuffer: 16 << 20 });
  const [{ filename, files }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [{ filename: string; files: { path: string }[] }];
  // Only the built package travels: no TypeScript source, no tests.
  expect(files.map((f) => f.path).filter((path) => !path.startsWith('dist/')).sort()).toEqual(['README.md', 'package.json']);
  expect(files.map((f) => f.path)).toEqual(expect.arrayContaining(['dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/cjs/package.json']));

  project = join(work, 'shop');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'shop', version: '1.0.0', private: true, type: 'module' }));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, filename)], { cwd: project, env: cleanEnv });
  const installed = JSON.parse(readFileSync(join(project, 'node_modules/@acquiro/sdk/package.json'), 'utf8')) as { dependencies?: object };
  expect(installed.dependencies ?? {}).toEqual({});
  for (const [name, source] of Object.entries(PROGRAMS)) writeFileSync(join(project, name), source);
}, 240_000);
afterAll(async () => {
  await gw?.close();
  if (project) rmSync(join(project, '..'), { recursive: true, force: true });
});

const PROGRAMS: Record<string, string> = {
  // ES module: a payment, a refund of part of it, a notification check.
  'shop.mjs': `
import { AcquiroClient, sign, verifyNotification } from '@acquiro/sdk';
const config = JSON.parse(process.argv[2]);
const client = new AcquiroClient(config);
const paid = await client.authorise({ order_no: 'ESM-' + Date.now() + '-' + process.pid, currency: 'USD', amount: '12.00', card: '4111111111111111', expiration_month: '12', expiration_year: '2030', security_code: '123' });
const refunded = await client.refund([{ transaction_id: paid.transaction_id, order_no: paid.order_no, currency: 'USD', amount: '12.00', refund_amount: '2.00' }]);
const notice = { notify_id: 'EV1', notify_type: 'payment.captured', notify_time: String(Math.floor(Date.now() / 1000)) };
const notified = verifyNotification({ ...notice, encryption_data: sign(notice, config.secretKey) }, config.secretKey);
console.log(JSON.stringify({ node: process.versions.node, order_status: paid.order_status, refund_status: refunded.refund_orders[0].refund_status, notified }));
`,
  // CommonJS: the worked example of the signing docs, a decline, a refusal.
  'shop.cjs': `
const { AcquiroClient, AnswerError, canonicalString, sign } = require('@acquiro/sdk');
const config = JSON.parse(process.argv[2]);
const body = { merchant_id: 'M100001', account_id: 'A100001', capture_orders: [{ transaction_id: 'T0001', order_no: 'ORD-1', currency: 'USD', amount: '10.00' }, { transaction_id: 'T0002', order_no: 'ORD-2', currency: 'EUR', amount: '5.50' }] };
(async () => {
  const client = new AcquiroClient(config);
  const order = { currency: 'USD', amount: '12.00', card: '4000000000000002', expiration_month: '12', expiration_year: '2030', security_code: '123' };
  const declined = await client.authorise({ ...order, order_no: 'CJS-' + Date.now() + '-' + process.pid });
  const refused = await client.authorise({ ...order, order_no: 'CJS-x', amount: 'ten' }).catch((error) => error);
  console.log(JSON.stringify({ node: process.versions.node, signature: sign(body, 'sk_test_4f3c2b1a'), canonical: canonicalString(body).length, order_status: declined.order_status, refused: refused instanceof AnswerError && refused.code }));
})();
`,
  // TypeScript, ES module and CommonJS flavours, checked by tsc --strict with no @types at all.
  'merchant.ts': `
import { AcquiroClient, AnswerError, verifyReturn, type ClientOptions, type OrderStatus, type PaymentAnswer, type TransactionRecord } from '@acquiro/sdk';

/** What a query record says of the subscription a payment began or belongs to. */
export type Recurring = Pick<TransactionRecord, 'contract_name' | 'recurring_id' | 'recurring_deduction_period' | 'recurring_deduction_time'>;

export async function pay(options: ClientOptions): Promise<{ status: OrderStatus; paymentStatus: string; handOff: boolean; refusedCode: string; returned: boolean }> {
  const client = new AcquiroClient(options);
  const answer: PaymentAnswer = await client.authorise({ order_no: 'TS-' + Date.now(), currency: 'USD', amount: '7.00', card: '5555555555554444', expiration_month: '12', expiration_year: '2030', security_code: '123' });
  // @ts-expect-error: a card payment needs its order_no
  void (() => client.authorise({ currency: 'USD', amount: '1.00', token_id: 'TK1' }));
  // @ts-expect-error: a card group and a token_id do not go together
  void (() => client.authorise({ order_no: 'x', currency: 'USD', amount: '1.00', token_id: 'TK1', card: '4111111111111111', expiration_month: '1', expiration_year: '2030', security_code: '123' }));
  const html: string = await client.checkout({ order_no: 'TS-H-' + Date.now(), currency: 'USD', amount: '7.00', return_url: 'https://shop.example/back' });
  let refusedCode = '';
  try {
    await client.capture([]); // an empty list is refused as a whole
  } catch (error) {
    if (error instanceof AnswerError) refusedCode = error.code;
  }
  const returned = verifyReturn('https://shop.example/back?order_status=1&encryption_data=00', options.secretKey) !== null;
  return { status: answer.order_status, paymentStatus: answer.payment_status, handOff: html.includes('signInfo'), refusedCode, returned };
}
`,
  'required.cts': `
import sdk = require('@acquiro/sdk');
export const signature: string = sdk.sign({ a: '1' }, 'k');
`,
  'tsconfig.json': JSON.stringify({
    compilerOptions: { strict: true, target: 'es2022', lib: ['es2022'], module: 'nodenext', moduleResolution: 'nodenext', types: [], outDir: 'built', skipLibCheck: false },
    files: ['merchant.ts', 'required.cts'],
  }),
  'typed.mjs': `
import { pay } from './built/merchant.js';
import { createRequire } from 'node:module';
const { signature } = createRequire(import.meta.url)('./built/required.cjs');
console.log(JSON.stringify({ ...(await pay(JSON.parse(process.argv[2]))), signature }));
`,
};

async function node(binary: string, program: string): Promise<Record<string, unknown>> {
  const { stdout } = await run(binary, [program, config], { cwd: project, env: cleanEnv });
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe.each([
  ["the machine's own Node", systemNode()],
  ["the project's pinned Node 24", PINNED_NODE],
])('the installed package under %s', (_name, binary) => {
  it('pays, refunds and checks a notification from an ES module', async () => {
    const result = await node(binary, 'shop.mjs');
    expect(Number(String(result.node).split('.')[0])).toBeGreaterThanOrEqual(18);
    expect(result).toMatchObject({ order_status: '1', refund_status: '1', notified: true });
  });

  it('signs, is declined and is refused from CommonJS', async () => {
    expect(await node(binary, 'shop.cjs')).toMatchObject({
      signature: '82b9f118bf679e82c29d2b97c49a1d43c13889278e1d1bd3d008bb520a8edbbb',
      order_status: '0',
      refused: '4002',
    });
  });
});

describe('the installed package from TypeScript', () => {
  it('compiles under tsc --strict against its declarations (import and require) and runs', async () => {
    await run(process.execPath, [TSC, '-p', project], { cwd: project, env: cleanEnv }).catch((error: { stdout?: string }) => {
      throw new Error(`tsc failed:\n${error.stdout ?? String(error)}`);
    });
    expect(await node(systemNode(), 'typed.mjs')).toEqual({ status: '1', paymentStatus: '3000', handOff: true, refusedCode: '4010', returned: false, signature: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });
});

