// The account a command names, checked to be the merchant's before anything is read or changed.
import { eq } from 'drizzle-orm';
import { operatorAccount } from '../app/accounts/of-merchant.ts';
import { accounts, merchants } from '../db/schema.ts';
import { usageError, type CommandDeps } from './io.ts';

export async function requireAccount(deps: CommandDeps, merchantId: string, accountId: string): Promise<void> {
  await operatorAccount(deps.database.db, merchantId, accountId);
}

/**
 * The merchant, the account or both a filter names: each must exist, and the account be the
 * merchant's (exit 1 otherwise), so that a mistyped name is refused rather than listed as nothing.
 */
export async function requireNamed(deps: CommandDeps, names: { merchantId?: string | undefined; accountId?: string | undefined }): Promise<void> {
  const { merchantId, accountId } = names;
  if (merchantId !== undefined && accountId !== undefined) return requireAccount(deps, merchantId, accountId);
  if (accountId !== undefined) {
    const [row] = await deps.database.db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
    if (!row) throw usageError(`no account ${accountId}`, 1);
  }
  if (merchantId !== undefined) {
    const [row] = await deps.database.db.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, merchantId));
    if (!row) throw usageError(`no merchant ${merchantId}`, 1);
  }
}
