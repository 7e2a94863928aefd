// Acquiro as a set of identical processes on one PostgreSQL: two gateways (`ACQUIRO_WORKERS=off`)
// and two `acquiro worker`s, real processes, started together on a fresh schema. The races of
// test/api/races.test.ts spread over both gateways still give one effect each; an account's rate
// limit, an address's failed-authentication budget and its portal sign-in budget hold across both; a portal TOTP code
// sent in ten second-factor steps at once over both is accepted once, a new key confirmed once, ten loads of the
// enrolment page at once over both show one key, a sign-in step sent again to the other one after
// the sign-in finished is "Already done" and one of an expired sign-in is not; a key revoked or a
// merchant disabled is refused by both within a second; subscription cycles made due by the test
// clock are charged once each by the two workers. The tests' merchants are made by this process on
// the same schema (as the chaos run makes its own), not by an `acquiro merchants create` each: a
// process start apiece on a loaded machine.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deps } from '../../src/app/context.ts';
import { createMerchant, type AccountSettings } from '../../src/app/merchants/credentials.ts';
import { recoveryCodeHash, totpCode, TOTP_PERIOD_SECONDS } from '../../src/app/portal/credentials.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { loadConfig } from '../../src/config.ts';
import { createDeps, releaseDeps } from '../../src/deps.ts';
import { createLogger } from '../../src/logging.ts';
import { httpClient, type SignedClient } from '../support/client.ts';
import { cardPayment } from '../support/fixtures.ts';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../support/gateway.ts';
import { batch, orderOf, pay } from '../support/lifecycle.ts';
import { payoutBody } from '../support/payouts.ts';
import { subscribe, subscribing } from '../support/subscriptions.ts';
import { totpSecretOn } from '../support/portal.ts';
import { acquiro, acquiroJson, startServer, startWorker, takeFleetLock, type RunningServer, type RunningWorker } from '../support/processes.ts';
import { until } from '../support/until.ts';

let test: TestDatabase;
let env: Record<string, string>;
const gateways: RunningServer[] = [];
const workers: RunningWorker[] = [];
let urls: string[];
/** This process's own handle on the schema, for the merchants. */
let deps: Deps | undefined;
let releaseFleet: (() => void) | undefined;

const GATEWAY_ENV = { ACQUIRO_WORKERS: 'off', ACQUIRO_MAX_CONNECTIONS_PER_CLIENT: '1000', ACQUIRO_BUSY_IN_FLIGHT: '100000' };

const cli = (args: readonly string[]) => acquiroJson(args, env);

async function merchant(settings: AccountSettings): Promise<{ credentials: { merchant_id: string; account_id: string; secret_key: string }; client: SignedClient }> {
  const credentials = await createMerchant(deps!, 'multi', settings);
  return { credentials, client: httpClient(urls, credentials) };
}

const count = <T>(values: readonly T[], value: T) => values.filter((v) => v === value).length;
const one = async <T>(text: string, params: unknown[]) => (await test.database.query<T>(text, params))[0]!;

/** A member of a merchant made here, with a password, as `acquiro users create` makes one. */
async function portalMember(role: 'owner' | 'operator'): Promise<{ userId: string; email: string; password: string }> {
  const { credentials } = await merchant({});
  const email = `${role}-${Math.random().toString(36).slice(2, 10)}@shop.example`;
  const password = 'correct horse battery staple';
  const made = await runCommand(['users', 'create', '--merchant-id', credentials.merchant_id, '--email', email, '--role', role, '--password-stdin', '--json'], deps!, { stdin: async () => `${password}\n` });
  expect(made.exitCode, made.stderr).toBe(0);
  return { userId: (JSON.parse(made.stdout) as { user_id: string }).user_id, email, password };
}

/**
 * A browser over fetch: its cookies, the latest page's CSRF token, each request to the gateway at
 * `url` unless told another. `fork` is another sending of the page's form: the same cookies and
 * token as now, kept apart from then on.
 */
function portalBrowser(url: string, from: { cookies: ReadonlyMap<string, string>; csrf: string } = { cookies: new Map(), csrf: '' }) {
  const cookies = new Map(from.cookies);
  let csrf = from.csrf;
  const send = async (path: string, init: RequestInit, at = url) => {
    const response = await fetch(`${at}${path}`, { ...init, redirect: 'manual', headers: { ...init.headers, cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') } });
    for (const line of response.headers.getSetCookie()) {
      const [name, value] = line.split(';')[0]!.split('=') as [string, string];
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) cookies.delete(name);
      else cookies.set(name, value);
    }
    const body = await response.text();
    csrf = /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? csrf;
    return { status: response.status, location: response.headers.get('location'), body };
  };
  return {
    get: async (path: string, at?: string) => (await send(path, {}, at)).body,
    post: (path: string, fields: Record<string, string>, at?: string) =>
      send(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ _csrf: csrf, ...fields }) }, at),
    fork: () => portalBrowser(url, { cookies, csrf }),
  };
}

/** The member's password step at the gateway at `url`: a browser left at its second step (or signed in). */
async function portalPassword(url: string, member: { email: string; password: string }) {
  const browser = portalBrowser(url);
  await browser.get('/portal/sign-in');
  const answer = await browser.post('/portal/sign-in', { email: member.email, password: member.password });
  expect(answer.status).toBe(303);
  return browser;
}

describe.runIf(TEST_DB === 'postgres')('two gateways and two workers on one PostgreSQL', () => {
  beforeAll(async () => {
    releaseFleet = await takeFleetLock();
    test = await openTestDatabase(2);
    // Five connections a process, as in the chaos run: four processes and the commands beside them.
    env = { ...test.env, ACQUIRO_DB_POOL_SIZE: '5' };
    // Three processes start at once on a schema without a table: the migrations run once.
    const [a, b, w] = await Promise.all([startServer({ ...env, ...GATEWAY_ENV }), startServer({ ...env, ...GATEWAY_ENV }), Promise.resolve(startWorker(env))]);
    gateways.push(a, b);
    workers.push(w, startWorker(env));
    urls = gateways.map((g) => g.url);
    // Once the gateways have migrated the schema (this would migrate it too, first).
    deps = await createDeps({ config: loadConfig(env), database: test.database, log: createLogger('silent'), watchClock: false });
  }, 180_000);
  afterAll(async () => {
    for (const child of [...gateways, ...workers]) await child.stop('SIGTERM');
    if (deps) await releaseDeps(deps);
    await test?.drop();
    releaseFleet?.();
  });

  it('applied each migration once, and both gateways count each other', async () => {
    const versions = await test.database.query<{ version: string; n: number }>('SELECT version, count(*)::int AS n FROM schema_migrations GROUP BY version');
    expect(versions.length).toBeGreaterThan(10);
    expect(versions.every((v) => v.n === 1)).toBe(true);
    const alive = await one<{ n: number }>(`SELECT count(*)::int AS n FROM process_heartbeats WHERE role = 'gateway' AND beat_at > now() - interval '3 seconds'`, []);
    expect(alive.n).toBe(2);
    // The workers beat too (once started: a worker has no readiness probe), and are no gateways.
    const workersAlive = () => one<{ n: number }>(`SELECT count(*)::int AS n FROM process_heartbeats WHERE role = 'worker' AND beat_at > now() - interval '3 seconds'`, []);
    await until('both workers beating', async () => (await workersAlive()).n >= 2, { withinMs: 60_000, everyMs: 250 });
    expect(await workersAlive()).toEqual({ n: 2 });
  });

  it('50 identical payments over both gateways: one payment, one outcome', async () => {
    const { client } = await merchant({ rateLimitPerSecond: 100_000 });
    const body = cardPayment(client.ids);
    const answers = await Promise.all(Array.from({ length: 50 }, () => client.post('/v1/authorise', body)));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    expect(new Set(answers.map((a) => a.body.transaction_id)).size).toBe(1);
    expect(answers.every((a) => a.body.result_info === '0000:Success' && a.signed)).toBe(true);
    const id = answers[0]!.body.transaction_id as string;
    expect(await one<{ n: number }>('SELECT count(*)::int AS n FROM payments WHERE account_id = $1', [client.ids.account_id])).toEqual({ n: 1 });
    expect(await one('SELECT status FROM payments WHERE id = $1', [id])).toEqual({ status: 'captured' });
  });

  it('50 captures over both gateways capture once', async () => {
    const { client } = await merchant({ rateLimitPerSecond: 100_000, captureMode: 'manual' });
    const txn = await pay(client);
    const answers = await Promise.all(Array.from({ length: 50 }, () => batch(client, 'capture_orders', [orderOf(txn)])));
    const entries = answers.map((a) => a.body.capture_orders[0] as Record<string, string>);
    expect(count(entries.map((e) => e.capture_status), '1')).toBe(1);
    expect(entries.filter((e) => e.capture_status !== '1').every((e) => /^50(05|12):/.test(e.error_message!))).toBe(true);
    expect(await one('SELECT status, captured_amount::int AS captured FROM payments WHERE id = $1', [txn.transaction_id])).toEqual({ status: 'captured', captured: 1000 });
    expect(await one<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE payment_id = $1 AND type = 'payment.captured'`, [txn.transaction_id])).toEqual({ n: 1 });
  });

  it('20 refunds of 10 % over both gateways leave exactly 10 succeeded, and the ledger checks', async () => {
    const { client } = await merchant({ rateLimitPerSecond: 100_000 });
    const txn = await pay(client);
    const answers = await Promise.all(Array.from({ length: 20 }, () => batch(client, 'refund_orders', [orderOf(txn, { refund_amount: '1.00' })])));
    const entries = answers.map((a) => a.body.refund_orders[0] as Record<string, string>);
    expect(count(entries.map((e) => e.refund_status), '1')).toBe(10);
    expect(entries.filter((e) => e.refund_status !== '1').every((e) => e.refund_message!.startsWith('V5010:'))).toBe(true);
    expect(await one('SELECT status, refunded_amount::int AS refunded FROM payments WHERE id = $1', [txn.transaction_id])).toEqual({ status: 'refunded', refunded: 1000 });
    expect(await one<{ n: number }>(`SELECT count(*)::int AS n FROM refunds WHERE payment_id = $1 AND status = 'succeeded'`, [txn.transaction_id])).toEqual({ n: 10 });
    const check = await acquiro(['ledger', 'check'], env);
    expect(check.code, check.stdout + check.stderr).toBe(0);
  });

  it('concurrent payouts against one balance over both gateways: what the balance covers, each once', async () => {
    const { client } = await merchant({ rateLimitPerSecond: 100_000 });
    const args = ['--merchant-id', client.ids.merchant_id, '--account-id', client.ids.account_id];
    // Two payouts of 100.00 (101.50 with their fees) fit in 250.00; a third does not.
    await cli(['balance', 'topup', ...args, '--currency', 'USD', '--amount', '250.00']);
    const distinct = await Promise.all(Array.from({ length: 10 }, () => client.post('/v1/payout', payoutBody(client))));
    expect(distinct.map((a) => a.status)).toEqual(Array(10).fill(200));
    // Each is recorded; those the balance no longer covered, as FAILED (nothing reserved).
    const funded = distinct.filter((a) => a.body.status !== 'FAILED');
    expect(funded).toHaveLength(2);
    // The same payout 10 times at once: one.
    const body = payoutBody(client, { payment_amount: '10.00' });
    const repeats = await Promise.all(Array.from({ length: 10 }, () => client.post('/v1/payout', body)));
    expect(new Set(repeats.map((a) => a.body.transaction_id)).size).toBe(1);
    expect(repeats[0]!.body.status).not.toBe('FAILED');
    expect(await one<{ n: number }>('SELECT count(*)::int AS n FROM payouts WHERE account_id = $1', [client.ids.account_id])).toEqual({ n: 11 });
    const [usd] = ((await cli(['balance', 'show', ...args])) as unknown as { currency: string; available: string }[]).filter((b) => b.currency === 'USD');
    const paid = [...funded, repeats[0]!].map((a) => Number(a.body.amount_payer_pays));
    expect(Math.round(Number(usd!.available) * 100)).toBe(25_000 - paid.reduce((sum, minor) => sum + minor, 0));
  });

  it('holds an account’s rate limit across both gateways: each takes its part', async () => {
    const { client } = await merchant({ rateLimitPerSecond: 10 });
    // 30 at once, 15 to each gateway. Each takes its part: 5 at once, then 5 a second; each alone
    // would take the whole limit, 20 at once in all. Under 20 leaves room for what the buckets
    // refill while the burst reaches them (under a second, on a loaded machine).
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => client.post('/v1/retrievalTrans', { ...client.ids, order_no: `NONE-${i}` })));
    const served = answers.filter((a) => a.status !== 429).length;
    expect(served).toBeGreaterThanOrEqual(10);
    expect(served).toBeLessThan(20);
    expect(answers.filter((a) => a.status === 429).every((a) => Number(a.headers['retry-after']) >= 1)).toBe(true);
  });

  /** Polls every gateway until each answers `accepted(status)`; answers how long that took. */
  async function seenByBoth(client: SignedClient, accepted: (status: number, info: string) => boolean, secret?: string): Promise<number> {
    const started = performance.now();
    const pending = new Set(urls);
    let last = '';
    const seen = async () => {
      for (const url of [...pending]) {
        const single = httpClient([url], { ...client.ids, secret_key: secret ?? client.secret });
        const answer = await single.post('/v1/retrievalTrans', { ...client.ids, order_no: 'NONE' }, secret ? { secret } : {});
        last = `${answer.status} ${answer.raw}`;
        if (accepted(answer.status, String(answer.body.return_message ?? answer.body.result_info ?? ''))) pending.delete(url);
      }
      return pending.size === 0;
    };
    await until('seen by every gateway', seen, { withinMs: 5_000, everyMs: 25, detail: () => `not seen by ${[...pending].join(', ')}; last answer: ${last}` });
    return performance.now() - started;
  }

  it('a rotated key works at once on both; a revoked key and a disabled merchant stop on both within a second', async () => {
    const { credentials, client } = await merchant({ rateLimitPerSecond: 100_000 });
    // Signed and active: past the signature and the account's status, /v1/retrievalTrans checks the caller's
    // address (not registered here: 4403). Refused earlier: 401 (key), 4410 (disabled).
    const answered = (_status: number, info: string) => info.startsWith('4403');
    // Both gateways have the account (and its one key) cached.
    expect(await seenByBoth(client, answered)).toBeLessThan(5_000);

    const rotated = await cli(['keys', 'rotate', '--merchant-id', credentials.merchant_id, '--account-id', credentials.account_id]);
    expect(await seenByBoth(client, answered, rotated.secret_key as string)).toBeLessThan(1_000);
    expect(await seenByBoth(client, answered)).toBeLessThan(1_000); // the previous key is in its grace period

    await cli(['keys', 'revoke', '--merchant-id', credentials.merchant_id, '--account-id', credentials.account_id]);
    expect(await seenByBoth(client, (status) => status === 401)).toBeLessThan(1_000);

    await cli(['merchants', 'disable', '--merchant-id', credentials.merchant_id]);
    expect(await seenByBoth(client, (status, info) => status !== 200 && info.startsWith('4410'), rotated.secret_key as string)).toBeLessThan(1_000);
  });
  // Last: the test clock moves business time for every process on the schema, and the tests above
  // must not see their payments' authorisations or keys age by months.
  it('subscription cycles due while both workers run: each charged once', { timeout: 240_000 }, async () => {
    const { credentials, client } = await merchant({ rateLimitPerSecond: 100_000 });
    // Six subscriptions, three begun through each gateway.
    const begun = await Promise.all(
      Array.from({ length: 6 }, (_, i) => subscribe(httpClient([urls[i % 2]!], credentials), subscribing(client))),
    );
    // 125 days on: cycles 2 to 5 (a month, two, three and four after each anchor) are due, 24 charges.
    expect((await acquiro(['clock', 'advance', '--days', '125'], env)).code).toBe(0);
    const CYCLES = [2, 3, 4, 5];
    const ids = begun.map((b) => b.recurringId);
    const succeeded = async () =>
      (await one<{ n: number }>(`SELECT count(*)::int AS n FROM subscription_charges WHERE subscription_id = ANY($1) AND status = 'succeeded'`, [ids])).n;
    const deadline = performance.now() + 180_000;
    while ((await succeeded()) < ids.length * CYCLES.length && performance.now() < deadline) await sleep(500);
    // A little longer: a doubled charge would show now, or not at all.
    await sleep(3_000);

    const charges = await test.database.query<{ subscription_id: string; cycle: number; status: string; n: number }>(
      `SELECT subscription_id, cycle, status, count(*)::int AS n FROM subscription_charges WHERE subscription_id = ANY($1) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      [ids],
    );
    expect(charges).toEqual(ids.toSorted().flatMap((id) => CYCLES.map((cycle) => ({ subscription_id: id, cycle, status: 'succeeded', n: 1 }))));
    // Each charge a payment of its own: per subscription and cycle one payment (order_no `<first> R<cycle>-<attempt>`),
    // captured, approved by the processor once (its own network transaction id), booked once.
    for (const { orderNo } of begun) {
      const payments = await test.database.query<{ cycle: string; n: number; captured: number; authorisations: number; booked: number }>(
        `SELECT substring(p.order_no from ' R([0-9]+)-') AS cycle, count(*)::int AS n,
                count(*) FILTER (WHERE p.status = 'captured')::int AS captured,
                count(DISTINCT p.network_transaction_id)::int AS authorisations,
                (SELECT coalesce(sum(e.amount), 0)::int FROM ledger_entries e
                  WHERE e.payment_id = ANY(array_agg(p.id)) AND e.book = 'processor_receivable' AND e.amount > 0) AS booked
           FROM payments p WHERE p.account_id = $1 AND p.order_no LIKE $2 GROUP BY 1 ORDER BY 1::int`,
        [credentials.account_id, `${orderNo} R%`],
      );
      expect(payments).toEqual(CYCLES.map((cycle) => ({ cycle: String(cycle), n: 1, captured: 1, authorisations: 1, booked: 1000 })));
    }
    const check = await acquiro(['ledger', 'check'], env);
    expect(check.code, check.stdout + check.stderr).toBe(0);
  });

  it('accepts one TOTP code once among 10 second-factor steps sent at once over both gateways, and confirms a key once', async () => {
    const owner = await portalMember('owner');
    // The owner's first sign-in enrols its factor with the code of this time step.
    const first = await portalPassword(urls[0]!, owner);
    const secret = totpSecretOn(await first.get('/portal/enrol'));
    const step = Math.floor(Date.now() / 1000 / TOTP_PERIOD_SECONDS);
    expect((await first.post('/portal/enrol', { code: totpCode(secret, new Date(step * TOTP_PERIOD_SECONDS * 1000)) })).status).toBe(200);
    // Ten sign-ins past their password, half on each gateway, then the next step's code in all ten at once.
    const pending = await Promise.all(Array.from({ length: 10 }, (_, i) => portalPassword(urls[i % 2]!, owner)));
    for (const client of pending) await client.get('/portal/second-factor');
    const code = totpCode(secret, new Date((step + 1) * TOTP_PERIOD_SECONDS * 1000));
    const answers = await Promise.all(pending.map((client) => client.post('/portal/second-factor', { code })));
    expect(answers.filter((a) => a.status === 303 && a.location === '/portal/transactions')).toHaveLength(1);
    expect(answers.every((a) => [303, 401, 429].includes(a.status))).toBe(true);
    expect(await one<{ n: number }>(`SELECT count(*)::int AS n FROM portal_sessions WHERE user_id = $1 AND status = 'active'`, [owner.userId])).toEqual({ n: 2 });

    // An operator turns a factor on from My account: ten confirmations at once over both, one sets it.
    const operator = await portalMember('operator');
    const signedIn = await portalPassword(urls[0]!, operator);
    const key = totpSecretOn(await signedIn.get('/portal/enrol'));
    const confirm = totpCode(key, new Date());
    const confirmations = await Promise.all(Array.from({ length: 10 }, (_, i) => signedIn.post('/portal/enrol', { code: confirm, _reauth_password: operator.password }, urls[i % 2]!)));
    const shown = confirmations.filter((a) => a.status === 200 && a.body.includes('id="recovery-codes"'));
    expect(shown).toHaveLength(1);
    const codes = [...shown[0]!.body.matchAll(/<li>([a-z2-9-]{19})<\/li>/g)].map((match) => recoveryCodeHash(match[1]!));
    const stored = await test.database.query<{ code_hash: string }>('SELECT code_hash FROM portal_recovery_codes WHERE user_id = $1', [operator.userId]);
    expect(stored.map((row) => row.code_hash).sort()).toEqual(codes.sort());
  });

  it('shows one key to 10 loads of the enrolment page sent at once over both gateways, and a code from it confirms', async () => {
    const owner = await portalMember('owner');
    const browser = await portalPassword(urls[0]!, owner);
    const pages = await Promise.all(Array.from({ length: 10 }, (_, i) => browser.get('/portal/enrol', urls[i % 2])));
    const keys = pages.map((page) => totpSecretOn(page));
    expect(new Set(keys).size).toBe(1);
    expect((await browser.post('/portal/enrol', { code: totpCode(keys[0]!, new Date()) })).status).toBe(200);
  });

  it('answers a sign-in step sent again on the other gateway after the sign-in finished as already done, and one of an expired sign-in as expired', async () => {
    const owner = await portalMember('owner');
    const browser = await portalPassword(urls[0]!, owner);
    const secret = totpSecretOn(await browser.get('/portal/enrol'));
    const late = browser.fork();
    const code = totpCode(secret, new Date());
    expect((await browser.post('/portal/enrol', { code })).status).toBe(200);
    const again = await late.post('/portal/enrol', { code }, urls[1]);
    expect([again.status, again.body]).toEqual([409, expect.stringContaining('Already done')]);
    // A sign-in past its 10 minutes, its step sent to the other gateway: sign in again.
    const expiring = await portalPassword(urls[0]!, owner);
    await expiring.get('/portal/second-factor');
    await test.database.query(`UPDATE portal_sessions SET expires_at = now() WHERE user_id = $1 AND status = 'second_factor'`, [owner.userId]);
    const expired = await expiring.post('/portal/second-factor', { code }, urls[1]);
    expect([expired.status, expired.location]).toEqual([303, '/portal/sign-in?ended=expired']);
  });

  // Last in the file: it spends 127.0.0.1's failure budget on both gateways for a minute.
  it('holds an address’s failed-authentication budget across both gateways: each takes its part', async () => {
    const { client } = await merchant({});
    const answers: number[][] = [[], []];
    // 40 wrongly signed requests, alternating: each gateway alone would answer 30 of them 401.
    for (let i = 0; i < 40; i++) {
      const single = httpClient([urls[i % 2]!], { ...client.ids, secret_key: 'sk_test_wrong' });
      answers[i % 2]!.push((await single.post('/v1/retrievalTrans', { ...client.ids, order_no: `FAIL-${i}` }, { secret: 'sk_test_wrong' })).status);
    }
    const refusedAs = (status: number) => answers.flat().filter((s) => s === status).length;
    // ACQUIRO_AUTH_FAILURE_LIMIT's default 30, halved on each: 15 each at most (a token or two
    // more refill while the requests go), fewer when earlier tests of the file spent some.
    expect(refusedAs(401)).toBeLessThanOrEqual(34);
    expect(refusedAs(401) + refusedAs(429)).toBe(40);
    for (const own of answers) expect(own).toContain(429);
  });

  it('holds an address’s budget of failed portal sign-ins across both gateways: each takes its part', async () => {
    /** One wrong password through the sign-in form of the gateway at `url`: its CSRF cookie and token first. */
    const wrongPassword = async (url: string, i: number) => {
      const form = await fetch(`${url}/portal/sign-in`);
      const cookie = form.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
      const body = new URLSearchParams({ _csrf: csrf, email: `nobody-${i}@shop.example`, password: 'Summer2026!!' });
      return (await fetch(`${url}/portal/sign-in`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body, redirect: 'manual' })).status;
    };
    const answers: number[][] = [[], []];
    // ACQUIRO_PORTAL_FAILURE_LIMIT's default 10, halved on each gateway: 5 each. Alone, each would
    // answer all 6 of its own 401.
    for (let i = 0; i < 12; i++) answers[i % 2]!.push(await wrongPassword(urls[i % 2]!, i));
    const statuses = answers.flat();
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s === 401 || s === 429).length).toBe(12);
    for (const own of answers) expect(own).toContain(429);
  });
});
