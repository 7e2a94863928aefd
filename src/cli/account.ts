// The account a command names, checked to be the merchant's before anything is read or changed.
import { and, eq } from 'drizzle-orm';
import { PLATFORM_MERCHANT_ID } from '../domain/ledger.ts';
import { accounts } from '../db/schema.ts';
import { usageError, type CommandDeps } from './io.ts';

export async function requireAccount(deps: CommandDeps, merchantId: string, accountId: string): Promise<void> {
  const [row] = await deps.database.db
    .select({ id: accounts.id })
    .from(accounts)
    .where(and(eq(accounts.id, accountId), eq(accounts.merchantId, merchantId)));
  // The ledger's own books (fees earned) sit under the `platform` merchant: no merchant's account.
  if (!row || merchantId === PLATFORM_MERCHANT_ID) throw usageError(`no account ${accountId} under merchant ${merchantId}`, 1);
}
