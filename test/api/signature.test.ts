// docs/signing.md: who is asking (404 for an unknown pair), whether they signed (401), and
// that nothing is stored for a refused request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountDirectory } from '../../src/app/accounts/directory.ts';
import { rotateKey } from '../../src/app/merchants/credentials.ts';
import { sign } from '../../src/domain/signature.ts';
import { cardPayment } from '../support/fixtures.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';

let gw: TestGateway;
let shop: SignedClient;
let other: SignedClient;
const clock = new FakeClock(new Date());

beforeAll(async () => {
  gw = await startTestGateway({ clock });
  shop = await gw.merchant();
  other = await gw.merchant();
});
afterAll(() => gw?.close());

const paymentCount = async () => Number((await gw.database.query<{ n: string }>('SELECT count(*)::text AS n FROM payments'))[0]!.n);

describe('refused before anything is stored', () => {
  const cases: [string, (body: Record<string, unknown>) => Record<string, unknown>, number, string][] = [
    ['missing encryption_data', (b) => ({ ...b, encryption_data: '' }), 401, '4401:encryption_data is required'],
    ['a wrong signature', (b) => ({ ...b, encryption_data: 'ab'.repeat(32) }), 401, '4401:encryption_data does not match the body'],
    ['63 characters', (b) => ({ ...b, encryption_data: sign(b as never, shop.secret).slice(1) }), 401, '4401:encryption_data does not match the body'],
    ['65 characters', (b) => ({ ...b, encryption_data: `${sign(b as never, shop.secret)}0` }), 401, '4401:encryption_data does not match the body'],
    ["another account's key", (b) => ({ ...b, encryption_data: sign(b as never, other.secret) }), 401, '4401:encryption_data does not match the body'],
    ['a field changed after signing', (b) => ({ ...b, encryption_data: sign(b as never, shop.secret), amount: '99.00' }), 401, '4401:encryption_data does not match the body'],
  ];
  it.each(cases)('%s → %s', async (_name, mutate, status, info) => {
    const before = await paymentCount();
    const answer = await shop.post('/v1/authorise', mutate(cardPayment(shop.ids)));
    expect([answer.status, answer.body.result_info.split('; sandbox:')[0]]).toEqual([status, info]);
    expect(answer.body.order_status).toBe('0');
    // The refusal itself is signed with the account's current key.
    expect(answer.signed).toBe(true);
    expect(await paymentCount()).toBe(before);
  });

  it('accepts the signature in upper-case hex', async () => {
    const body = cardPayment(shop.ids);
    const answer = await shop.post('/v1/authorise', { ...body, encryption_data: sign(body as never, shop.secret).toUpperCase() });
    expect(answer.body.result_info).toBe('0000:Success');
  });

  it.each<[string, Record<string, string>]>([
    ['an unknown merchant_id', { merchant_id: 'M999999' }],
    ['an unknown account_id', { account_id: 'A999999' }],
    ["another merchant's account", { account_id: 'OTHER' }],
  ])('answers 404 for %s, without saying which half', async (_name, ids) => {
    const resolved = ids.account_id === 'OTHER' ? { account_id: other.ids.account_id } : ids;
    const before = await paymentCount();
    const answer = await shop.post('/v1/authorise', cardPayment({ ...shop.ids, ...resolved }));
    expect([answer.status, answer.body.result_info]).toEqual([404, '4404:unknown merchant_id/account_id']);
    expect(answer.body.encryption_data).toBe('');
    expect(await paymentCount()).toBe(before);
  });

  it.each(['merchant_id', 'account_id'])('answers 400 naming %s when it is missing', async (field) => {
    const body = cardPayment(shop.ids);
    delete body[field];
    const answer = await shop.post('/v1/authorise', body);
    expect([answer.status, answer.body.result_info]).toEqual([400, `4001:${field} is required`]);
  });
});

describe('key rotation', () => {
  it('keeps the previous key working for the grace period, then refuses it', async () => {
    const merchant = await gw.merchant();
    const oldSecret = merchant.secret;
    const rotated = await rotateKey(gw.gateway.deps, merchant.ids.merchant_id, merchant.ids.account_id);
    gw.gateway.server.directory.forget();

    const withOld = await merchant.post('/v1/authorise', cardPayment(merchant.ids), { secret: oldSecret });
    const withNew = await merchant.post('/v1/authorise', cardPayment(merchant.ids), { secret: rotated.secret_key });
    expect(withOld.body.result_info).toBe('0000:Success');
    expect(withNew.body.result_info).toBe('0000:Success');
    // Answers are signed with the key the request used, so a merchant mid-deploy can verify them.
    expect(withOld.signed).toBe(true);

    clock.advance(gw.config.keyGraceHours * 3_600_000 + 1_000);
    gw.gateway.server.directory.forget();
    const late = await merchant.post('/v1/authorise', cardPayment(merchant.ids), { secret: oldSecret });
    const current = await merchant.post('/v1/authorise', cardPayment(merchant.ids), { secret: rotated.secret_key });
    expect(late.status).toBe(401);
    expect(current.body.result_info).toBe('0000:Success');
  });

  // Behind a transaction pooler a gateway has no LISTEN: a change reaches its cache only through the
  // version its heartbeat reads (docs/operations.md). Here a directory that never listens stands for
  // it, and the heartbeat's reads are made by hand, so the moment of each is the test's to choose.
  it('a directory that caches an account before its first version read forgets it at that read', async () => {
    const merchant = await gw.merchant();
    const directory = new AccountDirectory(gw.gateway.deps);
    const version = async () => Number((await gw.database.query<{ v: string }>(`SELECT version::text AS v FROM cache_versions WHERE name = 'accounts'`))[0]!.v);
    const secrets = async () => (await directory.lookup(merchant.ids.merchant_id, merchant.ids.account_id))?.secrets;

    // Served while the first beats failed (the database away a moment at start): cached, no version yet.
    expect(await secrets()).toEqual([merchant.secret]);
    const rotated = await rotateKey(gw.gateway.deps, merchant.ids.merchant_id, merchant.ids.account_id);
    // The first beat that succeeds reads the version the rotation wrote: the copy cached before it is stale.
    directory.noteVersion(await version());
    expect(await secrets()).toEqual([rotated.secret_key, merchant.secret]);

    // The same version again changes nothing: the copy stays (no query per request).
    directory.noteVersion(await version());
    await rotateKey(gw.gateway.deps, merchant.ids.merchant_id, merchant.ids.account_id);
    expect(await secrets()).toEqual([rotated.secret_key, merchant.secret]);
    // A later change is seen at the next beat.
    directory.noteVersion(await version());
    expect(await secrets()).toHaveLength(3);
  });
});
