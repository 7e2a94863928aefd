// The account an operator's command names (fees, connector, risk settings, subscriptions and
// dunning, and what src/cli/account.ts checks), read and checked to be that merchant's before
// anything is read or changed. The ledger's own books (fees earned) sit under the `platform`
// merchant: no merchant's account, refused as an unknown one.
import { AppError } from '../../domain/errors.ts';
import { PLATFORM_MERCHANT_ID } from '../../domain/ledger.ts';
import type { Executor } from '../../db/client.ts';
import { merchantAccount } from '../../db/repositories/portal-transactions.ts';
import type { AccountRow } from '../../db/schema.ts';

export async function operatorAccount(db: Executor, merchantId: string, accountId: string): Promise<AccountRow> {
  const row = merchantId === PLATFORM_MERCHANT_ID ? undefined : await merchantAccount(db, merchantId, accountId);
  if (!row) throw new AppError('account_not_found', `no account ${accountId} under merchant ${merchantId}`);
  return row;
}
