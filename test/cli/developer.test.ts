// The commands a merchant's developer and an operator reach for first: --version, help that
// never touches the data directory, sign and call, the demo merchant, payments list|show, and
// logs a person can read at a terminal. Real processes throughout.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPILE_CACHE } from '../support/child-node.ts';
import { sign } from '../../src/domain/signature.ts';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../support/gateway.ts';
import { moduleLog } from '../support/loaded-modules.ts';
import { acquiro, freePort, migratedDataDir, startServer, tempDataDir, whileRunning, type RunningServer } from '../support/processes.ts';
import { until } from '../support/until.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const VERSION = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string }).version;
// The worked example of docs/signing.md.
const EXAMPLE_KEY = 'sk_test_4f3c2b1a';
const EXAMPLE =
  '{"merchant_id":"M100001","account_id":"A100001","capture_orders":[{"transaction_id":"T0001","order_no":"ORD-1","currency":"USD","amount":"10.00"},{"transaction_id":"T0002","order_no":"ORD-2","currency":"EUR","amount":"5.50"}]}';
const EXAMPLE_SIGNATURE = '82b9f118bf679e82c29d2b97c49a1d43c13889278e1d1bd3d008bb520a8edbbb';

/** `acquiro <args>` with `input` on its standard input. */
const acquiroWith = (args: readonly string[], input: string, env: Record<string, string>) => acquiro(args, env, input);

// These commands use no database, so which one the project tests is no matter: they run once.
describe.runIf(TEST_DB === 'pglite').concurrent('without any database', () => {
  const nowhere = () => ({ ACQUIRO_DATA_DIR: `${tempDataDir()}/never-created` });

  // What they load is what they cost to start: commander and a few pure modules, none of the
  // gateway (its configuration, database, HTTP server or use cases).
  const GATEWAY = /^(src\/(gateway|serve|config|startup)\.ts|src\/(db\/client|http\/server|http\/catalogue)\.ts|node_modules\/(typebox|drizzle-orm|fastify|@electric-sql|pg)\/)/;
  it.each([
    { args: ['--help'], exit: 0 },
    { args: ['--version'], exit: 0 },
    { args: ['merchants', 'create', '--help'], exit: 0 },
    { args: ['sign', '--path', '/v1/capture'], exit: 0 },
    { args: ['call', '/v1/capture', '--url', 'http://127.0.0.1:1'], exit: 1 },
  ])('acquiro $args loads nothing of the gateway', async ({ args, exit }) => {
    const log = moduleLog();
    const run = await acquiroWith(args, EXAMPLE, { ...nowhere(), ACQUIRO_SECRET_KEY: EXAMPLE_KEY, ...log.env });
    expect(run.code, run.stderr).toBe(exit);
    const loaded = log.loaded();
    expect(loaded).toContain('src/cli/main.ts');
    expect(loaded.filter((path) => GATEWAY.test(path))).toEqual([]);
    expect(loaded.length).toBeLessThan(150);
  });

  it('prints the version', async () => {
    const run = await acquiro(['--version'], nowhere());
    expect([run.code, run.stdout]).toEqual([0, `${VERSION}\n`]);
  });

  it('prints serve --help and worker --help without touching the data directory', { timeout: 120_000 }, async () => {
    for (const command of ['serve', 'worker']) {
      const env = nowhere();
      const run = await acquiro([command, '--help'], env);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^Usage: acquiro ${command}`));
      expect(run.stdout).toContain('ACQUIRO_DATA_DIR');
      expect(existsSync(env.ACQUIRO_DATA_DIR)).toBe(false);
    }
  });

  it('marks required options as required in help', async () => {
    const run = await acquiro(['ips', 'add', '--help'], nowhere());
    expect(run.stdout).toMatch(/--merchant-id <id> +\(required\)/);
    expect(run.stdout).toMatch(/--cidr <cidr> +an address .*\(required\)/);
    expect(run.stdout).toMatch(/--json +print JSON\n/);
  });

  it('signs a body from stdin with ACQUIRO_SECRET_KEY: the worked example, in each format', { timeout: 120_000 }, async () => {
    const env = { ...nowhere(), ACQUIRO_SECRET_KEY: EXAMPLE_KEY };
    const json = await acquiroWith(['sign'], EXAMPLE, env);
    expect([json.code, json.stderr]).toEqual([0, '']);
    expect(JSON.parse(json.stdout)).toEqual({ ...JSON.parse(EXAMPLE), encryption_data: EXAMPLE_SIGNATURE });
    expect((await acquiroWith(['sign', '--signature-only'], EXAMPLE, env)).stdout).toBe(`${EXAMPLE_SIGNATURE}\n`);

    const form =
      'capture_orders[0][transaction_id]=T0001&capture_orders[0][order_no]=ORD-1&capture_orders[0][currency]=USD&capture_orders[0][amount]=10.00&' +
      'capture_orders[1][transaction_id]=T0002&capture_orders[1][order_no]=ORD-2&capture_orders[1][currency]=EUR&capture_orders[1][amount]=5.50';
    const ids = { ACQUIRO_MERCHANT_ID: 'M100001', ACQUIRO_ACCOUNT_ID: 'A100001' };
    const signedForm = await acquiroWith(['sign'], form, { ...env, ...ids });
    expect(signedForm.stdout).toBe(`merchant_id=M100001&account_id=A100001&${form}&encryption_data=${EXAMPLE_SIGNATURE}\n`);

    // One capture order in XML is still a list when the operation is named.
    const xml = '<request><merchant_id>M1</merchant_id><account_id>A1</account_id><capture_orders><amount>1.00</amount></capture_orders></request>';
    const expected = sign({ merchant_id: 'M1', account_id: 'A1', capture_orders: [{ amount: '1.00' }] }, EXAMPLE_KEY);
    const signedXml = await acquiroWith(['sign', '--path', '/v1/capture'], xml, env);
    expect(signedXml.stdout).toBe(`${xml.replace('</request>', `<encryption_data>${expected}</encryption_data></request>`)}\n`);
    expect((await acquiroWith(['sign', '--canonical', '--path', '/v1/capture'], xml, env)).stdout).toBe('account_id=A1&capture_orders[0].amount=1.00&merchant_id=M1\n');
  });

  // `--verbose` may come anywhere (docs/operations.md): before the command's name, sign was taken
  // for a database command, read the gateway's settings (a bad PORT stopped it, exit 78) and, with a
  // server on the data directory, would have run inside that server.
  it('signs with --verbose before the command as after it, reading no setting of the gateway', { timeout: 120_000 }, async () => {
    const env = { ...nowhere(), ACQUIRO_SECRET_KEY: EXAMPLE_KEY, PORT: 'not-a-port' };
    for (const args of [['sign', '--signature-only', '--verbose'], ['--verbose', 'sign', '--signature-only']]) {
      const run = await acquiroWith(args, EXAMPLE, env);
      expect([run.code, run.stdout, run.stderr]).toEqual([0, `${EXAMPLE_SIGNATURE}\n`, '']);
    }
    expect(existsSync(env.ACQUIRO_DATA_DIR)).toBe(false);
  });

  it('refuses to sign without a key or a body, saying what to do', { timeout: 120_000 }, async () => {
    const noKey = await acquiroWith(['sign'], EXAMPLE, nowhere());
    expect([noKey.code, noKey.stderr]).toEqual([2, expect.stringMatching(/^error: set ACQUIRO_SECRET_KEY/)]);
    const noBody = await acquiroWith(['sign'], ' \n', { ...nowhere(), ACQUIRO_SECRET_KEY: EXAMPLE_KEY });
    expect([noBody.code, noBody.stderr]).toEqual([2, expect.stringMatching(/^error: no body on the standard input/)]);
    const unknown = await acquiroWith(['call', '/v1/nothing'], EXAMPLE, { ...nowhere(), ACQUIRO_SECRET_KEY: EXAMPLE_KEY });
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringMatching(/^error: \/v1\/nothing is not an operation of the gateway; one of \/v1\/authorise/)]);
    const down = await acquiroWith(['call', '/v1/capture', '--url', `http://127.0.0.1:${await freePort()}`], EXAMPLE, { ACQUIRO_SECRET_KEY: EXAMPLE_KEY });
    expect([down.code, down.stderr]).toEqual([1, expect.stringMatching(/^error: cannot reach http:\/\/127\.0\.0\.1:\d+ .*is the gateway running\?/)]);
  });

  it('posts under the path of --url, as the SDK does with its baseUrl, and refuses a --url that is not http(s)', { timeout: 120_000 }, async () => {
    // A gateway behind a proxy under a path: new URL('/v1/capture', url) dropped the path.
    const paths: string[] = [];
    const proxy = createServer((request, response) => {
      paths.push(request.url ?? '');
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/pay/`;
      const run = await acquiroWith(['call', '/v1/capture', '--url', url], EXAMPLE, { ...nowhere(), ACQUIRO_SECRET_KEY: EXAMPLE_KEY });
      expect(run.code).toBe(1);
      expect(paths).toEqual(['/pay/v1/capture']);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
    for (const url of ['notaurl', 'ftp://127.0.0.1/']) {
      const run = await acquiroWith(['call', '/v1/capture', '--url', url], EXAMPLE, { ...nowhere(), ACQUIRO_SECRET_KEY: EXAMPLE_KEY });
      expect([run.code, run.stderr]).toEqual([2, `error: --url ${url} is not an http(s) URL of the gateway, such as http://127.0.0.1:8080\n`]);
    }
  });
});

describe('beside a running gateway', () => {
  let db: TestDatabase | undefined;
  let env: Record<string, string>;
  let server: RunningServer;
  let demo: { merchant_id: string; account_id: string; secret_key: string; query_ips: string[] };

  beforeAll(async () => {
    db = TEST_DB === 'postgres' ? await openTestDatabase(2) : undefined;
    env = db?.env ?? { ACQUIRO_DATA_DIR: await migratedDataDir() };
    server = await startServer({ ...env, LOG_LEVEL: 'info' });
    const shown = await acquiro(['demo', '--json'], env);
    expect([shown.code, shown.stderr]).toEqual([0, '']);
    demo = JSON.parse(shown.stdout);
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('acquiro demo prints the credentials of the first start, with loopback query IPs', async () => {
    expect(server.output()).toContain(`secret_key  ${demo.secret_key}\n  query IPs   127.0.0.1/32, ::1/128`);
    expect(demo).toMatchObject({ merchant_id: expect.stringMatching(/^M\d+$/), query_ips: ['127.0.0.1/32', '::1/128'] });
    const exports = await acquiro(['demo', '--env'], env);
    expect(exports.stdout).toBe(`export ACQUIRO_MERCHANT_ID=${demo.merchant_id}\nexport ACQUIRO_ACCOUNT_ID=${demo.account_id}\nexport ACQUIRO_SECRET_KEY=${demo.secret_key}\n`);
  });

  it('logs JSON lines when its output is not a terminal', () => {
    const ready = server.output().split('\n').find((line) => line.includes('acquiro is ready'));
    expect(JSON.parse(ready!)).toMatchObject({ level: 30, msg: 'acquiro is ready', mode: 'sandbox' });
  });

  it('acquiro call signs, posts, prints the answer and says that its signature verifies', { timeout: 120_000 }, async () => {
    const client = { ACQUIRO_URL: server.url, ACQUIRO_MERCHANT_ID: demo.merchant_id, ACQUIRO_ACCOUNT_ID: demo.account_id, ACQUIRO_SECRET_KEY: demo.secret_key };
    const payment = '{"order_no":"CLI-1","currency":"USD","amount":"12.00","card":"4111111111111111","expiration_month":"12","expiration_year":"2034","security_code":"123"}';
    const paid = await acquiroWith(['call', '/v1/authorise'], payment, client);
    expect([paid.code, paid.stderr]).toEqual([0, "HTTP 200; the answer's encryption_data verifies\n"]);
    expect(paid.stdout).toMatch(/^<\?xml[^]*<order_status>1<\/order_status><payment_status>3000<\/payment_status>[^]*<\/respon>\n$/);

    const query = await acquiroWith(['call', '/v1/retrievalTrans'], 'order_no=CLI-1', client);
    expect([query.code, JSON.parse(query.stdout).orders_list[0].payment_status]).toEqual([0, '3000']);

    const wrongKey = await acquiroWith(['call', '/v1/authorise'], payment, { ...client, ACQUIRO_SECRET_KEY: 'sk_test_not_this_one' });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toBe("HTTP 401; the answer's encryption_data does NOT verify with ACQUIRO_SECRET_KEY\n");
    expect(wrongKey.stdout).toContain('sandbox: the gateway signed');
    const unknownAccount = await acquiroWith(['call', '/v1/authorise'], payment, { ...client, ACQUIRO_ACCOUNT_ID: 'A999999' });
    expect([unknownAccount.code, unknownAccount.stderr]).toEqual([1, 'HTTP 404; the answer carries no encryption_data\n']);
  });

  it('acquiro payments list filters by order_no, transaction_id, status and time window; show prints one in full', { timeout: 120_000 }, async () => {
    const client = { ACQUIRO_URL: server.url, ACQUIRO_MERCHANT_ID: demo.merchant_id, ACQUIRO_ACCOUNT_ID: demo.account_id, ACQUIRO_SECRET_KEY: demo.secret_key };
    const pay = (orderNo: string, card: string) =>
      acquiroWith(['call', '/v1/authorise'], JSON.stringify({ order_no: orderNo, currency: 'EUR', amount: '3.00', card, expiration_month: '12', expiration_year: '2034', security_code: '123' }), client);
    // The window starts a second back; the payments of the tests before must be older than that.
    await sleep(1_100);
    const before = new Date(Date.now() - 1000).toISOString();
    await pay('LIST-1', '4111111111111111');
    await pay('LIST-2', '4000000000009995');

    const list = async (...args: string[]) => {
      const run = await acquiro(['payments', 'list', '--json', ...args], env);
      expect([run.code, run.stderr]).toEqual([0, '']);
      return JSON.parse(run.stdout) as Record<string, string>[];
    };
    const [[first], failed, window, none, table] = await Promise.all([
      list('--order-no', 'LIST-1'),
      list('--status', 'failed', '--from', before),
      list('--from', before, '--account-id', demo.account_id),
      list('--to', '2000-01-01'),
      acquiro(['payments', 'list', '--order-no', 'LIST-2'], env),
    ]);
    expect(first).toMatchObject({ order_no: 'LIST-1', status: 'captured', payment_status: '3000', amount: '3.00', currency: 'EUR', card: '411111******1111' });
    expect(failed.map((p) => p.order_no)).toEqual(['LIST-2']);
    expect(window.map((p) => p.order_no)).toEqual(['LIST-2', 'LIST-1']);
    expect(none).toEqual([]);
    expect(table.stdout).toMatch(/^transaction_id +account_id +order_no +status +amount +currency +card +created_at\nT\w+ +A\d+ +LIST-2 +failed +3\.00 +EUR +400000\*{6}9995 /);

    const [byId, shown, byOrderRun] = await Promise.all([
      list('--transaction-id', first!.transaction_id!),
      acquiro(['payments', 'show', first!.transaction_id!], env),
      acquiro(['payments', 'show', '--order-no', 'LIST-2', '--account-id', demo.account_id, '--json'], env),
    ]);
    expect(byId.map((p) => p.order_no)).toEqual(['LIST-1']);
    // A day alone: --from from its start, --to to its end (UTC). `--to <day>` stopped at the day's
    // first instant, so `--from D --to D` listed nothing of day D.
    const day = first!.created_at!.slice(0, 10);
    const [sameDay, timeWithoutOffset] = await Promise.all([
      list('--from', day, '--to', day, '--account-id', demo.account_id),
      list('--to', first!.created_at!.slice(0, 23), '--order-no', 'LIST-1'),
    ]);
    expect(sameDay.map((p) => p.order_no).slice(0, 2)).toEqual(['LIST-2', 'LIST-1']);
    expect(timeWithoutOffset.map((p) => p.order_no)).toEqual(['LIST-1']); // read as UTC, as created_at is written
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^transaction_id +T\w+$/m);
    expect(shown.stdout).toMatch(/^result_info +0000:Success$/m);
    expect(shown.stdout).toMatch(/^events\n/m);
    expect(shown.stdout).not.toContain('4111111111111111');
    const byOrder = JSON.parse(byOrderRun.stdout);
    expect(byOrder).toMatchObject({ order_no: 'LIST-2', status: 'failed', result_info: '2002:Declined: insufficient funds' });
  });

  it('refuses bad filters and unknown payments with a message', { timeout: 120_000 }, async () => {
    const [status, time, missing, noSuchDay, both] = await Promise.all([
      acquiro(['payments', 'list', '--status', 'paid'], env),
      acquiro(['payments', 'list', '--from', 'yesterday'], env),
      acquiro(['payments', 'show', 'T00000000000000000000000000'], env),
      acquiro(['payments', 'list', '--to', '2026-02-30'], env),
      // Two selectors that may name two payments: which one was shown would be a guess.
      acquiro(['payments', 'show', 'T00000000000000000000000000', '--order-no', 'LIST-2', '--account-id', 'A100001'], env),
    ]);
    expect([both.code, both.stdout, both.stderr]).toEqual([2, '', 'error: give a transaction_id, or --order-no with --account-id, not both\n']);
    // 30 February was read as 2 March.
    expect([noSuchDay.code, noSuchDay.stderr]).toEqual([2, 'error: --to must be a date or time in ISO 8601, such as 2026-11-22 or 2026-11-22T10:15:00Z\n']);
    expect([status.code, status.stderr]).toEqual([2, expect.stringMatching(/argument 'paid' is invalid/)]);
    expect([time.code, time.stderr]).toEqual([2, 'error: --from must be a date or time in ISO 8601, such as 2026-11-22 or 2026-11-22T10:15:00Z\n']);
    expect([missing.code, missing.stderr]).toEqual([1, 'error: no payment T00000000000000000000000000\n']);
  });
});

it.runIf(TEST_DB === 'postgres')('acquiro demo is refused in live mode', async () => {
  const db = await openTestDatabase(2);
  try {
    const run = await acquiro(['demo'], { ...db.env, ACQUIRO_MODE: 'live', ACQUIRO_VAULT_KEYS: `k1:${randomBytes(32).toString('base64')}` });
    expect([run.code, run.stdout, run.stderr]).toEqual([1, '', 'error: the demo merchant exists in sandbox mode only\n']);
  } finally {
    await db.drop();
  }
});

it.runIf(TEST_DB === 'pglite')('logs lines a person reads when its output is a terminal', { timeout: 120_000 }, async () => {
  const port = await freePort();
  // `script` gives the server a pseudo-terminal for its standard output. The directory is migrated
  // already (its first start's migrations are another test's): this one is about the log lines.
  const child = spawn('script', ['-qfec', `${process.execPath} ${ROOT}src/main.ts`, '/dev/null'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_COMPILE_CACHE: COMPILE_CACHE, PORT: String(port), LOG_LEVEL: 'info', ACQUIRO_DATA_DIR: await migratedDataDir() },
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    await until('acquiro is ready', () => output.includes('acquiro is ready'), {
      withinMs: 60_000,
      everyMs: 100,
      ...whileRunning({ child, output: () => output }),
    });
    // eslint-disable-next-line no-control-regex
    const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
    expect(plain).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: acquiro is ready\r?$/m);
    expect(plain).toMatch(/^ +mode: "sandbox"\r?$/m);
    expect(plain).not.toMatch(/^\{"level"/m);
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
});
