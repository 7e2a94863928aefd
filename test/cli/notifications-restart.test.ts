// The real gateway as a process: an event committed with its payment is delivered after the
// gateway is killed (SIGKILL) before sending it, and `acquiro worker` delivers on its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sign, verify } from '../../src/sdk/index.ts';
import { cardPayment } from '../support/fixtures.ts';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../support/gateway.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const WAIT_MS = 45_000;

let receiver: Receiver;
let database: TestDatabase | undefined;
let dataDir: string;
const started: ChildProcess[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver?.close());
// Each test starts on an empty database, so the gateway's first start prints a demo merchant.
beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'acquiro-notify-'));
  if (TEST_DB === 'postgres') database = await openTestDatabase();
});
afterEach(async () => {
  for (const child of started.splice(0)) await stop(child, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
  database = undefined;
});

function environment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { DATABASE_URL: _url, ACQUIRO_DATA_DIR: _dir, ACQUIRO_WORKERS: _workers, ...inherited } = process.env;
  return { ...inherited, ...(database ? database.env : { ACQUIRO_DATA_DIR: dataDir }), LOG_LEVEL: 'warn', ...extra };
}

interface Running {
  readonly child: ChildProcess;
  output(): string;
}

function run(args: readonly string[], extra: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: environment(extra), stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, running?: Running): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    if (running && running.child.exitCode !== null) throw new Error(`exited while waiting for ${what}:\n${running.output()}`);
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}${running ? `:\n${running.output()}` : ''}`);
}

function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Gateway extends Running {
  readonly url: string;
}

async function startGateway(extra: Record<string, string>): Promise<Gateway> {
  const port = await freePort();
  const running = run(['src/main.ts'], { PORT: String(port), HOST: '127.0.0.1', ...extra });
  const url = `http://127.0.0.1:${port}`;
  await until('the gateway to answer /health', async () => ((await fetch(`${url}/health`).catch(() => undefined))?.ok ? true : undefined), running);
  return { ...running, url };
}

/** The demo merchant the first start prints. */
function demoCredentials(output: string) {
  const field = (name: string) => new RegExp(`${name}\\s+(\\S+)`).exec(output)?.[1];
  const credentials = { merchant_id: field('merchant_id')!, account_id: field('account_id')!, secret_key: field('secret_key')! };
  expect(credentials.secret_key).toMatch(/^sk_test_/);
  return credentials;
}

/** A signed card payment announced to the receiver; answers its transaction_id. */
async function pay(gateway: Gateway, credentials: ReturnType<typeof demoCredentials>): Promise<string> {
  const body = cardPayment({ merchant_id: credentials.merchant_id, account_id: credentials.account_id }, { notify_url: receiver.url });
  const response = await fetch(`${gateway.url}/v1/authorise`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, encryption_data: sign(body as never, credentials.secret_key) }),
  });
  const answer = await response.text();
  expect(response.status).toBe(200);
  expect(answer).toContain('<result_info>0000:Success</result_info>');
  return /<transaction_id>(T\w+)<\/transaction_id>/.exec(answer)![1]!;
}

const notificationFor = (transactionId: string) => () => receiver.received.find((r) => r.body.transaction_id === transactionId);

describe('a gateway killed between commit and delivery', () => {
  it('delivers the event after it restarts', async () => {
    const first = await startGateway({ ACQUIRO_WORKERS: 'off' });
    const credentials = demoCredentials(first.output());
    const transactionId = await pay(first, credentials);
    await stop(first.child, 'SIGKILL');
    expect(notificationFor(transactionId)()).toBeUndefined();

    await startGateway({});
    const delivered = await until('the notification', notificationFor(transactionId));
    expect(verify(delivered.body, credentials.secret_key)).toBe(true);
    expect(delivered.body).toMatchObject({ notify_type: 'payment.captured', transaction_id: transactionId, merchant_id: credentials.merchant_id });
    expect(delivered.body.notify_id).toMatch(/^EV[0-9A-Z]{26}$/);
  });
});

describe('acquiro worker', () => {
  it('delivers what a gateway without workers recorded, and answers notifications list', async () => {
    const gateway = await startGateway({ ACQUIRO_WORKERS: 'off' });
    const credentials = demoCredentials(gateway.output());
    const transactionId = await pay(gateway, credentials);
    // On the embedded database one process owns the data: the gateway stops first.
    await stop(gateway.child, 'SIGTERM');

    const worker = run(['bin/acquiro.js', 'worker']);
    const delivered = await until('the notification', notificationFor(transactionId), worker);
    expect(verify(delivered.body, credentials.secret_key)).toBe(true);

    const listing = run(['bin/acquiro.js', 'notifications', 'list', '--json', '--status', 'delivered']);
    await new Promise((resolve) => listing.child.once('exit', resolve));
    expect(listing.child.exitCode).toBe(0);
    expect(JSON.parse(listing.output()).map((n: any) => n.transaction_id)).toContain(transactionId);
    await stop(worker.child, 'SIGTERM');
    expect(worker.child.exitCode).toBe(0);
  });
});
