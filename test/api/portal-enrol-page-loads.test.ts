// The enrolment page loaded several times at once (two tabs, a double click, a browser's
// prefetch) shows one key: the first load to reach the database sets the session's key, and the
// others show that one, so a code from whichever page the member scanned turns the factor on.
// A load never touches a factor already on. (test/cli/multi-process.test.ts loads the page over
// two gateway processes.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { createMember, nextCode, PortalClient, signIn, totpSecretOn, type TestMember } from '../support/portal.ts';

const N = 10;
let gw: TestGateway;
let merchantId: string;
const wall = new FakeClock('2026-11-24T09:00:00Z');
beforeAll(async () => {
  gw = await startTestGateway({ wallClock: wall });
  merchantId = (await gw.merchant()).credentials.merchant_id;
});
afterAll(() => gw?.close());


/**
 * The key each of N loads of the enrolment page, sent at once, shows. Pages that read the session
 * are loaded at once first, so the gateway has a connection open for each load, as a busy one
 * would: on a pool still opening them, the first load could finish before the others begin.
 */
async function keysOfLoadsAtOnce(client: PortalClient): Promise<string[]> {
  await Promise.all(Array.from({ length: N }, () => client.get('/portal/sign-in')));
  const pages = await Promise.all(Array.from({ length: N }, () => client.get('/portal/enrol')));
  expect(pages.map((page) => page.status)).toEqual(pages.map(() => 200));
  return pages.map((page) => totpSecretOn(page.body));
}

describe('the enrolment page loaded several times at once', () => {
  it('shows one key at a sign-in, and a code from the first page shown confirms it', async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    const client = new PortalClient(gw.gateway.server.app);
    await client.get('/portal/sign-in');
    expect((await client.post('/portal/sign-in', { email: owner.email, password: owner.password })).location).toBe('/portal/enrol');
    const keys = await keysOfLoadsAtOnce(client);
    expect(new Set(keys).size).toBe(1);
    owner.totpSecret = keys[0];
    const answer = await client.post('/portal/enrol', { code: nextCode(owner, wall) });
    expect([answer.status, answer.body]).toEqual([200, expect.stringContaining('id="recovery-codes"')]);
    wall.advance(60_000);
  });

  it('shows one key from My account, and leaves the factor already on as it is until one confirms', async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    const client = await signIn(gw, owner, { clock: wall });
    const keys = await keysOfLoadsAtOnce(client);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).not.toBe(owner.totpSecret);
    // The loads replaced nothing: the member signs in elsewhere with its current factor.
    wall.advance(60_000);
    const elsewhere = await signIn(gw, owner, { clock: wall });
    expect((await elsewhere.get('/portal/account')).body).toContain('On.');
    // A code from the new key, with the current one, replaces it.
    const current = nextCode(owner, wall);
    const replacing: TestMember = { ...owner, totpSecret: keys[0]!, lastStep: undefined };
    const answer = await client.post('/portal/enrol', { code: nextCode(replacing, wall), _reauth_password: owner.password, _reauth_code: current });
    expect([answer.status, answer.body]).toEqual([200, expect.stringContaining('id="recovery-codes"')]);
    wall.advance(60_000);
  });
});
