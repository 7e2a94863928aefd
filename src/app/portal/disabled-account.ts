// The API refuses every request of a disabled account (4410, `acquiro merchants disable`) before
// it looks anything up; staff acting on that account from the portal are refused the same, or the
// portal would be a door the operator left open. Audited as refused, like any PortalRefusal.
import { codeText } from '../../domain/errors.ts';
import { merchantAccount } from '../../db/repositories/portal-transactions.ts';
import { accountEnabled } from '../accounts/enabled.ts';
import type { Deps } from '../context.ts';
import { PortalRefusal } from './refusal.ts';

/**
 * Refuses (403 `4410`) an action on the member's merchant's account while it or the merchant is
 * disabled. Another merchant's account, or none, passes: the action's own lookup answers it not
 * found, as it always has, so the refusal says nothing about accounts that are not the member's.
 */
export async function refuseDisabledAccount(deps: Pick<Deps, 'database'>, merchantId: string, accountId: string): Promise<void> {
  const account = await merchantAccount(deps.database.db, merchantId, accountId);
  if (account && !(await accountEnabled(deps.database.db, account.id))) throw new PortalRefusal(codeText('account_disabled'), { status: 403 });
}
