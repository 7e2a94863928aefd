// Which connector processes an account's payments, and the account's credentials with it (the
// acquirer's API keys), sealed by the vault like cards and secret keys and resealed with them.
import { and, eq } from 'drizzle-orm';
import { AppError } from '../../domain/errors.ts';
import { PLATFORM_MERCHANT_ID } from '../../domain/ledger.ts';
import { announceAccountChange } from '../../db/repositories/accounts.ts';
import { accounts, type AccountRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import type { Credentials } from '../../connectors/port.ts';
import { operatorAccount } from '../accounts/of-merchant.ts';
import { assertConnectorUsable } from './credentials.ts';

type ConnectorDeps = Pick<Deps, 'database' | 'vault' | 'config'> & Partial<Pick<Deps, 'connectors'>>;

export interface ConnectorView {
  readonly account_id: string;
  readonly connector: string;
  /** The names of the stored credentials; their values are never shown. */
  readonly credentials: readonly string[];
}

/** `accounts connector set`'s answer: the account as it now stands, and what it no longer holds. */
export interface ConnectorSetView extends ConnectorView {
  /**
   * The names of the credentials dropped: the previous connector's, when the account moved to
   * another connector without new ones (never handed to the new connector, another acquirer).
   */
  readonly dropped_credentials: readonly string[];
}

/**
 * Routes the account to `connector`. With `credentials`, they replace the stored ones. Without,
 * the stored ones are kept while the connector stays the same, and dropped when it changes: they
 * are the previous connector's keys, and every call to the new one would carry them.
 */
export async function setConnector(
  deps: ConnectorDeps,
  merchantId: string,
  accountId: string,
  connector: string,
  credentials: Readonly<Record<string, string>> | undefined,
): Promise<ConnectorSetView> {
  assertConnectorUsable(deps, connector);
  const sealed = credentials ? deps.vault.seal(JSON.stringify(credentials), accountId) : undefined;
  return deps.database.db.transaction(async (tx) => {
    const [before] =
      merchantId === PLATFORM_MERCHANT_ID
        ? []
        : await tx
            .select()
            .from(accounts)
            .where(and(eq(accounts.id, accountId), eq(accounts.merchantId, merchantId)))
            .for('update');
    if (!before) throw new AppError('account_not_found', `no account ${accountId} under merchant ${merchantId}`);
    const moved = before.connector !== connector;
    const stored = sealed
      ? { connectorCredentials: sealed.ciphertext, connectorCredentialsKey: sealed.keyId }
      : moved
        ? { connectorCredentials: null, connectorCredentialsKey: null }
        : {};
    const [changed] = await tx
      .update(accounts)
      .set({ connector, ...stored })
      .where(eq(accounts.id, accountId))
      .returning();
    await announceAccountChange(tx);
    const dropped = !sealed && moved ? viewOf(deps, before).credentials : [];
    return { ...viewOf(deps, changed!), dropped_credentials: dropped };
  });
}

export async function showConnector(deps: ConnectorDeps, merchantId: string, accountId: string): Promise<ConnectorView> {
  return viewOf(deps, await operatorAccount(deps.database.db, merchantId, accountId));
}

/** The account's credentials with its connector, opened; empty when none are stored. */
export function connectorCredentials(deps: Pick<Deps, 'vault'>, account: AccountRow): Record<string, string> {
  if (!account.connectorCredentials || !account.connectorCredentialsKey) return {};
  return JSON.parse(deps.vault.open({ ciphertext: account.connectorCredentials, keyId: account.connectorCredentialsKey }, account.id)) as Record<string, string>;
}

function viewOf(deps: Pick<Deps, 'vault'>, row: AccountRow): ConnectorView {
  return { account_id: row.id, connector: row.connector, credentials: Object.keys(connectorCredentials(deps, row)).sort() };
}

const NONE: Credentials = Object.freeze({});
const MAX_OPENED = 10_000;

/**
 * Opened credentials per vault, by account, vault key and ciphertext: what a row holds names its
 * entry, so new credentials or a reseal (a new ciphertext) are opened afresh and a stale entry is
 * never used. Opening (AES-GCM and a JSON parse) runs once per account and key, not per call.
 */
const opened = new WeakMap<Deps['vault'], Map<string, Credentials>>();

/**
 * The credentials a connector call for `account` carries when the call is for a payment (or
 * payout) taken on `connector`: the account's stored ones when its stored connector is that one;
 * none otherwise (an account re-routed since: the old connector never gets the new one's keys).
 * Opened from the row at hand (the account directory's cached row on the hot path): no statement.
 */
export function credentialsFor(deps: Pick<Deps, 'vault'>, account: AccountRow, connector: string): Credentials {
  if (account.connector !== connector || !account.connectorCredentials || !account.connectorCredentialsKey) return NONE;
  let byRow = opened.get(deps.vault);
  if (!byRow) opened.set(deps.vault, (byRow = new Map()));
  const key = `${account.id}\u0000${account.connectorCredentialsKey}\u0000${account.connectorCredentials}`;
  const hit = byRow.get(key);
  if (hit) return hit;
  const value = Object.freeze(connectorCredentials(deps, account));
  if (byRow.size >= MAX_OPENED) byRow.clear();
  byRow.set(key, value);
  return value;
}

/**
 * The credentials for a call about something of account `accountId` taken on `connector` (a
 * capture, void, refund, status query or completion): the account read by its id, then as
 * credentialsFor.
 */
export async function credentialsOfAccount(deps: Pick<Deps, 'vault' | 'database'>, accountId: string, connector: string): Promise<Credentials> {
  const [account] = await deps.database.db.select().from(accounts).where(eq(accounts.id, accountId)).limit(1);
  return account ? credentialsFor(deps, account, connector) : NONE;
}

/**
 * credentialsOfAccount for a call about to be sent, or undefined when the account could not be
 * read (the database away): the call is not sent, and its outcome stays unknown for the sweeper.
 * `known`: the account's row when the caller has it (a merchant's order), used instead of a read.
 */
export async function credentialsToSend(
  deps: Pick<Deps, 'vault' | 'database' | 'log'>,
  accountId: string,
  connector: string,
  known?: AccountRow,
): Promise<Credentials | undefined> {
  try {
    // A merchant's order names its account, read with the request (the account directory's row):
    // a batch's orders are not each read again.
    if (known?.id === accountId) return credentialsFor(deps, known, connector);
    return await credentialsOfAccount(deps, accountId, connector);
  } catch (error) {
    deps.log.warn({ accountId, connector, err: error }, 'the account\'s connector credentials could not be read: the call is not sent');
    return undefined;
  }
}
