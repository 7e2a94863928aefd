// Dispute feeds per merchant connection (docs/connectors.md, "Disputes"): a connector whose
// acquirer hands out each merchant connection's disputes apart (`disputesBy: 'credentials'`) is
// asked once for each distinct set of credentials stored on the accounts routed to it, with them,
// each feed from a cursor of its own. Equal credentials share a feed; an account without any has
// none; a feed that fails stays where it was while the others move on; two workers never ask a
// feed from one cursor twice; a held report goes back only to its own feed; new credentials start
// a new feed from the first report. The stored feed and the log name no credential. A connector
// with one feed (the simulator) is asked once, without credentials, whatever its accounts store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connectors, Deps } from '../../src/app/context.ts';
import { feedKey } from '../../src/app/disputes/feeds.ts';
import { pollDisputes } from '../../src/app/disputes/poll.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { err, ok, type Connector, type Credentials, type DisputeReport, type DisputesRequest } from '../../src/connectors/port.ts';
import { createSimulator } from '../../src/connectors/simulator/index.ts';
import type { SignedClient } from '../support/client.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { pay, type Txn } from '../support/lifecycle.ts';
import { routeAccount } from '../support/routing.ts';

/** What the acquirer behind `acme` keeps: each merchant connection's reports, by its API key, in order. */
const atAcquirer = new Map<string, DisputeReport[]>();
/** Every dispute poll the connectors were asked, in order. */
const asked: { connector: string; cursor: string | null; credentials: Credentials | undefined }[] = [];
/** The API key whose feed answers with an error (the acquirer's side down for that connection). */
let failing: string | undefined;

function withFeeds(name: string, disputesBy: Connector['disputesBy']): Connector {
  const simulator = createSimulator({ baseUrl: 'http://gateway.test' });
  return {
    ...simulator,
    name,
    disputesBy,
    disputes: async ({ cursor, credentials }: DisputesRequest) => {
      asked.push({ connector: name, cursor, credentials });
      // The one feed of a connector that has one: nothing reported.
      if (disputesBy !== 'credentials') return ok({ reports: [], cursor: 'none' });
      const key = credentials?.api_key;
      if (key === undefined) return err({ kind: 'unsupported' as const, message: 'no merchant connection named' });
      if (key === failing) return err({ kind: 'network' as const, message: 'connection reset' });
      const reports = atAcquirer.get(key) ?? [];
      return ok({ reports: reports.slice(cursor === null ? 0 : Number(cursor)), cursor: String(reports.length) });
    },
  };
}

// `simulator` keeps its one feed (the default), `acme` hands disputes out per merchant connection.
const byName = new Map([withFeeds('simulator', undefined), withFeeds('acme', 'credentials')].map((connector) => [connector.name, connector]));
const connectors: Connectors = { get: (name) => byName.get(name) };

let gw: TestGateway;
let shopA: SignedClient;
let shopA2: SignedClient;
let shopB: SignedClient;
let bare: SignedClient;
let onSimulator: SignedClient;
const A = { api_key: 'ak_live_connection_a', region: 'eu' };
const B = { api_key: 'ak_live_connection_b' };

beforeAll(async () => {
  gw = await startTestGateway({ connectors });
  [shopA, shopA2, shopB, bare, onSimulator] = await Promise.all([gw.merchant(), gw.merchant(), gw.merchant(), gw.merchant(), gw.merchant()]);
  await routeAccount(gw, shopA, 'acme', A);
  // The same credentials written in another order: the same merchant connection.
  await routeAccount(gw, shopA2, 'acme', { region: 'eu', api_key: A.api_key });
  await routeAccount(gw, shopB, 'acme', B);
  await routeAccount(gw, bare, 'acme');
  await routeAccount(gw, onSimulator, 'simulator', { api_key: 'ak_live_simulator' });
});
afterAll(() => gw?.close());

const deps = (): Deps => gw.gateway.deps;
/** A worker `ms` later on the wall clock: the leases of an earlier poll have run out. */
const later = (ms: number): Deps => ({ ...deps(), wallClock: { now: () => new Date(Date.now() + ms) } });
const afterLeases = () => later(deps().config.processor.leaseMs + 1);

/** Each poll of `acme` since `from`, by the API key it carried. */
const acmePolls = (from = 0) =>
  asked
    .slice(from)
    .filter((poll) => poll.connector === 'acme')
    .map((poll) => ({ key: poll.credentials?.api_key, cursor: poll.cursor }))
    .sort((a, b) => String(a.key).localeCompare(String(b.key)));

/** A dispute of half the payment, put in the acquirer's feed of `apiKey`. */
async function disputeAt(apiKey: string, txn: Txn, id = `dp-${txn.transaction_id}`): Promise<DisputeReport> {
  const [row] = await gw.database.query<{ connector_reference: string; amount: number }>('SELECT connector_reference, amount::int AS amount FROM payments WHERE id = $1', [txn.transaction_id]);
  const report: DisputeReport = { disputeId: id, paymentReference: row!.connector_reference, stage: 'opened', amount: { minor: row!.amount / 2, currency: 'USD' }, reasonCode: '10.4', at: new Date() };
  atAcquirer.set(apiKey, [...(atAcquirer.get(apiKey) ?? []), report]);
  return report;
}

/** A dispute of `txn` in the feed of `apiKey` that names a reference no payment has: the poll holds it. */
async function unplaceableAt(apiKey: string, txn: Txn, id: string): Promise<void> {
  const report = await disputeAt(apiKey, txn, id);
  atAcquirer.set(apiKey, [...atAcquirer.get(apiKey)!.slice(0, -1), { ...report, paymentReference: `no-payment-${id}` }]);
}
const heldReport = (id: string) => gw.database.query<{ feed: string; attempts: number }>('SELECT feed, attempts FROM held_dispute_reports WHERE connector_dispute_id = $1', [id]);

const disputesOf = (txn: Txn) =>
  gw.database.query<{ merchant_id: string; connector_dispute_id: string; amount: number }>(
    'SELECT merchant_id, connector_dispute_id, amount::int AS amount FROM disputes WHERE payment_id = $1',
    [txn.transaction_id],
  );

describe('a connector whose acquirer hands out disputes per merchant connection', () => {
  it('is asked once for each distinct set of credentials, with them, and records what each feed brings on its own payment', async () => {
    const [a, a2, b] = [await pay(shopA), await pay(shopA2), await pay(shopB)];
    await disputeAt(A.api_key, a);
    await disputeAt(A.api_key, a2);
    await disputeAt(B.api_key, b);
    const from = asked.length;
    expect(await pollDisputes(deps())).toBe(3);
    // Two feeds (A and A2 share one), each with its credentials and from the first report; the
    // account with no credentials has no feed, and no poll went out without any.
    expect(acmePolls(from)).toEqual([
      { key: A.api_key, cursor: null },
      { key: B.api_key, cursor: null },
    ]);
    const acme = asked.slice(from).filter((poll) => poll.connector === 'acme');
    expect(acme.find((poll) => poll.credentials?.api_key === A.api_key)!.credentials).toEqual(A);
    expect(await disputesOf(a)).toEqual([{ merchant_id: shopA.ids.merchant_id, connector_dispute_id: `dp-${a.transaction_id}`, amount: 500 }]);
    expect(await disputesOf(a2)).toEqual([{ merchant_id: shopA2.ids.merchant_id, connector_dispute_id: `dp-${a2.transaction_id}`, amount: 500 }]);
    expect(await disputesOf(b)).toEqual([{ merchant_id: shopB.ids.merchant_id, connector_dispute_id: `dp-${b.transaction_id}`, amount: 500 }]);

    // The next round asks each feed from its own cursor; nothing is new.
    const next = asked.length;
    expect(await pollDisputes(deps())).toBe(0);
    expect(acmePolls(next)).toEqual([
      { key: A.api_key, cursor: '2' },
      { key: B.api_key, cursor: '1' },
    ]);
    // Each feed's row is named by a MAC of the connector and its credentials, never by them.
    const feeds = await gw.database.query<{ id: string; connector: string; cursor: string }>('SELECT id, connector, cursor FROM dispute_feeds ORDER BY cursor');
    expect(feeds).toEqual([
      { id: feedKey(deps().vault, 'acme', B), connector: 'acme', cursor: '1' },
      { id: feedKey(deps().vault, 'acme', A), connector: 'acme', cursor: '2' },
    ]);
    expect(JSON.stringify(feeds)).not.toMatch(/ak_live|eu/);
    expect(gw.logs.text).not.toContain('ak_live');
  });

  it('keeps a feed whose poll failed where it was, while the others move on; asked again once its lease runs out', async () => {
    const [a, b] = [await pay(shopA), await pay(shopB)];
    await disputeAt(A.api_key, a);
    await disputeAt(B.api_key, b);
    failing = B.api_key;
    try {
      expect(await pollDisputes(deps())).toBe(1);
    } finally {
      failing = undefined;
    }
    expect(await disputesOf(a)).toHaveLength(1);
    expect(await disputesOf(b)).toEqual([]);
    expect(gw.logs.text).toMatch(new RegExp(`"connector":"acme","feed":"${feedKey(deps().vault, 'acme', B)}","error":"network".*dispute poll got no answer`));
    const from = asked.length;
    expect(await pollDisputes(afterLeases())).toBe(1);
    expect(acmePolls(from)).toEqual([
      { key: A.api_key, cursor: '3' },
      { key: B.api_key, cursor: '1' },
    ]);
    expect(await disputesOf(b)).toHaveLength(1);
  });

  it('is never asked from one cursor twice when two workers poll at once, and records each report once', async () => {
    const [a, b] = [await pay(shopA), await pay(shopB)];
    await disputeAt(A.api_key, a);
    await disputeAt(B.api_key, b);
    const from = asked.length;
    const [one, two] = await Promise.all([pollDisputes(deps()), pollDisputes(deps())]);
    expect(one + two).toBe(2);
    // A feed's lease keeps a second worker out while the first asks; once the first has moved the
    // cursor on, the second may ask again, from there.
    const polls = acmePolls(from);
    expect(new Set(polls.map((poll) => poll.key))).toEqual(new Set([A.api_key, B.api_key]));
    expect(new Set(polls.map((poll) => `${poll.key} ${poll.cursor}`)).size).toBe(polls.length);
    expect(await disputesOf(a)).toHaveLength(1);
    expect(await disputesOf(b)).toHaveLength(1);
  });

  it('holds a report its feed cannot place and offers it again only with the polls of that feed', async () => {
    await unplaceableAt(B.api_key, await pay(shopB), 'dp-unplaced');
    await pollDisputes(deps());
    expect(await heldReport('dp-unplaced')).toEqual([{ feed: feedKey(deps().vault, 'acme', B), attempts: 1 }]);
    // One round polls both feeds; only B's offers it again.
    await pollDisputes(deps());
    expect(await heldReport('dp-unplaced')).toEqual([{ feed: feedKey(deps().vault, 'acme', B), attempts: 2 }]);
    const forgot = await runCommand(['disputes', 'forget', '--connector', 'acme', '--dispute-id', 'dp-unplaced'], deps());
    expect(forgot.stdout).toContain('forgot 1 held report(s) of dispute dp-unplaced');
  });

  it('starts a new feed from the first report when the credentials change, and no longer asks the old one; its held reports are offered still', async () => {
    // Held on A's feed, which the rotation below leaves unpolled.
    await unplaceableAt(A.api_key, await pay(shopA), 'dp-held-before-rotation');
    await pollDisputes(deps());
    expect(await heldReport('dp-held-before-rotation')).toEqual([{ feed: feedKey(deps().vault, 'acme', A), attempts: 1 }]);

    const rotated = { api_key: 'ak_live_connection_a_rotated', region: 'eu' };
    await routeAccount(gw, shopA, 'acme', rotated);
    await routeAccount(gw, shopA2, 'acme', rotated);
    // The same merchant connection at the acquirer, under a new key: the reports it kept so far,
    // but for the one held, which only the adopting poll can bring back.
    atAcquirer.set(rotated.api_key, atAcquirer.get(A.api_key)!.filter((kept) => kept.disputeId !== 'dp-held-before-rotation'));
    const from = asked.length;
    expect(await pollDisputes(deps())).toBe(0);
    expect(acmePolls(from)).toEqual([
      { key: rotated.api_key, cursor: null },
      { key: B.api_key, cursor: '4' },
    ]);
    // The operator sees the old feed as no longer asked, by its name only.
    const listed = await runCommand(['disputes', 'feeds', '--json'], deps());
    const { retired } = JSON.parse(listed.stdout) as { retired: { connector: string; feed: string; polled_at: string | null }[] };
    expect(retired.map(({ connector, feed }) => ({ connector, feed }))).toEqual([{ connector: 'acme', feed: feedKey(deps().vault, 'acme', A) }]);
    expect(retired[0]!.polled_at).not.toBeNull();
    const human = (await runCommand(['disputes', 'feeds'], deps())).stdout;
    expect(human).toContain(`feed ${feedKey(deps().vault, 'acme', A).slice(0, 12)}… on acme: no account's credentials name it now (last polled ${retired[0]!.polled_at}); not asked, its cursor kept`);
    expect(human + listed.stdout).not.toContain('ak_live');
    // Offered again by a feed still polled, and that feed's from now on.
    const [adopted] = await heldReport('dp-held-before-rotation');
    expect(adopted!.attempts).toBe(2);
    expect([feedKey(deps().vault, 'acme', rotated), feedKey(deps().vault, 'acme', B)]).toContain(adopted!.feed);
    await runCommand(['disputes', 'forget', '--connector', 'acme', '--dispute-id', 'dp-held-before-rotation'], deps());
    const a = await pay(shopA);
    await disputeAt(rotated.api_key, a);
    expect(await pollDisputes(deps())).toBe(1);
    expect(await disputesOf(a)).toHaveLength(1);
  });

  it('skips, with an error logged, an account whose credentials cannot be opened, and polls the other feeds', async () => {
    const broken = await gw.merchant();
    await routeAccount(gw, broken, 'acme', { api_key: 'ak_live_broken' });
    await gw.database.query(`UPDATE accounts SET connector_credentials_key = 'retired-key' WHERE id = $1`, [broken.ids.account_id]);
    const from = asked.length;
    await pollDisputes(deps());
    expect(acmePolls(from).map((poll) => poll.key)).toEqual(['ak_live_connection_a_rotated', B.api_key]);
    expect(gw.logs.text).toMatch(new RegExp(`"accountId":"${broken.ids.account_id}","connector":"acme".*its dispute feed is not polled`));

    // The operator's view: each feed with its accounts and last poll, and the account left out.
    const listed = await runCommand(['disputes', 'feeds', '--json'], deps());
    expect(listed.exitCode, listed.stderr).toBe(0);
    const { feeds, unopened, retired } = JSON.parse(listed.stdout) as {
      feeds: { connector: string; by: string; feed: string | null; accounts: string[]; polled_at: string | null }[];
      unopened: unknown[];
      retired: unknown[];
    };
    // With one account's credentials unreadable, no feed of its connector can be called retired: it may be that account's.
    expect(retired).toEqual([]);
    const rotated = { api_key: 'ak_live_connection_a_rotated', region: 'eu' };
    const inOrder = <T extends { connector: string; feed: string | null }>(list: T[]) => list.sort((a, b) => `${a.connector} ${a.feed}`.localeCompare(`${b.connector} ${b.feed}`));
    expect(inOrder(feeds.map(({ connector, by, feed, accounts }) => ({ connector, by, feed, accounts: [...accounts].sort() })))).toEqual(
      inOrder([
        { connector: 'acme', by: 'credentials', feed: feedKey(deps().vault, 'acme', rotated), accounts: [shopA.ids.account_id, shopA2.ids.account_id].sort() },
        { connector: 'acme', by: 'credentials', feed: feedKey(deps().vault, 'acme', B), accounts: [shopB.ids.account_id] },
        { connector: 'simulator', by: 'connector', feed: null, accounts: [] },
      ]),
    );
    expect(feeds.every((feed) => feed.polled_at !== null)).toBe(true);
    expect(unopened).toEqual([{ connector: 'acme', account_id: broken.ids.account_id, error: 'vault key retired-key is not configured' }]);
    expect(listed.stdout).not.toContain('ak_live');
    const human = await runCommand(['disputes', 'feeds'], deps());
    expect(human.stdout).toContain(`${feedKey(deps().vault, 'acme', B).slice(0, 12)}…`);
    expect(human.stdout).toContain(`account ${broken.ids.account_id} on acme: its credentials cannot be opened (vault key retired-key is not configured); its feed is not polled`);
  });
});

describe('a connector with one dispute feed', () => {
  it('is asked once, without credentials, though its accounts store some', async () => {
    const from = asked.length;
    await pollDisputes(deps());
    expect(asked.slice(from).filter((poll) => poll.connector === 'simulator')).toEqual([{ connector: 'simulator', cursor: 'none', credentials: {} }]);
    expect(asked.filter((poll) => poll.connector === 'simulator' && poll.cursor === null)).toEqual([{ connector: 'simulator', cursor: null, credentials: {} }]);
    expect(await gw.database.query(`SELECT connector FROM dispute_cursors`)).toEqual([{ connector: 'simulator' }]);
  });
});
