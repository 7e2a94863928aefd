// The dispute feeds the poll-disputes task asks a connector for (docs/connectors.md, "Disputes"):
// its one feed, asked without credentials, or, for a connector whose acquirer hands out each
// merchant connection's disputes apart (`disputesBy: 'credentials'`), one feed per distinct set of
// credentials stored on the accounts routed to it, asked with them.
import type { Connector, Credentials } from '../../connectors/port.ts';
import { accountsWithCredentials, type DisputeFeed } from '../../db/repositories/disputes.ts';
import type { Deps } from '../context.ts';
import { credentialsFor } from '../merchants/connector.ts';
import type { Vault } from '../vault.ts';

/** A feed and the credentials it is asked with. */
export interface PolledFeed {
  readonly feed: DisputeFeed;
  readonly credentials: Credentials;
}

const NONE: Credentials = Object.freeze({});

/** The connector's feeds, in the order of their keys. */
export async function feedsOf(deps: Pick<Deps, 'database' | 'vault' | 'log'>, name: string, connector: Connector): Promise<PolledFeed[]> {
  if (connector.disputesBy !== 'credentials') return [{ feed: { connector: name, key: '' }, credentials: NONE }];
  const feeds = new Map<string, PolledFeed>();
  for (const account of await accountsWithCredentials(deps.database.db, name)) {
    let credentials: Credentials;
    try {
      credentials = credentialsFor(deps, account, name);
    } catch (error) {
      // One account sealed under a vault key no longer configured must not stop every other feed.
      deps.log.error({ accountId: account.id, connector: name, err: error }, "the account's connector credentials could not be opened: its dispute feed is not polled");
      continue;
    }
    if (Object.keys(credentials).length === 0) continue;
    const key = feedKey(deps.vault, name, credentials);
    if (!feeds.has(key)) feeds.set(key, { feed: { connector: name, key }, credentials });
  }
  return [...feeds.values()].sort((a, b) => (a.feed.key < b.feed.key ? -1 : 1));
}

/**
 * The feed's name: a MAC of the connector and the credentials (names and values, in the names'
 * order), so equal credentials on two accounts share one feed and the stored name reveals none.
 */
export function feedKey(vault: Pick<Vault, 'mac'>, connector: string, credentials: Credentials): string {
  const entries = Object.entries(credentials).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return vault.mac('dispute feed', JSON.stringify([connector, entries]));
}
