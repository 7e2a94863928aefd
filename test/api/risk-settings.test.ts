// Operators tune risk with `acquiro risk` and `acquiro blocklist`; payments feel it at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import { cardPayment, freshCard } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';
import { until } from '../support/until.ts';

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

  it('prints amount limits as they are set and enforced: in the currency, not in minor units', async () => {
    // USD 1000.00 was printed as 100000, which an operator reads as a hundred times the limit.
    const set = await cli('risk', 'set', ...ids, '--set', 'amountLimits.USD.review=1000.00', '--set', 'amountLimits.USD.reject=5000', '--set', 'amountLimits.JPY.reject=100000');
    expect(set.exitCode).toBe(0);
    const limits = { USD: { review: '1000.00', reject: '5000.00' }, JPY: { reject: '100000' } };
    expect(JSON.parse(set.stdout.replace(/^updated; effective settings:\n/, '')).amountLimits).toEqual(limits);
    const shown = JSON.parse((await cli('risk', 'show', ...ids)).stdout);
    expect([shown.overrides.amountLimits, shown.effective.amountLimits]).toEqual([limits, limits]);
    expect((await pay({ amount: '1000.00' })).body.risk_action).toBe('accept');
    expect((await pay({ amount: '1000.01' })).body.risk_action).toBe('review');
    expect((await pay({ amount: '5000.01' })).body.risk_action).toBe('reject');
    // --json keeps minor units, as before.
    expect(JSON.parse((await cli('risk', 'show', ...ids, '--json')).stdout).effective.amountLimits.USD).toEqual({ review: 100000, reject: 500000 });
    expect((await cli('risk', 'reset', ...ids)).exitCode).toBe(0);
  });

  // A value refused on its own (its syntax, its range) is a refused argument, exit 2, as docs/operations.md says;
  // a refusal that depends on the other settings (stored or default) is one by the database's content, exit 1.
  it.each([
    [['--set', 'velocityCard.limitt=1'], /velocityCard.limitt is not a risk setting/, 2],
    [['--set', 'velocityCard.limit=-1'], /must be a whole number/, 2],
    [['--set', 'velocityCard.limit'], /velocityCard.limit: expected path=value/, 2],
    [['--set', 'amountLimits.USD.review=1.001'], /is not an amount in USD/, 2],
    [['--set', 'amountLimits.XYZ.review=10.00'], /XYZ is not a supported currency/, 2],
    [['--set', 'reviewScore=90'], /reviewScore must not exceed rejectScore/, 1],
    [['--set', 'velocityCard.limit=5=50'], /velocityCard.limit must be a whole number/, 2],
    [['--set', 'amountLimits.USD.reject=50.00=5000.00'], /is not an amount in USD/, 2],
    // A window of no seconds counts nothing: every velocity rule would be off without a word.
    [['--set', 'velocityWindowSeconds=0'], /velocityWindowSeconds must be at least 1/, 2],
    [['--set', 'velocityWindowSeconds=000'], /velocityWindowSeconds must be at least 1/, 2],
  ])('refuses %o', async (args, message, exitCode) => {
    const result = await cli('risk', 'set', ...ids, ...args);
    expect(result.exitCode).toBe(exitCode);
    expect(result.stderr).toMatch(message);
  });

  it.each([
    [['set', '--set', 'velocityCard.limitt=1']],
    [['set', '--set', 'rejectScore=101']],
    [['set', '--set', 'velocityIp.limit=0']],
    [['set', '--set', 'amountLimits.USD.review=0']],
    [['unset', 'amountLimits.EUR.rejectt']],
  ])('refuses a bad value before the database is opened (risk %o)', async (argv) => {
    const result = await runCommand(['risk', argv[0]!, ...ids, ...argv.slice(1)], async () => Promise.reject(new Error('opened the database')));
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/^error: /);
  });

  it.each([
    [['--set', 'rejectScore=101'], 'rejectScore'],
    [['--set', 'rejectScore=999999999'], 'rejectScore'],
    [['--set', 'reviewScore=150', '--set', 'rejectScore=200'], 'reviewScore'],
    [['--set', 'rejectScore=100', '--set', 'reviewScore=101'], 'reviewScore'],
  ])('refuses a threshold no score reaches (%o): a blocklisted email stays rejected', async (args, setting) => {
    // A score is capped at 100: a rejectScore above it rejected nothing, not even a blocklisted
    // card (blocklistScore 100), and a reviewScore above it held nothing for review.
    const email = `blocked-${setting}-${args.length}@example.com`;
    expect((await cli('blocklist', 'add', ...ids, '--kind', 'email', '--value', email)).exitCode).toBe(0);
    const before = JSON.parse((await cli('risk', 'show', ...ids, '--json')).stdout);
    const result = await cli('risk', 'set', ...ids, ...args);
    expect([result.exitCode, result.stderr]).toEqual([2, `error: ${setting} must be from 0 to 100 (a risk score is at most 100, so a higher one is never reached)\n`]);
    expect(JSON.parse((await cli('risk', 'show', ...ids, '--json')).stdout)).toEqual(before);
    expect((await pay({ shopper_email: email })).body).toMatchObject({ risk_action: 'reject', result_info: '3001:Rejected by risk' });
    expect((await cli('blocklist', 'remove', ...ids, '--kind', 'email', '--value', email)).exitCode).toBe(0);
  });

  it.each([
    [['--set', 'amountLimits.EUR.reject=1000.00', '--set', 'amountLimits.EUR.review=5000.00'], '5000.00', '1000.00'],
    [['--set', 'amountLimits.EUR.review=1000.00', '--set', 'amountLimits.EUR.reject=1000.00'], '1000.00', '1000.00'],
    [['--set', 'amountLimits.EUR.review=1000', '--set', 'amountLimits.EUR.reject=999.99'], '1000.00', '999.99'],
  ])('refuses a review amount limit at or above the reject one (%o)', async (args, review, reject) => {
    // A payment above the reject limit is refused: a review limit at or above it never held one.
    expect((await cli('risk', 'reset', ...ids)).exitCode).toBe(0);
    const result = await cli('risk', 'set', ...ids, ...args);
    expect([result.exitCode, result.stderr]).toEqual([
      1,
      `error: amountLimits.EUR.review (${review}) must be below amountLimits.EUR.reject (${reject}): a payment above the reject limit is refused, so no payment would be held for review\n`,
    ]);
    expect(JSON.parse((await cli('risk', 'show', ...ids, '--json')).stdout).overrides).toEqual({});
  });

  it.each(['velocityCard', 'velocityEmail', 'velocityIp'])('refuses a %s.limit of 0, which hits every payment', async (rule) => {
    // "Used limit times or more in the window": with 0, a first payment with a new card, email and
    // address was held for review (at the default weight), whatever came before it.
    const result = await cli('risk', 'set', ...ids, '--set', `${rule}.limit=0`);
    expect([result.exitCode, result.stderr]).toEqual([
      2,
      `error: ${rule}.limit must be at least 1: a limit of 0 hits every payment, whatever came before it (${rule}.score=0 turns the rule off)\n`,
    ]);
    expect(JSON.parse((await cli('risk', 'show', ...ids, '--json')).stdout).overrides).toEqual({});
    const fresh = { card: freshCard(), shopper_email: `first-${rule}@example.com`, shopper_ip: '198.51.100.23' };
    expect((await pay(fresh)).body.risk_action).toBe('accept');
  });

  it.each([
    ['review', '0', 'held for review'],
    ['reject', '0.00', 'refused'],
  ])('refuses an amountLimits %s of %s, saying a limit is above zero and how to remove one', async (level, value, effect) => {
    // "0 is not an amount in USD" read as a typo in the number, not as a limit that must be above zero.
    const result = await cli('risk', 'set', ...ids, '--set', `amountLimits.USD.${level}=${value}`);
    expect([result.exitCode, result.stderr]).toEqual([
      2,
      `error: amountLimits.USD.${level} must be above 0: every payment is above a limit of 0, so every USD payment would be ${effect} (to have no limit, remove it: acquiro risk unset amountLimits.USD.${level})\n`,
    ]);
    expect(JSON.parse((await cli('risk', 'show', ...ids, '--json')).stdout).overrides).toEqual({});
  });

  it('unsets one override, the others kept, back to its default', async () => {
    // risk reset dropped every override: lifting one currency's limit meant setting all the others again.
    const other = await gw.merchant();
    const otherIds = ['--merchant-id', other.ids.merchant_id, '--account-id', other.ids.account_id];
    const payOther = (overrides: Record<string, unknown>) => other.post('/v1/authorise', cardPayment(other.ids, overrides));
    const set = ['amountLimits.USD.review=100.00', 'amountLimits.USD.reject=500.00', 'amountLimits.EUR.reject=500.00', 'velocityCard.limit=5', 'velocityCard.score=60'];
    expect((await cli('risk', 'set', ...otherIds, ...set.flatMap((assignment) => ['--set', assignment]))).exitCode).toBe(0);
    expect((await payOther({ amount: '200.00' })).body.risk_action).toBe('review');

    const unset = await cli('risk', 'unset', ...otherIds, 'amountLimits.USD.review', 'velocityCard.limit', 'velocityIp.score');
    expect(unset.exitCode).toBe(0);
    expect(unset.stdout).toMatch(/^unset amountLimits.USD.review, velocityCard.limit; not overridden \(the default applies\): velocityIp.score\neffective settings:\n/);
    expect(JSON.parse(unset.stdout.slice(unset.stdout.indexOf('{'))).velocityCard).toEqual({ limit: 20, score: 60 });
    const shown = JSON.parse((await cli('risk', 'show', ...otherIds, '--json')).stdout);
    expect(shown.overrides).toEqual({ amountLimits: { USD: { reject: 50000 }, EUR: { reject: 50000 } }, velocityCard: { score: 60 } });
    expect((await payOther({ amount: '200.00' })).body.risk_action).toBe('accept');
    expect((await payOther({ amount: '500.01' })).body.risk_action).toBe('reject');

    // A whole currency, and the groups left empty go with it.
    const json = await cli('risk', 'unset', ...otherIds, 'amountLimits.USD', 'velocityCard.score', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ amountLimits: { EUR: { reject: 50000 } }, velocityCard: { limit: 20, score: 50 } });
    expect(JSON.parse((await cli('risk', 'show', ...otherIds, '--json')).stdout).overrides).toEqual({ amountLimits: { EUR: { reject: 50000 } } });
    expect((await payOther({ amount: '600.00' })).body.risk_action).toBe('accept');

    // An unknown setting is refused, as by risk set: nothing changed.
    const typo = await cli('risk', 'unset', ...otherIds, 'amountLimits.EUR.rejectt');
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toMatch(/amountLimits.EUR.rejectt is not a risk setting/);
    // A removal that leaves a setting that would not work is refused like the assignment would be.
    expect((await cli('risk', 'set', ...otherIds, '--set', 'rejectScore=95', '--set', 'reviewScore=90')).exitCode).toBe(0);
    const refused = await cli('risk', 'unset', ...otherIds, 'rejectScore');
    expect([refused.exitCode, refused.stderr]).toEqual([1, 'error: reviewScore must not exceed rejectScore\n']);
    expect(JSON.parse((await cli('risk', 'show', ...otherIds, '--json')).stdout).overrides).toEqual({ amountLimits: { EUR: { reject: 50000 } }, rejectScore: 95, reviewScore: 90 });
  });

  it('applies a change at once, not when the account cache expires', async () => {
    // Every other account change is announced to every process's account cache; a risk setting
    // waited for the cached account to expire (5 seconds): a limit tightened during an attack too.
    const other = await gw.merchant();
    const otherIds = ['--merchant-id', other.ids.merchant_id, '--account-id', other.ids.account_id];
    const payOther = (overrides: Record<string, unknown>) => other.post('/v1/authorise', cardPayment(other.ids, overrides));
    // The new account's own announcement empties the cache when it arrives (at once, or with the
    // next heartbeat's version): past it, the account stays cached for 5 seconds unless told.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await payOther({ amount: '20.00' })).body.risk_action).toBe('accept'); // the account is cached now
    const set = await runCommand(['risk', 'set', ...otherIds, '--set', 'amountLimits.USD.reject=10.00'], gw.gateway.deps);
    expect(set.exitCode).toBe(0);
    await until('a payment over the new limit rejected', async () => (await payOther({ amount: '20.00' })).body.risk_action === 'reject', { withinMs: 2_000, everyMs: 50 });
  });

  it('keeps every change of concurrent risk set commands', async () => {
    // Each command read the overrides, added its own and wrote them all back: of two at once, the
    // one written last dropped the other's change without a word.
    const other = await gw.merchant();
    const otherIds = ['--merchant-id', other.ids.merchant_id, '--account-id', other.ids.account_id];
    const changes = [
      'velocityCard.limit=7',
      'velocityEmail.limit=8',
      'velocityIp.limit=9',
      'velocityCard.score=11',
      'velocityEmail.score=12',
      'velocityIp.score=13',
      'countryMismatchScore=14',
      'blocklistScore=99',
      'amountLimits.USD.reject=900.00',
      'amountLimits.EUR.reject=800.00',
    ];
    const results = await Promise.all(changes.map((change) => cli('risk', 'set', ...otherIds, '--set', change)));
    expect(results.map((result) => result.exitCode)).toEqual(changes.map(() => 0));
    expect(JSON.parse((await cli('risk', 'show', ...otherIds, '--json')).stdout).overrides).toEqual({
      velocityCard: { limit: 7, score: 11 },
      velocityEmail: { limit: 8, score: 12 },
      velocityIp: { limit: 9, score: 13 },
      countryMismatchScore: 14,
      blocklistScore: 99,
      amountLimits: { USD: { reject: 90000 }, EUR: { reject: 80000 } },
    });
  });

  it('says which stored settings do not work as meant: those risk set took before it refused them', async () => {
    // Overrides set before these checks are enforced as stored: risk show printed rejectScore 150
    // like any other value, though the account rejected nothing.
    const other = await gw.merchant();
    const stored = { rejectScore: 150, velocityWindowSeconds: 0, velocityIp: { limit: 0 }, amountLimits: { USD: { review: 500000, reject: 100000 } } };
    await gw.database.query('UPDATE accounts SET risk_settings = $2 WHERE id = $1', [other.ids.account_id, JSON.stringify(stored)]);
    const otherIds = ['--merchant-id', other.ids.merchant_id, '--account-id', other.ids.account_id];
    const problems = [
      'velocityWindowSeconds must be at least 1',
      'velocityIp.limit must be at least 1: a limit of 0 hits every payment, whatever came before it (velocityIp.score=0 turns the rule off)',
      'rejectScore must be from 0 to 100 (a risk score is at most 100, so a higher one is never reached)',
      'amountLimits.USD.review (5000.00) must be below amountLimits.USD.reject (1000.00): a payment above the reject limit is refused, so no payment would be held for review',
    ];
    const json = JSON.parse((await cli('risk', 'show', ...otherIds, '--json')).stdout);
    expect(json).toMatchObject({ overrides: stored, problems });
    const human = await cli('risk', 'show', ...otherIds);
    expect(human.stdout).toContain(problems.map((problem) => `warning: ${problem}\n`).join(''));
    // A change to another setting is still taken, and says what remains to fix.
    const set = await cli('risk', 'set', ...otherIds, '--set', 'velocityCard.limit=5');
    expect(set.exitCode).toBe(0);
    expect(set.stdout).toContain(`warning: ${problems[2]}\n`);
    const fixed = await cli('risk', 'set', ...otherIds, '--set', 'rejectScore=80', '--set', 'velocityWindowSeconds=3600', '--set', 'velocityIp.limit=100', '--set', 'amountLimits.USD.reject=10000.00');
    expect(fixed.exitCode).toBe(0);
    expect(fixed.stdout).not.toContain('warning');
    expect(JSON.parse((await cli('risk', 'show', ...otherIds, '--json')).stdout).problems).toEqual([]);
  });

  it('refuses a review amount limit left at or above a reject limit set later', async () => {
    expect((await cli('risk', 'set', ...ids, '--set', 'amountLimits.EUR.review=1000.00')).exitCode).toBe(0);
    const lower = await cli('risk', 'set', ...ids, '--set', 'amountLimits.EUR.reject=500.00');
    expect([lower.exitCode, lower.stderr]).toEqual([
      1,
      'error: amountLimits.EUR.review (1000.00) must be below amountLimits.EUR.reject (500.00): a payment above the reject limit is refused, so no payment would be held for review\n',
    ]);
    expect(JSON.parse((await cli('risk', 'show', ...ids, '--json')).stdout).overrides).toEqual({ amountLimits: { EUR: { review: 100000 } } });
    expect((await cli('risk', 'set', ...ids, '--set', 'amountLimits.EUR.reject=5000.00')).exitCode).toBe(0);
    expect((await pay({ currency: 'EUR', amount: '1000.01' })).body.risk_action).toBe('review');
    expect((await pay({ currency: 'EUR', amount: '5000.01' })).body.risk_action).toBe('reject');
    expect((await cli('risk', 'reset', ...ids)).exitCode).toBe(0);
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

  it('matches an IPv6 address whatever zone is written after it, on the blocklist and for velocity', async () => {
    // A zone (%eth0) names the sender's own interface and says nothing of the shopper: written
    // after a blocked address it got the payment past the block, and a new zone each time past
    // the IP velocity limit.
    expect((await cli('blocklist', 'add', ...ids, '--kind', 'ip', '--value', 'fe80::7%eth0')).exitCode).toBe(0);
    // Written in full (39 characters) with a zone of an interface name's most, 15: refused as too
    // long before its zone was dropped.
    const longest = 'fe80:0000:0000:0000:0000:0000:0000:0007%enp0s31f6wlan12';
    for (const sent of ['fe80::7', 'fe80::7%eth1', 'FE80::7%1', longest]) {
      expect((await pay({ shopper_ip: sent })).body).toMatchObject({ risk_action: 'reject', result_info: '3001:Rejected by risk' });
    }
    expect((await cli('blocklist', 'list', '--account-id', shop.ids.account_id, '--json')).stdout).toContain('"value":"fe80::7"');
    expect((await cli('blocklist', 'remove', ...ids, '--kind', 'ip', '--value', 'fe80::7')).stdout).toMatch(/unblocked/);

    expect((await cli('risk', 'set', ...ids, '--set', 'velocityIp.limit=2', '--set', 'velocityIp.score=50')).exitCode).toBe(0);
    const actions = [];
    for (const zone of ['1', '2', '3']) actions.push((await pay({ card: freshCard(), shopper_ip: `fe80::9%${zone}` })).body.risk_action);
    expect(actions).toEqual(['accept', 'accept', 'review']);
    expect((await cli('risk', 'reset', ...ids)).exitCode).toBe(0);
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

  it('warns that an entry alone holds or refuses nothing where blocklistScore is below reviewScore', async () => {
    // "blocked" and {added:true} were answered though a payment with the value alone scored
    // blocklistScore (40) and was accepted: the entry on its own changed nothing.
    const other = await gw.merchant();
    const otherIds = ['--merchant-id', other.ids.merchant_id, '--account-id', other.ids.account_id];
    expect((await cli('risk', 'set', ...otherIds, '--set', 'blocklistScore=40')).exitCode).toBe(0);
    const problem =
      'blocklistScore (40) is below reviewScore (50): a payment with this entry alone is accepted; it is held or refused only if other rules add enough (acquiro risk set --set blocklistScore=80 refuses it)';
    const add = await cli('blocklist', 'add', ...otherIds, '--kind', 'email', '--value', 'weak@example.com');
    expect([add.exitCode, add.stdout]).toEqual([0, `blocked email weak@example.com\nwarning: ${problem}\n`]);
    const json = await cli('blocklist', 'add', ...otherIds, '--kind', 'email', '--value', 'weak2@example.com', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ added: true, problems: [problem] });
    expect((await other.post('/v1/authorise', cardPayment(other.ids, { shopper_email: 'weak@example.com' }))).body.risk_action).toBe('accept');
    // Gateway-wide: the accounts where it is so are named.
    const wide = await cli('blocklist', 'add', '--kind', 'email', '--value', 'weak-everywhere@example.com', '--json');
    expect(JSON.parse(wide.stdout).problems).toEqual([
      `blocklistScore is below reviewScore on 1 account (${other.ids.merchant_id}/${other.ids.account_id}): a payment there with this entry alone is accepted; it is held or refused only if other rules add enough`,
    ]);
    expect((await cli('blocklist', 'remove', '--kind', 'email', '--value', 'weak-everywhere@example.com')).exitCode).toBe(0);
    // At the default weights the entry refuses a payment alone: no warning.
    const plain = await cli('blocklist', 'add', ...ids, '--kind', 'email', '--value', 'strong@example.com', '--json');
    expect(JSON.parse(plain.stdout)).toEqual({ added: true, note: null, problems: [] });
    expect((await cli('blocklist', 'remove', ...ids, '--kind', 'email', '--value', 'strong@example.com')).exitCode).toBe(0);
    expect((await cli('risk', 'reset', ...otherIds)).exitCode).toBe(0);
  });

  it('says an entry alone only holds a payment for review where blocklistScore is between reviewScore and rejectScore', async () => {
    // "blocked" and no warning were answered though a payment with the value alone scored
    // blocklistScore (60) and was held for review (1003), not refused.
    const other = await gw.merchant();
    const otherIds = ['--merchant-id', other.ids.merchant_id, '--account-id', other.ids.account_id];
    expect((await cli('risk', 'set', ...otherIds, '--set', 'blocklistScore=60')).exitCode).toBe(0);
    const problem = 'blocklistScore (60) is below rejectScore (80): a payment with this entry alone is held for review, not refused (acquiro risk set --set blocklistScore=80 refuses it)';
    const add = await cli('blocklist', 'add', ...otherIds, '--kind', 'email', '--value', 'held@example.com');
    expect([add.exitCode, add.stdout]).toEqual([0, `blocked email held@example.com\nwarning: ${problem}\n`]);
    const json = await cli('blocklist', 'add', ...otherIds, '--kind', 'email', '--value', 'held2@example.com', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ added: true, problems: [problem] });
    expect((await other.post('/v1/authorise', cardPayment(other.ids, { shopper_email: 'held@example.com' }))).body).toMatchObject({ risk_action: 'review', order_status: '3' });
    // Gateway-wide: the accounts where it is so are named, apart from those where it accepts.
    const weak = await gw.merchant();
    expect((await cli('risk', 'set', '--merchant-id', weak.ids.merchant_id, '--account-id', weak.ids.account_id, '--set', 'blocklistScore=40')).exitCode).toBe(0);
    const wide = await cli('blocklist', 'add', '--kind', 'email', '--value', 'held-everywhere@example.com', '--json');
    expect(JSON.parse(wide.stdout).problems).toEqual([
      `blocklistScore is below reviewScore on 1 account (${weak.ids.merchant_id}/${weak.ids.account_id}): a payment there with this entry alone is accepted; it is held or refused only if other rules add enough`,
      `blocklistScore is below rejectScore on 1 account (${other.ids.merchant_id}/${other.ids.account_id}): a payment there with this entry alone is held for review, not refused`,
    ]);
    expect((await cli('blocklist', 'remove', '--kind', 'email', '--value', 'held-everywhere@example.com')).exitCode).toBe(0);
    // At rejectScore the entry refuses a payment alone: no warning.
    expect((await cli('risk', 'set', ...otherIds, '--set', 'blocklistScore=80')).exitCode).toBe(0);
    const refusing = await cli('blocklist', 'add', ...otherIds, '--kind', 'email', '--value', 'refused@example.com', '--json');
    expect(JSON.parse(refusing.stdout)).toEqual({ added: true, note: null, problems: [] });
    expect((await other.post('/v1/authorise', cardPayment(other.ids, { shopper_email: 'refused@example.com' }))).body.risk_action).toBe('reject');
    for (const client of [other, weak]) expect((await cli('risk', 'reset', '--merchant-id', client.ids.merchant_id, '--account-id', client.ids.account_id)).exitCode).toBe(0);
  });

  it('says an entry already existed, replaces its note when a new one is given and keeps it otherwise', async () => {
    // A second add answered "blocked" and {added:true} as for a new entry, and dropped its --note.
    const add = (...more: string[]) => cli('blocklist', 'add', ...ids, '--kind', 'email', '--value', 'again@example.com', ...more);
    expect((await add('--note', 'chargeback')).stdout).toBe('blocked email again@example.com\n');
    expect((await add()).stdout).toBe('email again@example.com was already blocked; its note kept: chargeback\n');
    expect((await add('--note', 'chargeback')).stdout).toBe('email again@example.com was already blocked; its note kept: chargeback\n');
    const replaced = await add('--note', 'fraud ring', '--json');
    expect(JSON.parse(replaced.stdout)).toEqual({ added: false, note: 'fraud ring', previousNote: 'chargeback', problems: [] });
    expect((await add('--note', 'second chargeback')).stdout).toBe('email again@example.com was already blocked; its note replaced (was: fraud ring): second chargeback\n');
    // The same card through another of its transactions is the same entry.
    const card = freshCard();
    const [first, second] = [await pay({ card }), await pay({ card })];
    expect((await cli('blocklist', 'add', ...ids, '--kind', 'card', '--value', first.body.transaction_id)).stdout).toMatch(/^blocked card/);
    const again = await cli('blocklist', 'add', ...ids, '--kind', 'card', '--value', second.body.transaction_id, '--json');
    expect(JSON.parse(again.stdout)).toEqual({ added: false, note: null, problems: [] });
    const listed = JSON.parse((await cli('blocklist', 'list', '--account-id', shop.ids.account_id, '--json')).stdout) as { kind: string; value: string; note: string }[];
    expect(listed.filter((row) => row.value === 'again@example.com').map((row) => row.note)).toEqual(['second chargeback']);
    expect(listed.filter((row) => row.kind === 'card')).toHaveLength(1);
    expect((await cli('blocklist', 'remove', ...ids, '--kind', 'email', '--value', 'again@example.com')).exitCode).toBe(0);
    expect((await cli('blocklist', 'remove', ...ids, '--kind', 'card', '--value', first.body.transaction_id)).exitCode).toBe(0);
  });

  it('adds one entry of ten concurrent adds of it, and says so to the other nine', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, n) => cli('blocklist', 'add', ...ids, '--kind', 'email', '--value', 'race@example.com', '--note', `note ${n}`, '--json')),
    );
    const answers = results.map((result) => JSON.parse(result.stdout) as { added: boolean; note: string });
    expect(answers.filter((answer) => answer.added)).toHaveLength(1);
    const listed = JSON.parse((await cli('blocklist', 'list', '--account-id', shop.ids.account_id, '--json')).stdout) as { value: string }[];
    expect(listed.filter((row) => row.value === 'race@example.com')).toHaveLength(1);
    expect((await cli('blocklist', 'remove', ...ids, '--kind', 'email', '--value', 'race@example.com')).exitCode).toBe(0);
  });

  it("cannot block a card through another account's transaction", async () => {
    const other = await gw.merchant();
    const theirs = await other.post('/v1/authorise', cardPayment(other.ids, { card: freshCard() }));
    const result = await cli('blocklist', 'add', ...ids, '--kind', 'card', '--value', theirs.body.transaction_id);
    expect([result.exitCode, result.stderr]).toEqual([1, `error: no card payment ${theirs.body.transaction_id} on account ${shop.ids.account_id}\n`]);
  });
});

describe('acquiro blocklist add: a card needs its account', () => {
  it('refuses a card named without an account before the database is opened (exit 2)', async () => {
    // A card is named by a payment of one account: with no account it can be refused from the
    // arguments alone. It was refused by the use case, exit 1, a refusal by the database's content.
    const result = await runCommand(['blocklist', 'add', '--kind', 'card', '--value', 'T1'], async () => Promise.reject(new Error('opened the database')));
    expect([result.exitCode, result.stderr]).toEqual([2, 'error: blocking a card needs --merchant-id and --account-id with the transaction id\n']);
  });
});
