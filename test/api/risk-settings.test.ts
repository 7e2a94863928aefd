// Operators tune risk with `acquiro risk` and `acquiro blocklist`; payments feel it at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import { cardPayment, freshCard } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';

let gw: TestGateway;
let shop: SignedClient;
let ids: string[];

beforeAll(async () => {
  gw = await startTestGateway();
  shop = await gw.merchant();
  ids = ['--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id];
});
afterAll(() => gw?.close());

const cli = async (...argv: string[]) => {
  const result = await runCommand(argv, gw.gateway.deps);
  gw.gateway.server.directory.forget(); // the server's 5-second account cache, skipped for the test
  return result;
};
const pay = (overrides: Record<string, unknown> = {}) => shop.post('/v1/authorise', cardPayment(shop.ids, overrides));

describe('acquiro risk', () => {
  it('sets velocity and amount limits, shows them, and resets to the defaults', async () => {
    const set = await cli('risk', 'set', ...ids, '--set', 'velocityCard.limit=1', '--set', 'amountLimits.USD.review=50.00', '--json');
    expect(set.exitCode).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ velocityCard: { limit: 1, score: 50 }, amountLimits: { USD: { review: 5000 } } });

    const card = freshCard();
    expect((await pay({ card })).body.risk_action).toBe('accept');
    expect((await pay({ card })).body.risk_action).toBe('review');
    expect((await pay({ amount: '50.01' })).body.risk_action).toBe('review');

    const shown = JSON.parse((await cli('risk', 'show', ...ids, '--json')).stdout);
    expect(shown.overrides).toEqual({ velocityCard: { limit: 1 }, amountLimits: { USD: { review: 5000 } } });

    expect((await cli('risk', 'reset', ...ids)).exitCode).toBe(0);
    expect((await pay({ card })).body.risk_action).toBe('accept');
  });

  it.each([
    [['--set', 'velocityCard.limitt=1'], /velocityCard.limitt is not a risk setting/],
    [['--set', 'velocityCard.limit=-1'], /must be a whole number/],
    [['--set', 'amountLimits.USD.review=1.001'], /is not an amount in USD/],
    [['--set', 'reviewScore=90'], /reviewScore must not exceed rejectScore/],
    [['--set', 'velocityCard.limit=5=50'], /velocityCard.limit must be a whole number/],
    [['--set', 'amountLimits.USD.reject=50.00=5000.00'], /is not an amount in USD/],
    // A window of no seconds counts nothing: every velocity rule would be off without a word.
    [['--set', 'velocityWindowSeconds=0'], /velocityWindowSeconds must be at least 1/],
    [['--set', 'velocityWindowSeconds=000'], /velocityWindowSeconds must be at least 1/],
  ])('refuses %o', async (args, message) => {
    const result = await cli('risk', 'set', ...ids, ...args);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(message);
  });
});

describe('acquiro blocklist', () => {
  it('blocks a card by the transaction that used it, without the card number', async () => {
    const card = freshCard();
    const first = await pay({ card });
    const add = await cli('blocklist', 'add', ...ids, '--kind', 'card', '--value', first.body.transaction_id, '--note', 'chargeback');
    expect(add.exitCode).toBe(0);
    const blocked = await pay({ card });
    expect(blocked.body).toMatchObject({ risk_action: 'reject', result_info: '3001:Rejected by risk' });
    const listed = (await cli('blocklist', 'list', '--account-id', shop.ids.account_id, '--json')).stdout;
    expect(listed).not.toContain(card);
    expect(JSON.parse(listed)).toContainEqual(expect.objectContaining({ kind: 'card', note: 'chargeback' }));
    expect((await cli('blocklist', 'remove', ...ids, '--kind', 'card', '--value', first.body.transaction_id)).stdout).toMatch(/unblocked/);
    expect((await pay({ card })).body.risk_action).toBe('accept');
  });

  it('blocks a country gateway-wide', async () => {
    const other = await gw.merchant();
    expect((await cli('blocklist', 'add', '--kind', 'country', '--value', 'KP')).exitCode).toBe(0);
    expect((await other.post('/v1/authorise', cardPayment(other.ids, { billing_country: 'KP' }))).body.risk_action).toBe('reject');
    expect((await cli('blocklist', 'add', '--kind', 'bin', '--value', '41x')).stderr).toBe('error: --value 41x is not a BIN: 6 to 8 digits\n');
  });

  it.each(['6', '7', '8'])('blocks a BIN of %s digits by the card number it starts', async (digits) => {
    const card = freshCard('4242424');
    const bin = card.slice(0, Number(digits));
    expect((await pay({ card })).body.risk_action).toBe('accept');
    expect((await cli('blocklist', 'add', ...ids, '--kind', 'bin', '--value', bin)).exitCode).toBe(0);
    expect((await pay({ card })).body).toMatchObject({ risk_action: 'reject', result_info: '3001:Rejected by risk' });
    const neighbour = freshCard(card.slice(0, Number(digits) - 1) + String((Number(card[Number(digits) - 1]) + 1) % 10));
    expect((await pay({ card: neighbour })).body.risk_action).toBe('accept');
    expect((await cli('blocklist', 'remove', ...ids, '--kind', 'bin', '--value', bin)).exitCode).toBe(0);
  });

  it('blocks an IP address however it is written, and refuses what is not one', async () => {
    // The shopper's address is compared as the gateway writes it (2001:db8::7, 203.0.113.7): an
    // entry kept as typed (capitals, zeros written out, IPv4 as IPv6) never matched it.
    for (const [typed, sent] of [
      ['2001:DB8:0:0:0:0:0:7', '2001:db8::7'],
      ['::ffff:203.0.113.7', '203.0.113.7'],
    ] as const) {
      expect((await pay({ shopper_ip: sent })).body.risk_action).toBe('accept');
      expect((await cli('blocklist', 'add', ...ids, '--kind', 'ip', '--value', typed)).exitCode).toBe(0);
      expect((await pay({ shopper_ip: sent })).body).toMatchObject({ risk_action: 'reject', result_info: '3001:Rejected by risk' });
      expect((await cli('blocklist', 'remove', ...ids, '--kind', 'ip', '--value', typed)).stdout).toMatch(/unblocked/);
      expect((await pay({ shopper_ip: sent })).body.risk_action).toBe('accept');
    }
    const bad = await cli('blocklist', 'add', ...ids, '--kind', 'ip', '--value', '203.0.113.300');
    expect([bad.exitCode, bad.stderr]).toEqual([2, 'error: --value 203.0.113.300 is not an IPv4 or IPv6 address\n']);
    expect((await cli('blocklist', 'list', '--account-id', shop.ids.account_id, '--json')).stdout).not.toContain('203.0.113.300');
  });

  it.each([
    ['email', 'fraud.example.com', 'error: --value fraud.example.com is not an email address\n'],
    ['country', 'XX', 'error: --value XX is not an ISO 3166 two-letter country code\n'],
    ['country', 'kp', 'error: --value kp is not an ISO 3166 two-letter country code\n'],
  ])('refuses a %s entry no payment could ever match (%s)', async (kind, value, stderr) => {
    // A shopper_email or billing_country a payment carries is checked: these were stored and
    // listed as blocks that could never hit.
    const result = await cli('blocklist', 'add', ...ids, '--kind', kind, '--value', value);
    expect([result.exitCode, result.stderr]).toEqual([2, stderr]); // a bad value: exit 2 (docs/operations.md)
    expect((await cli('blocklist', 'list', '--account-id', shop.ids.account_id, '--json')).stdout).not.toContain(`"${value}"`);
    // One stored before the check is still removed by its text.
    await gw.database.query(`INSERT INTO risk_blocklist (account_id, kind, value) VALUES ($1, $2, $3)`, [shop.ids.account_id, kind, value]);
    expect((await cli('blocklist', 'remove', ...ids, '--kind', kind, '--value', value)).stdout).toBe(`unblocked ${kind} ${value}\n`);
  });

  it('takes an account only with its merchant, and never widens a half-given scope to every account', async () => {
    // --merchant-id alone was stored gateway-wide (every merchant's payments refused), and
    // --account-id alone of an unknown account answered the database's failed INSERT.
    const scope = 'error: name one account with --merchant-id and --account-id, or neither for every account\n';
    const merchantOnly = await cli('blocklist', 'add', '--kind', 'email', '--value', 'scoped@example.com', '--merchant-id', shop.ids.merchant_id);
    expect([merchantOnly.exitCode, merchantOnly.stderr]).toEqual([2, scope]);
    const accountOnly = await cli('blocklist', 'add', '--kind', 'email', '--value', 'scoped@example.com', '--account-id', 'A999999');
    expect([accountOnly.exitCode, accountOnly.stderr]).toEqual([2, scope]);
    expect((await cli('blocklist', 'remove', '--kind', 'email', '--value', 'scoped@example.com', '--merchant-id', shop.ids.merchant_id)).exitCode).toBe(2);
    expect((await cli('blocklist', 'list', '--json')).stdout).not.toContain('scoped@example.com');
    expect((await pay({ shopper_email: 'scoped@example.com' })).body.risk_action).toBe('accept');
    const unknown = await cli('blocklist', 'add', '--kind', 'email', '--value', 'scoped@example.com', '--merchant-id', shop.ids.merchant_id, '--account-id', 'A999999');
    expect([unknown.exitCode, unknown.stderr]).toEqual([1, `error: no account A999999 under merchant ${shop.ids.merchant_id}\n`]);
  });

  it("cannot block a card through another account's transaction", async () => {
    const other = await gw.merchant();
    const theirs = await other.post('/v1/authorise', cardPayment(other.ids, { card: freshCard() }));
    const result = await cli('blocklist', 'add', ...ids, '--kind', 'card', '--value', theirs.body.transaction_id);
    expect([result.exitCode, result.stderr]).toEqual([1, `error: no card payment ${theirs.body.transaction_id} on account ${shop.ids.account_id}\n`]);
  });
});
