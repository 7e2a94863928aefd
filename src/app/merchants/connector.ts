// Which connector processes an account's payments, and the account's credentials with it (the
// acquirer's API keys), sealed by the vault like cards and secret keys and resealed with them.
import { and, eq } from 'drizzle-orm';
import { AppError } from '../../domain/errors.ts';
import { PLATFORM_MERCHANT_ID } from '../../domain/ledger.ts';
import { announceAccountChange } from '../../db/repositories/accounts.ts';
import { accounts, type AccountRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import { operatorAccount } from '../accounts/of-merchant.ts';
import { assertConnectorUsable } from './credentials.ts';

type ConnectorDeps = Pick<Deps, 'database' | 'vault' | 'config'> & Partial<Pick<Deps, 'connectors'>>;

export interface ConnectorView {
  readonly account_id: string;
  readonly connector: string;
  /** The names of the stored credentials; their values are never shown. */
  readonly credentials: readonly string[];
}

export async function setConnector(
  deps: ConnectorDeps,
  merchantId: string,
  accountId: string,
  connector: string,
  credentials: Readonly<Record<string, string>> | undefined,
): Promise<ConnectorView> {
  assertConnectorUsable(deps, connector);
  const sealed = credentials ? deps.vault.seal(JSON.stringify(credentials), accountId) : undefined;
  return deps.database.db.transaction(async (tx) => {
    const changed = await tx
      .update(accounts)
      .set({ connector, ...(sealed ? { connectorCredentials: sealed.ciphertext, connectorCredentialsKey: sealed.keyId } : {}) })
      .where(and(eq(accounts.id, accountId), eq(accounts.merchantId, merchantId)))
      .returning();
    if (changed.length === 0 || merchantId === PLATFORM_MERCHANT_ID) throw new AppError('account_not_found', `no account ${accountId} under merchant ${merchantId}`);
    await announceAccountChange(tx);
    return viewOf(deps, changed[0]!);
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
