// The dispute feeds the poll-disputes task asks a connector for (docs/connectors.md, "Disputes"):
// its one feed, asked without credentials, or, for a connector whose acquirer hands out each
// merchant connection's disputes apart (`disputesBy: 'credentials'`), one feed per distinct set of
// credentials stored on the accounts routed to it, asked with them.
import type { Connector, Credentials } from '../../connectors/port.ts';
import { accountsWithCredentials, connectorsInUse, cursorOf, feedRows, type DisputeFeed } from '../../db/repositories/disputes.ts';
import type { Deps } from '../context.ts';
import { credentialsFor } from '../merchants/connector.ts';
import type { Vault } from '../vault.ts';

/** A feed and the credentials it is asked with. */
export interface PolledFeed {
  readonly feed: DisputeFeed;
  readonly credentials: Credentials;
  /** The accounts whose credentials name it (none listed for a connector's one feed: all of its accounts). */
  readonly accounts: readonly string[];
}

const NONE: Credentials = Object.freeze({});

/** The connector's feeds, in the order of their keys, and the accounts whose credentials could not be opened. */
export interface Feeds {
  readonly feeds: readonly PolledFeed[];
  /** Sealed under a vault key no longer configured, or damaged: their feed cannot be asked. */
  readonly unopened: readonly { readonly accountId: string; readonly error: unknown }[];
}

export async function feedsOf(deps: Pick<Deps, 'database' | 'vault'>, name: string, connector: Connector): Promise<Feeds> {
  if (connector.disputesBy !== 'credentials') return { feeds: [{ feed: { connector: name, key: '' }, credentials: NONE, accounts: [] }], unopened: [] };
  const feeds = new Map<string, PolledFeed & { accounts: string[] }>();
  const unopened: { accountId: string; error: unknown }[] = [];
  for (const account of await accountsWithCredentials(deps.database.db, name)) {
    let credentials: Credentials;
    try {
      credentials = credentialsFor(deps, account, name);
    } catch (error) {
      // One account that cannot be opened must not stop every other feed.
      unopened.push({ accountId: account.id, error });
      continue;
    }
    if (Object.keys(credentials).length === 0) continue;
    const key = feedKey(deps.vault, name, credentials);
    const known = feeds.get(key);
    if (known) known.accounts.push(account.id);
    else feeds.set(key, { feed: { connector: name, key }, credentials, accounts: [account.id] });
  }
  return { feeds: [...feeds.values()].sort((a, b) => (a.feed.key < b.feed.key ? -1 : 1)), unopened };
}

/**
 * The feed's name: a MAC of the connector and the credentials (names and values, in the names'
 * order), so equal credentials on two accounts share one feed and the stored name reveals none.
 */
export function feedKey(vault: Pick<Vault, 'mac'>, connector: string, credentials: Credentials): string {
  const entries = Object.entries(credentials).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return vault.mac('dispute feed', JSON.stringify([connector, entries]));
}

/** A feed as `acquiro disputes feeds` shows it: its accounts and its cursor row's times, never its credentials. */
export interface FeedView {
  readonly connector: string;
  /** `connector`: the connector's one feed; `credentials`: a merchant connection's. */
  readonly by: 'connector' | 'credentials';
  /** The MAC that names a merchant connection's feed (its `dispute_feeds` row); null for a connector's one feed. */
  readonly feed: string | null;
  readonly accounts: readonly string[];
  /** When its cursor last moved on (null: never polled with an answer yet). */
  readonly polled_at: Date | null;
  /** While a worker is polling it: until when its lease holds. */
  readonly leased_until: Date | null;
}

/**
 * A merchant connection's feed that no account's credentials name any more (rotated, or its
 * accounts routed elsewhere): no longer asked. Its row and cursor stay, so the feed goes on from
 * there if those credentials come back; the reports it held are offered with the connector's
 * first feed (docs/connectors.md, "Disputes").
 */
export interface RetiredFeedView {
  readonly connector: string;
  readonly feed: string;
  readonly polled_at: Date | null;
}

export interface FeedListing {
  readonly feeds: FeedView[];
  readonly unopened: { connector: string; account_id: string; error: string }[];
  readonly retired: RetiredFeedView[];
}

/** Every feed the poll asks now, connector by connector, the accounts left out, and the feeds no longer asked (`acquiro disputes feeds`). */
export async function listFeeds(deps: Pick<Deps, 'database' | 'vault' | 'connectors' | 'wallClock'>): Promise<FeedListing> {
  const views: FeedView[] = [];
  const left: { connector: string; account_id: string; error: string }[] = [];
  const retired: RetiredFeedView[] = [];
  const now = deps.wallClock.now();
  for (const name of await connectorsInUse(deps.database.db)) {
    const connector = deps.connectors.get(name);
    if (!connector?.disputes) continue;
    const { feeds, unopened } = await feedsOf(deps, name, connector);
    for (const { feed, accounts } of feeds) {
      const row = await cursorOf(deps.database.db, feed);
      views.push({
        connector: name,
        by: feed.key === '' ? 'connector' : 'credentials',
        feed: feed.key === '' ? null : feed.key,
        accounts,
        polled_at: row?.polledAt ?? null,
        leased_until: row?.nextPollAt && row.nextPollAt > now ? row.nextPollAt : null,
      });
    }
    left.push(...unopened.map(({ accountId, error }) => ({ connector: name, account_id: accountId, error: error instanceof Error ? error.message : String(error) })));
    // A feed of an account whose credentials cannot be opened is not retired: it is that account's still.
    if (connector.disputesBy !== 'credentials' || unopened.length > 0) continue;
    const asked = new Set(feeds.map(({ feed }) => feed.key));
    for (const row of await feedRows(deps.database.db, name)) {
      if (!asked.has(row.id)) retired.push({ connector: name, feed: row.id, polled_at: row.polledAt });
    }
  }
  return { feeds: views, unopened: left, retired };
}
