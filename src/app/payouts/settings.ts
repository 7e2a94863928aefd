// The operator's payout settings: the exchange-rate table (`acquiro fx set|show`) and each
// account's payout fees per source currency (`acquiro accounts payout-fees show|set|remove`).
import { eq } from 'drizzle-orm';
import { AppError } from '../../domain/errors.ts';
import { parseRate } from '../../domain/payouts/amounts.ts';
import { defaultPayoutFee, type PayoutFee, type PayoutFeeSchedule } from '../../domain/payouts/fees.ts';
import { announceAccountChange } from '../../db/repositories/accounts.ts';
import { listRates, setRate } from '../../db/repositories/fx-rates.ts';
import { accounts } from '../../db/schema.ts';
import type { Deps } from '../context.ts';

type SettingsDeps = Pick<Deps, 'database' | 'clock'>;

export interface RateView {
  readonly source_currency: string;
  readonly payment_currency: string;
  readonly rate: string;
  readonly updated_at: string;
}

export async function showRates(deps: SettingsDeps): Promise<RateView[]> {
  return (await listRates(deps.database.db)).map((r) => ({
    source_currency: r.sourceCurrency,
    payment_currency: r.paymentCurrency,
    rate: r.rate,
    updated_at: r.updatedAt.toISOString(),
  }));
}

/** Sets the rate payouts from `source` to `payment` convert at (payment units per source unit). */
export async function setFxRate(deps: SettingsDeps, source: string, payment: string, rate: string): Promise<RateView> {
  if (source === payment) throw new AppError('invalid_field', 'a rate is between two different currencies');
  if (!parseRate(rate)) throw new AppError('invalid_field', `rate ${rate} is not a positive decimal such as 0.9213`);
  const updatedAt = deps.clock.now();
  await setRate(deps.database.db, { sourceCurrency: source, paymentCurrency: payment, rate, updatedAt });
  return { source_currency: source, payment_currency: payment, rate, updated_at: updatedAt.toISOString() };
}

export interface PayoutFeesView {
  /** The account's own fees per source currency. */
  readonly currencies: PayoutFeeSchedule;
  /** What a currency without its own pays (in USD, for example): one unit + 0.50 %, SWIFT 15 units. */
  readonly default: PayoutFee;
}

export async function showPayoutFees(deps: SettingsDeps, accountId: string): Promise<PayoutFeesView> {
  const [row] = await deps.database.db.select({ payoutFees: accounts.payoutFees }).from(accounts).where(eq(accounts.id, accountId));
  return { currencies: row?.payoutFees ?? {}, default: defaultPayoutFee('USD') };
}

/** Sets (or, with `fee` null, removes) the payout fee of one source currency. */
export async function setPayoutFee(deps: SettingsDeps, accountId: string, currency: string, fee: PayoutFee | null): Promise<PayoutFeesView & { had: boolean }> {
  return deps.database.db.transaction(async (tx) => {
    const [row] = await tx.select({ payoutFees: accounts.payoutFees }).from(accounts).where(eq(accounts.id, accountId)).for('update');
    const { [currency]: previous, ...others } = row!.payoutFees;
    const payoutFees: PayoutFeeSchedule = fee ? { ...others, [currency]: fee } : others;
    // Removing a payout fee there is not changes nothing: nothing to write or announce.
    if (fee || previous) {
      await tx.update(accounts).set({ payoutFees }).where(eq(accounts.id, accountId));
      await announceAccountChange(tx);
    }
    return { currencies: payoutFees, default: defaultPayoutFee('USD'), had: previous !== undefined };
  });
}

/** `accounts payout-fees remove`: the fees left, and whether the currency had a payout fee of its own to remove. */
export async function removePayoutFee(deps: SettingsDeps, accountId: string, currency: string): Promise<PayoutFeesView & { currency: string; removed: boolean }> {
  const { had, ...view } = await setPayoutFee(deps, accountId, currency, null);
  return { currency, removed: had, ...view };
}
