// The merchant portal in tests: members made as an operator would (`acquiro users create
// --password-stdin` through runCommand), and a member signed in over HTTP (app.inject with a
// cookie jar and the CSRF token of the latest page) or in Chromium. Owners and admins enrol their
// second factor on the way in; the helper keeps the secret to answer later codes.
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import qs from 'qs';
import { expect } from 'vitest';
import { systemClock, type Clock } from '../../src/app/context.ts';
import { totpCode, TOTP_PERIOD_SECONDS } from '../../src/app/portal/credentials.ts';
import { runCommand } from '../../src/cli/commands.ts';
import type { Role } from '../../src/domain/members.ts';
import { newFormKey } from '../../src/web/portal/form-keys.ts';
import type { SignedClient } from './client.ts';
import { FakeClock, startTestGateway, type TestGateway } from './gateway.ts';
import { allowQueriesFrom } from './lifecycle.ts';

let members = 0;

export interface TestMember {
  readonly userId: string;
  readonly merchantId: string;
  readonly email: string;
  readonly password: string;
  readonly role: Role;
  /** The TOTP secret, once enrolled (by signIn or by hand). */
  totpSecret?: string;
  /** The last time step a code was used at: a code is good once. */
  lastStep?: number;
}

/** A member of `merchantId` with a password, made by the CLI. */
export async function createMember(gw: TestGateway, merchantId: string, role: Role, options: { email?: string; password?: string } = {}): Promise<TestMember> {
  const email = options.email ?? `member${++members}-${Math.random().toString(36).slice(2, 8)}@shop.example`;
  const password = options.password ?? 'correct horse battery staple';
  const result = await runCommand(['users', 'create', '--merchant-id', merchantId, '--email', email, '--role', role, '--password-stdin', '--json'], gw.gateway.deps, {
    stdin: async () => `${password}\n`,
  });
  if (result.exitCode !== 0) throw new Error(`users create failed: ${result.stderr}`);
  const created = JSON.parse(result.stdout) as { user_id: string };
  return { userId: created.user_id, merchantId, email, password, role };
}

/** A code for the member's next unused time step within the accepted window (now or the next step). */
export function nextCode(member: TestMember, clock: Clock = systemClock): string {
  const now = clock.now().getTime();
  const step = Math.floor(now / 1000 / TOTP_PERIOD_SECONDS);
  const use = member.lastStep !== undefined && member.lastStep >= step ? member.lastStep + 1 : step;
  if (use > step + 1) throw new Error('both codes of the window are used: advance the clock 30 s');
  member.lastStep = use;
  return totpCode(member.totpSecret!, new Date(use * TOTP_PERIOD_SECONDS * 1000));
}

/** nextCode, waiting for the next time step when both codes of the window are used (real time only). */
export async function freshCode(member: TestMember, clock: Clock = systemClock): Promise<string> {
  for (;;) {
    const step = Math.floor(clock.now().getTime() / 1000 / TOTP_PERIOD_SECONDS);
    if (member.lastStep === undefined || member.lastStep < step + 1) return nextCode(member, clock);
    if (clock !== systemClock) throw new Error('both codes of the window are used: advance the clock 30 s');
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

export interface PortalAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  readonly body: string;
  /** The redirect's target, for a 303. */
  readonly location: string | undefined;
}

/** A browser's view of the portal over app.inject: cookies kept, the latest page's CSRF token sent with posts. */
export class PortalClient {
  readonly cookies = new Map<string, string>();
  csrf: string | undefined;
  readonly #app: FastifyInstance;
  readonly #remoteAddress: string | undefined;
  /** `remoteAddress`: the client address the gateway sees (127.0.0.1 by default). */
  constructor(app: FastifyInstance, options: { remoteAddress?: string } = {}) {
    this.#app = app;
    this.#remoteAddress = options.remoteAddress;
  }

  /** Another sending of the page's form: a client with the cookies and CSRF token this one has now, kept apart from then on. */
  sameForm(): PortalClient {
    const copy = new PortalClient(this.#app, this.#remoteAddress ? { remoteAddress: this.#remoteAddress } : {});
    for (const [name, value] of this.cookies) copy.cookies.set(name, value);
    copy.csrf = this.csrf;
    return copy;
  }

  #cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  #keep(headers: Record<string, string | string[] | number | undefined>): void {
    const set = headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [String(set)] : []) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async #send(method: 'GET' | 'POST', path: string, payload?: string, headers: Record<string, string> = {}): Promise<PortalAnswer> {
    const response = await this.#app.inject({
      method,
      url: path,
      headers: { cookie: this.#cookieHeader(), ...(payload !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers },
      ...(payload !== undefined ? { payload } : {}),
      ...(this.#remoteAddress !== undefined ? { remoteAddress: this.#remoteAddress } : {}),
    });
    this.#keep(response.headers);
    const token = /name="_csrf" value="([^"]+)"/.exec(response.body)?.[1];
    if (token) this.csrf = token;
    const location = response.headers.location;
    return { status: response.statusCode, headers: response.headers, body: response.body, location: typeof location === 'string' ? location : undefined };
  }

  get(path: string, headers?: Record<string, string>): Promise<PortalAnswer> {
    return this.#send('GET', path, undefined, headers);
  }

  /** Posts a form with the CSRF token of the latest page (unless `_csrf` is given). */
  post(path: string, fields: Record<string, string> = {}, headers?: Record<string, string>): Promise<PortalAnswer> {
    const body = { ...(this.csrf !== undefined ? { _csrf: this.csrf } : {}), ...fields };
    return this.#send('POST', path, qs.stringify(body), headers);
  }

  /** Follows a 303 (a GET). */
  async follow(answer: PortalAnswer): Promise<PortalAnswer> {
    if (!answer.location) throw new Error(`not a redirect: ${answer.status}`);
    return this.get(answer.location);
  }
}

/**
 * The one-time key of the page's form that posts to `action` (a path), as a browser would send it;
 * undefined when the page has no such form.
 */
export function formKeyOf(page: string, action: string): string | undefined {
  const start = page.indexOf(`action="${action}"`);
  if (start < 0) return undefined;
  const form = page.slice(start, page.indexOf('</form>', start));
  return /name="form_key" value="([^"]+)"/.exec(form)?.[1];
}

/** A well-formed form key no page drew, for a post whose page has no such form: drawn as a page draws one. */
export const anyFormKey: () => string = newFormKey;

/**
 * Signs the member in over HTTP: the password, then the second factor (its enrolment for an
 * owner or admin signing in the first time). The client is left on the transactions page.
 */
export async function signIn(gw: TestGateway, member: TestMember, options: { clock?: Clock } = {}): Promise<PortalClient> {
  const sent = await sendPassword(gw, member);
  const { client } = sent;
  let { answer } = sent;
  if (answer.status !== 303) throw new Error(`sign-in refused: ${answer.status}`);
  if (answer.location === '/portal/enrol') {
    const page = await client.get('/portal/enrol');
    member.totpSecret = totpSecretOn(page.body);
    answer = await client.post('/portal/enrol', { code: nextCode(member, options.clock) });
    if (answer.status !== 200) throw new Error(`enrolment refused: ${answer.status}`);
  } else if (answer.location === '/portal/second-factor') {
    await client.get('/portal/second-factor');
    answer = await client.post('/portal/second-factor', { code: nextCode(member, options.clock) });
    if (answer.status !== 303) throw new Error(`second factor refused: ${answer.status}`);
  }
  const home = await client.get('/portal/transactions');
  if (home.status !== 200) throw new Error(`not signed in: ${home.status}`);
  return client;
}

/**
 * A new client loads the sign-in page and sends the member's e-mail with `password` (the member's
 * own by default), from `remoteAddress` when given: the client and the gateway's answer.
 */
export async function sendPassword(
  gw: TestGateway,
  member: Pick<TestMember, 'email' | 'password'>,
  options: { password?: string; remoteAddress?: string } = {},
): Promise<{ client: PortalClient; answer: PortalAnswer }> {
  const client = new PortalClient(gw.gateway.server.app, options.remoteAddress ? { remoteAddress: options.remoteAddress } : {});
  await client.get('/portal/sign-in');
  return { client, answer: await client.post('/portal/sign-in', { email: member.email, password: options.password ?? member.password }) };
}

/**
 * sendPassword, checked to lead to a sign-in step (the second factor, or enrolment), whose page
 * the client then loads unless `load` is false: a sign-in waiting for its last step.
 */
export async function atSignInStep(gw: TestGateway, member: TestMember, { load = true } = {}): Promise<PortalClient> {
  const { client, answer } = await sendPassword(gw, member);
  expect(answer.location).toMatch(/^\/portal\/(second-factor|enrol)$/);
  if (load) await client.get(answer.location!);
  return client;
}

/** The TOTP key the enrolment page shows the member to scan (`#totp-secret`, its spaces left out). */
export function totpSecretOn(page: string): string {
  return /id="totp-secret">([^<]+)</.exec(page)![1]!.replace(/\s/g, '');
}

/** The same in Chromium: the page ends on the transactions page. */
export async function signInBrowser(page: Page, baseUrl: string, member: TestMember, clock?: Clock): Promise<void> {
  await page.goto(`${baseUrl}/portal/sign-in`);
  await page.getByLabel('E-mail').fill(member.email);
  await page.getByLabel('Password').fill(member.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForLoadState();
  if (page.url().endsWith('/portal/enrol')) {
    member.totpSecret = (await page.locator('#totp-secret').innerText()).replace(/\s/g, '');
    await page.getByLabel('Code from the app').fill(await freshCode(member, clock));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('link', { name: 'Continue' }).click();
  } else if (page.url().endsWith('/portal/second-factor')) {
    await page.getByLabel('Code').fill(await freshCode(member, clock));
    await page.getByRole('button', { name: 'Verify' }).click();
  }
  await page.waitForURL(`${baseUrl}/portal/transactions`);
}

/**
 * Makes the member's re-authentication old, as six minutes later would: enrolling at sign-in
 * counts as re-authenticated, and a test of the confirmation itself needs a session that is not.
 */
export async function staleReauth(gw: TestGateway, member: TestMember): Promise<void> {
  await gw.database.query('UPDATE portal_sessions SET reauth_at = NULL WHERE user_id = $1', [member.userId]);
}

/** A gateway on a wall clock of the test's own, for the transaction page's actions. */
export interface PortalShops {
  readonly gw: TestGateway;
  readonly wall: FakeClock;
  /** Captures automatically. */
  readonly shop: SignedClient;
  readonly manual: SignedClient;
  /** A merchant whose staff must see nothing of the others'. */
  readonly other: SignedClient;
  readonly operator: TestMember;
  /** `operator`, signed in to `shop`. */
  readonly staff: PortalClient;
}

/** Three merchants allowed to query from here, and an operator of the first signed in. */
export async function startPortalShops(): Promise<PortalShops> {
  const wall = new FakeClock(new Date());
  const gw = await startTestGateway({ wallClock: wall });
  const shop = await gw.merchant();
  const manual = await gw.merchant({ captureMode: 'manual' });
  const other = await gw.merchant();
  await allowQueriesFrom(gw, [shop, manual, other]);
  const operator = await createMember(gw, shop.ids.merchant_id, 'operator');
  const staff = await signIn(gw, operator, { clock: wall });
  return { gw, wall, shop, manual, other, operator, staff };
}
