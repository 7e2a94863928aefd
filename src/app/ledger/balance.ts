// A merchant account's balances per currency, derived from the ledger alone.
import { formatAmount } from '../../domain/money.ts';
import { bookTotals, feesCharged } from '../../db/repositories/ledger-audit.ts';
import type { Deps } from '../context.ts';

export interface CurrencyBalance {
  readonly currency: string;
  /** What the gateway owes the merchant, not yet settled: captures less refunds and fees (merchant_balance, credit side). */
  readonly balance: string;
  /** Authorised on shoppers' cards, not yet captured or released. */
  readonly held: string;
  /** Captured money the processor still owes the gateway. */
  readonly receivable: string;
  /** Fees taken on this account's captures (booked to the platform account's fee_revenue). */
  readonly fees: string;
}

export async function accountBalances(deps: Pick<Deps, 'database'>, accountId: string): Promise<CurrencyBalance[]> {
  const totals = await bookTotals(deps.database.db, accountId);
  const fees = await feesCharged(deps.database.db, accountId);
  const currencies = [...new Set(totals.map((t) => t.currency))];
  return currencies.map((currency) => {
    const book = (name: string) => totals.find((t) => t.currency === currency && t.book === name)?.total ?? 0;
    return {
      currency,
      balance: formatAmount(-book('merchant_balance'), currency),
      held: formatAmount(book('authorised_funds'), currency),
      receivable: formatAmount(book('processor_receivable'), currency),
      fees: formatAmount(fees[currency] ?? 0, currency),
    };
  });
}
