// What operators change on a live merchant: disable or re-enable it (or one account), the fees
// per currency, and an account's rate limit and capture mode. Each change is announced
// (announceAccountChange), so every process's account directory drops its cache at once: a
// disabled merchant's next request is refused, and its staff's portal sessions end; a lowered
// rate limit holds from the next request, a new capture mode from the next authorisation.
import { and, eq } from 'drizzle-orm';
import { AppError } from '../../domain/errors.ts';
import { PLATFORM_MERCHANT_ID, type CurrencyFee, type FeeSchedule } from '../../domain/ledger.ts';
import { announceAccountChange } from '../../db/repositories/accounts.ts';
import { deleteSessionsOfMerchant } from '../../db/repositories/portal-sessions.ts';
import { accounts, merchants } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import type { CaptureMode } from './credentials.ts';
import { operatorAccount } from '../accounts/of-merchant.ts';

type Db = Pick<Deps, 'database'>;
export type Status = 'active' | 'disabled';

/** Sets a merchant's status, or one account's when `accountId` is given. */
export async function setStatus(deps: Db, merchantId: string, accountId: string | undefined, status: Status): Promise<{ merchant_id: string; account_id?: string; status: Status }> {
  if (merchantId === PLATFORM_MERCHANT_ID) throw new AppError('account_not_found', `no merchant ${merchantId}`);
  return deps.database.db.transaction(async (tx) => {
    if (accountId) {
      const changed = await tx
        .update(accounts)
        .set({ status })
        .where(and(eq(accounts.id, accountId), eq(accounts.merchantId, merchantId)))
        .returning({ id: accounts.id });
      if (changed.length === 0) throw new AppError('account_not_found', `no account ${accountId} under merchant ${merchantId}`);
    } else {
      const changed = await tx.update(merchants).set({ status }).where(eq(merchants.id, merchantId)).returning({ id: merchants.id });
      if (changed.length === 0) throw new AppError('account_not_found', `no merchant ${merchantId}`);
      // Its staff's portal sessions end now, with the disable: one left idle meanwhile would
      // otherwise come back when the merchant is enabled again (a session found while the merchant
      // is disabled ends at that request, src/app/portal/sessions.ts).
      if (status === 'disabled') await deleteSessionsOfMerchant(tx, merchantId);
    }
    await announceAccountChange(tx);
    return { merchant_id: merchantId, ...(accountId ? { account_id: accountId } : {}), status };
  });
}

const accountOf = (deps: Db, merchantId: string, accountId: string) => operatorAccount(deps.database.db, merchantId, accountId);

export interface FeesView {
  /** Basis points charged in a currency without a fee of its own. */
  readonly default_bps: number;
  readonly currencies: FeeSchedule;
}

export async function showFees(deps: Db, merchantId: string, accountId: string): Promise<FeesView> {
  const row = await accountOf(deps, merchantId, accountId);
  return { default_bps: row.feeBps, currencies: row.fees };
}

/** Sets (or, with `fee` null, removes) the fee of one currency. */
export async function setCurrencyFee(deps: Db, merchantId: string, accountId: string, currency: string, fee: CurrencyFee | null): Promise<FeesView & { had: boolean }> {
  await accountOf(deps, merchantId, accountId);
  return deps.database.db.transaction(async (tx) => {
    const [row] = await tx.select({ fees: accounts.fees, feeBps: accounts.feeBps }).from(accounts).where(eq(accounts.id, accountId)).for('update');
    const { [currency]: previous, ...others } = row!.fees;
    const fees: FeeSchedule = fee ? { ...others, [currency]: fee } : others;
    // Removing a fee there is not changes nothing: nothing to write or announce.
    if (fee || previous) {
      await tx.update(accounts).set({ fees }).where(eq(accounts.id, accountId));
      await announceAccountChange(tx);
    }
    return { default_bps: row!.feeBps, currencies: fees, had: previous !== undefined };
  });
}

/** `accounts fees remove`: the fees left, and whether the currency had a fee of its own to remove. */
export async function removeCurrencyFee(deps: Db, merchantId: string, accountId: string, currency: string): Promise<FeesView & { currency: string; removed: boolean }> {
  const { had, ...view } = await setCurrencyFee(deps, merchantId, accountId, currency, null);
  return { currency, removed: had, ...view };
}

export interface AccountSettingsView {
  readonly account_id: string;
  readonly capture_mode: CaptureMode;
  /** Requests per second; null: the gateway's default (ACQUIRO_RATE_LIMIT). */
  readonly rate_limit_per_second: number | null;
}

export interface AccountSettingsChange {
  readonly captureMode?: CaptureMode;
  /** null: back to the gateway's default. */
  readonly rateLimitPerSecond?: number | null;
}

const settingsView = (row: { id: string; captureMode: CaptureMode; rateLimitPerSecond: number | null }): AccountSettingsView => ({
  account_id: row.id,
  capture_mode: row.captureMode,
  rate_limit_per_second: row.rateLimitPerSecond,
});

export async function showAccountSettings(deps: Db, merchantId: string, accountId: string): Promise<AccountSettingsView> {
  return settingsView(await accountOf(deps, merchantId, accountId));
}

/** Sets what `change` names, leaving the rest; every process applies it from its next request. */
export async function setAccountSettings(deps: Db, merchantId: string, accountId: string, change: AccountSettingsChange): Promise<AccountSettingsView> {
  const current = await accountOf(deps, merchantId, accountId);
  if (change.captureMode === undefined && change.rateLimitPerSecond === undefined) return settingsView(current);
  return deps.database.db.transaction(async (tx) => {
    const [row] = await tx
      .update(accounts)
      .set({
        ...(change.captureMode ? { captureMode: change.captureMode } : {}),
        ...(change.rateLimitPerSecond !== undefined ? { rateLimitPerSecond: change.rateLimitPerSecond } : {}),
      })
      .where(and(eq(accounts.id, accountId), eq(accounts.merchantId, merchantId)))
      .returning();
    await announceAccountChange(tx);
    return settingsView(row!);
  });
}
