// `acquiro balance show|topup`: an account's balances per currency, and sandbox funding.
import { AppError } from '../../domain/errors.ts';
import { topupEntries } from '../../domain/ledger.ts';
import { newId } from '../../domain/ids.ts';
import { formatAmount } from '../../domain/money.ts';
import { balancesOf, creditAvailable, lockBalance } from '../../db/repositories/balances.ts';
import { writeJournal } from '../../db/repositories/ledger.ts';
import type { Deps } from '../context.ts';

/** As `acquiro balance show --json` prints it: decimal strings in the currency's minor units. */
export interface BalanceView {
  readonly currency: string;
  readonly available: string;
  readonly pending: string;
  readonly reserved: string;
}

export async function showBalances(deps: Pick<Deps, 'database'>, accountId: string): Promise<BalanceView[]> {
  const rows = await balancesOf(deps.database.query, accountId);
  return rows.map((r) => ({
    currency: r.currency,
    available: formatAmount(r.available, r.currency),
    pending: formatAmount(r.pending, r.currency),
    reserved: formatAmount(r.reserved, r.currency),
  }));
}

/** Credits the available balance with sandbox money; refused in live mode, where money comes only from settlements. */
export async function topUp(deps: Pick<Deps, 'database' | 'config' | 'clock'>, accountId: string, currency: string, amount: number): Promise<BalanceView> {
  if (deps.config.mode === 'live') throw new AppError('invalid_field', 'balance topup is for the sandbox only: in live mode money reaches a balance only by settlement');
  const key = newId('TU');
  await deps.database.transaction(async (query) => {
    await lockBalance(query, accountId, currency);
    await writeJournal(query, { key, accountId, currency, kind: 'topup', referenceId: key, entries: topupEntries(amount), at: deps.clock.now() });
    await creditAvailable(query, accountId, currency, amount);
  });
  const shown = (await showBalances(deps, accountId)).find((b) => b.currency === currency);
  return shown!;
}
