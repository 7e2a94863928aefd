// Whether an operator's `acquiro merchants disable` holds an account: the account itself disabled,
// or its merchant. A signed API request learns it from the account directory (directory.ts, cached
// and emptied on every change, answered 4410); what acts for a merchant without one asks here,
// from the rows, when it acts: a 3-D Secure or APM completion (src/app/payments/completion.ts),
// a portal action (src/app/portal/disabled-account.ts), a subscription's charge
// (src/app/subscriptions/bill.ts, inside the transaction that marks it sent), a payout's claim
// for the rail (src/app/payouts/rail.ts, inside the transaction before it is sent).
import type { Executor, RawQuery } from '../../db/client.ts';
import { accountStatuses } from '../../db/repositories/accounts.ts';

/** False while the account or its merchant is disabled (or the account is gone). */
export async function accountEnabled(db: Executor | RawQuery, accountId: string): Promise<boolean> {
  const statuses = await accountStatuses(db, accountId);
  return statuses?.account === 'active' && statuses.merchant === 'active';
}
