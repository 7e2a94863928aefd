import { and, asc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { rowsOf, type Executor, type RawQuery } from '../client.ts';
import { notifyingSchema } from '../notify.ts';
import { accountIps, accountKeys, accounts, merchants, type AccountRow } from '../schema.ts';

export interface AccountWithKeys {
  readonly account: AccountRow;
  readonly merchantStatus: 'active' | 'disabled';
  /** Usable keys: the current one first, then rotated ones still in their grace period. */
  readonly keys: readonly { id: string; secretCiphertext: string; vaultKeyId: string; expiresAt: Date | null }[];
}

export async function findAccountWithKeys(db: Executor, merchantId: string, accountId: string, now: Date): Promise<AccountWithKeys | null> {
  const [row] = await db
    .select({ account: accounts, merchantStatus: merchants.status })
    .from(accounts)
    .innerJoin(merchants, eq(merchants.id, accounts.merchantId))
    .where(and(eq(accounts.id, accountId), eq(accounts.merchantId, merchantId)));
  if (!row) return null;
  const keys = await db
    .select({ id: accountKeys.id, secretCiphertext: accountKeys.secretCiphertext, vaultKeyId: accountKeys.vaultKeyId, expiresAt: accountKeys.expiresAt })
    .from(accountKeys)
    .where(and(eq(accountKeys.accountId, accountId), or(isNull(accountKeys.expiresAt), gt(accountKeys.expiresAt, now))))
    .orderBy(sql`${accountKeys.expiresAt} IS NOT NULL`, asc(accountKeys.createdAt));
  return { account: row.account, merchantStatus: row.merchantStatus, keys };
}

export async function nextMerchantId(db: Executor): Promise<string> {
  const [row] = await rowsOf<{ n: string }>(db, sql`SELECT nextval('merchant_number')::text AS n`);
  return `M${row!.n}`;
}

export async function nextAccountId(db: Executor): Promise<string> {
  const [row] = await rowsOf<{ n: string }>(db, sql`SELECT nextval('account_number')::text AS n`);
  return `A${row!.n}`;
}

export async function accountIpList(db: Executor, accountId: string): Promise<string[]> {
  const rows = await db.select({ cidr: accountIps.cidr }).from(accountIps).where(eq(accountIps.accountId, accountId)).orderBy(asc(accountIps.cidr));
  return rows.map((row) => row.cidr);
}

/** Every process's account directory forgets what it cached (LISTEN acquiro_accounts). */
export const ACCOUNTS_CHANNEL = 'acquiro_accounts';

/**
 * Tells every process, when the caller's transaction commits, that an account or its keys
 * changed: NOTIFY for the processes that listen, and the version row (cache_versions) for those
 * that cannot (behind a transaction pooler) and read it once a second.
 */
export async function announceAccountChange(db: Executor): Promise<void> {
  await db.execute(
    sql`WITH bumped AS (UPDATE cache_versions SET version = version + 1 WHERE name = 'accounts' RETURNING version)
        SELECT pg_notify(${ACCOUNTS_CHANNEL}, ${sql.raw(notifyingSchema('version::text'))}) FROM bumped`,
  );
}

/** Adds a storefront domain (a CSP host-source, checked by the caller) to the account's list, kept sorted and without repeats. */
export async function addStorefrontDomain(db: Executor, accountId: string, domain: string): Promise<void> {
  await db
    .update(accounts)
    .set({ storefrontDomains: sql`(SELECT array_agg(DISTINCT d ORDER BY d) FROM unnest(array_append(${accounts.storefrontDomains}, ${domain}::text)) AS d)` })
    .where(eq(accounts.id, accountId));
}

export async function removeStorefrontDomain(db: Executor, accountId: string, domain: string): Promise<void> {
  await db
    .update(accounts)
    .set({ storefrontDomains: sql`array_remove(${accounts.storefrontDomains}, ${domain}::text)` })
    .where(eq(accounts.id, accountId));
}

export async function storefrontDomains(db: Executor, accountId: string): Promise<string[]> {
  const [row] = await db.select({ domains: accounts.storefrontDomains }).from(accounts).where(eq(accounts.id, accountId));
  return row?.domains ?? [];
}

/**
 * False for a merchant disabled by an operator (or gone): its members neither sign in nor keep a
 * session (an account's own status and its merchant's together: accountStatuses).
 */
export async function merchantActive(db: Executor, merchantId: string): Promise<boolean> {
  const [row] = await db.select({ status: merchants.status }).from(merchants).where(eq(merchants.id, merchantId));
  return row?.status === 'active';
}

export interface AccountStatuses {
  readonly account: 'active' | 'disabled';
  readonly merchant: 'active' | 'disabled';
}

// The raw unit of work's form (a payout's claim for the rail, src/app/payouts/rail.ts).
const ACCOUNT_STATUSES_SQL = `SELECT a.status AS account, m.status AS merchant
  FROM accounts a JOIN merchants m ON m.id = a.merchant_id WHERE a.id = $1 FOR SHARE OF a, m`;

/**
 * What `acquiro merchants disable` set on an account and on its merchant; null for no such account.
 * The rows are locked for share: inside a transaction, a disable or enable (an update of either
 * row) waits for it to end, so what the caller decided on these statuses commits before the
 * operator's change does (a subscription charge's sent mark, src/app/subscriptions/bill.ts; a
 * payout's claim for the rail, src/app/payouts/rail.ts). Takes a Drizzle executor or a raw
 * transaction's query.
 */
export async function accountStatuses(db: Executor | RawQuery, accountId: string): Promise<AccountStatuses | null> {
  if (typeof db === 'function') {
    const [raw] = await db<AccountStatuses>(ACCOUNT_STATUSES_SQL, [accountId], 'account_statuses');
    return raw ?? null;
  }
  const [row] = await db
    .select({ account: accounts.status, merchant: merchants.status })
    .from(accounts)
    .innerJoin(merchants, eq(merchants.id, accounts.merchantId))
    .where(eq(accounts.id, accountId))
    .for('share', { of: [accounts, merchants] });
  return row ?? null;
}
