// What staff see of their merchant's money: balances per account and currency (pending from the
// ledger, available and reserved from account_balances, as `acquiro balance show`), the
// settlement report per day (captured, refunded, fees, net) and the activity behind the charts.
import { balancesOf } from '../../db/repositories/balances.ts';
import { merchantAccounts } from '../../db/repositories/portal-transactions.ts';
import { activityDays, declineReasons, settlementDays, type ActivityDayRow, type DeclineReasonRow, type Window } from '../../db/repositories/portal-reports.ts';
import type { Deps } from '../context.ts';
import { PortalRefusal } from './refusal.ts';

export type { ActivityDayRow, DeclineReasonRow, Window } from '../../db/repositories/portal-reports.ts';

/** A report covers at most this many days. */
export const MAX_REPORT_DAYS = 366;
export const DEFAULT_REPORT_DAYS = 30;

export interface AccountBalances {
  readonly accountId: string;
  readonly name: string;
  /** Minor units per currency. */
  readonly balances: readonly { readonly currency: string; readonly pending: number; readonly available: number; readonly reserved: number }[];
}

export async function merchantBalances(deps: Pick<Deps, 'database'>, merchantId: string): Promise<AccountBalances[]> {
  const accounts = await merchantAccounts(deps.database.db, merchantId);
  return Promise.all(
    accounts.map(async (account) => ({
      accountId: account.id,
      name: account.name,
      balances: (await balancesOf(deps.database.query, account.id)).map((b) => ({ currency: b.currency, pending: b.pending, available: b.available, reserved: b.reserved })),
    })),
  );
}

export interface SettlementDay {
  readonly day: string;
  readonly currency: string;
  readonly captured: number;
  readonly refunded: number;
  readonly fees: number;
  /** Captured less refunded and fees: what the day adds to the merchant's balance. */
  readonly net: number;
}

function checkWindow(window: Window): void {
  if (window.before.getTime() - window.from.getTime() > MAX_REPORT_DAYS * 86_400_000) throw new PortalRefusal(`from is invalid: a period covers at most ${MAX_REPORT_DAYS} days`, { field: 'from' });
}

export async function settlementReport(deps: Pick<Deps, 'database'>, window: Window): Promise<SettlementDay[]> {
  checkWindow(window);
  const rows = await settlementDays(deps.database.db, window);
  return rows.map((r) => ({ ...r, net: r.captured - r.refunded - r.fees }));
}

export interface Activity {
  readonly days: readonly ActivityDayRow[];
  readonly declineReasons: readonly DeclineReasonRow[];
}

export async function merchantActivity(deps: Pick<Deps, 'database'>, window: Window): Promise<Activity> {
  checkWindow(window);
  const [days, reasons] = await Promise.all([activityDays(deps.database.db, window), declineReasons(deps.database.db, window)]);
  return { days, declineReasons: reasons };
}
