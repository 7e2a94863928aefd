// Merchants, accounts and their secret keys: used by the CLI and by the first start's demo.
import { randomBytes } from 'node:crypto';
import { and, asc, eq, isNotNull, isNull, ne, sql } from 'drizzle-orm';
import { AppError } from '../../domain/errors.ts';
import { PLATFORM_MERCHANT_ID } from '../../domain/ledger.ts';
import { rowsOf, type Executor } from '../../db/client.ts';
import { announceAccountChange, nextAccountId, nextMerchantId } from '../../db/repositories/accounts.ts';
import { accountKeys, accounts, merchants } from '../../db/schema.ts';
import type { Deps } from '../context.ts';

export type CaptureMode = 'auto' | 'manual';

export interface AccountSettings {
  readonly captureMode?: CaptureMode;
  readonly rateLimitPerSecond?: number;
  readonly feeBps?: number;
  readonly name?: string;
  /** The connector that processes its payments; the sandbox simulator when absent (sandbox only). */
  readonly connector?: string;
}

export interface Credentials {
  readonly merchant_id: string;
  readonly account_id: string;
  readonly secret_key: string;
}

type KeyDeps = Pick<Deps, 'vault' | 'config'>;

/** Live money never meets the sandbox simulator: a live account names a live connector. */
export function assertConnectorForMode(deps: Pick<Deps, 'config'>, connector: string): void {
  if (deps.config.mode === 'live' && connector === 'simulator') {
    throw new AppError(
      'invalid_field',
      'live mode: the sandbox simulator cannot process live payments; name the connector of your acquirer (--connector NAME), registered for live mode',
    );
  }
}

/**
 * A connector an account may be put on: one this process has registered in its mode (never the
 * simulator in live mode). Without the check, a typo in `merchants create --connector` made an
 * account whose every payment was declined 2008. `connectors` absent: only the mode is checked.
 */
export function assertConnectorUsable(deps: Pick<Deps, 'config'> & Partial<Pick<Deps, 'connectors'>>, connector: string): void {
  assertConnectorForMode(deps, connector);
  if (deps.connectors && !deps.connectors.get(connector)) {
    throw new AppError('invalid_field', `no connector ${connector} is registered in ${deps.config.mode} mode`);
  }
}

function newSecret(deps: KeyDeps): string {
  return `sk_${deps.config.mode === 'live' ? 'live' : 'test'}_${randomBytes(24).toString('base64url')}`;
}

async function addKey(tx: Executor, deps: KeyDeps, accountId: string): Promise<string> {
  const secret = newSecret(deps);
  const id = `K${accountId}_${randomBytes(6).toString('hex')}`;
  const sealed = deps.vault.seal(secret, id);
  await tx.insert(accountKeys).values({ id, accountId, secretCiphertext: sealed.ciphertext, vaultKeyId: sealed.keyId });
  return secret;
}

async function insertAccount(tx: Executor, deps: KeyDeps, merchantId: string, settings: AccountSettings): Promise<Credentials> {
  const accountId = await nextAccountId(tx);
  await tx.insert(accounts).values({
    id: accountId,
    merchantId,
    name: settings.name ?? 'default',
    captureMode: settings.captureMode ?? 'auto',
    ...(settings.connector ? { connector: settings.connector } : {}),
    ...(settings.rateLimitPerSecond ? { rateLimitPerSecond: settings.rateLimitPerSecond } : {}),
    ...(settings.feeBps !== undefined ? { feeBps: settings.feeBps } : {}),
  });
  const secret = await addKey(tx, deps, accountId);
  // A process that was asked about this pair before it existed cached "unknown": it forgets.
  await announceAccountChange(tx);
  return { merchant_id: merchantId, account_id: accountId, secret_key: secret };
}

export async function createMerchant(deps: Pick<Deps, 'database' | 'vault' | 'config'>, name: string, settings: AccountSettings = {}): Promise<Credentials> {
  return deps.database.db.transaction(async (tx) => {
    const merchantId = await nextMerchantId(tx);
    await tx.insert(merchants).values({ id: merchantId, name });
    return insertAccount(tx, deps, merchantId, settings);
  });
}

export async function createAccount(deps: Pick<Deps, 'database' | 'vault' | 'config'>, merchantId: string, settings: AccountSettings = {}): Promise<Credentials> {
  return deps.database.db.transaction(async (tx) => {
    const [merchant] = await tx.select().from(merchants).where(eq(merchants.id, merchantId));
    if (!merchant || merchantId === PLATFORM_MERCHANT_ID) throw new AppError('account_not_found', `no merchant ${merchantId}`);
    return insertAccount(tx, deps, merchantId, settings);
  });
}

/**
 * A new current key; the previous current key keeps working for the grace period, so merchants
 * can deploy the new key without a window of refused requests.
 */
export async function rotateKey(
  deps: Pick<Deps, 'database' | 'vault' | 'config' | 'wallClock'>,
  merchantId: string,
  accountId: string,
): Promise<Credentials & { previous_key_expires_at: string }> {
  return deps.database.db.transaction(async (tx) => {
    const [account] = await tx
      .select()
      .from(accounts)
      .where(and(eq(accounts.id, accountId), eq(accounts.merchantId, merchantId)))
      .for('update');
    if (!account || merchantId === PLATFORM_MERCHANT_ID) throw new AppError('account_not_found', `no account ${accountId} under merchant ${merchantId}`);
    // A security timer: the grace period runs on the wall clock, whatever the test clock says. A
    // command's wall clock is the database's (src/app/clock/database-clock.ts), not its host's.
    const expiresAt = new Date(deps.wallClock.now().getTime() + deps.config.keyGraceHours * 3_600_000);
    // Keys already in their grace period keep their own expiry; only the current key starts one.
    await tx.update(accountKeys).set({ expiresAt }).where(and(eq(accountKeys.accountId, accountId), isNull(accountKeys.expiresAt)));
    const secret = await addKey(tx, deps, accountId);
    await announceAccountChange(tx);
    return { merchant_id: merchantId, account_id: accountId, secret_key: secret, previous_key_expires_at: expiresAt.toISOString() };
  });
}

/**
 * Stops every rotated key now (a leaked key): they are deleted, so no process can take one for
 * valid whatever its clock says (a stamped expiry is judged on each gateway's clock, and one
 * stamped on a host whose clock is ahead kept the key working for as long). Only the current key
 * works, on every process within a second (announceAccountChange). Answers how many keys were
 * still in their grace period, on the caller's wall clock (a command's is the database's).
 */
export async function revokePreviousKeys(
  deps: Pick<Deps, 'database' | 'wallClock'>,
  merchantId: string,
  accountId: string,
): Promise<{ merchant_id: string; account_id: string; revoked: number }> {
  return deps.database.db.transaction(async (tx) => {
    const [account] = await tx
      .select({ id: accounts.id })
      .from(accounts)
      .where(and(eq(accounts.id, accountId), eq(accounts.merchantId, merchantId)))
      .for('update');
    if (!account || merchantId === PLATFORM_MERCHANT_ID) throw new AppError('account_not_found', `no account ${accountId} under merchant ${merchantId}`);
    const deleted = await tx
      .delete(accountKeys)
      .where(and(eq(accountKeys.accountId, accountId), isNotNull(accountKeys.expiresAt)))
      .returning({ expiresAt: accountKeys.expiresAt });
    await announceAccountChange(tx);
    const now = deps.wallClock.now().getTime();
    return { merchant_id: merchantId, account_id: accountId, revoked: deleted.filter((key) => key.expiresAt!.getTime() > now).length };
  });
}

export async function listMerchants(deps: Pick<Deps, 'database'>) {
  return deps.database.db
    .select({
      merchant_id: merchants.id,
      name: merchants.name,
      status: merchants.status,
      account_id: accounts.id,
      // The account's own: disabled alone (merchants disable --account-id) while its merchant is active.
      account_status: accounts.status,
      capture_mode: accounts.captureMode,
      connector: accounts.connector,
      created_at: merchants.createdAt,
    })
    .from(merchants)
    .leftJoin(accounts, eq(accounts.merchantId, merchants.id))
    .where(ne(merchants.id, PLATFORM_MERCHANT_ID))
    .orderBy(asc(merchants.id), asc(accounts.id));
}

export async function hasMerchants(deps: Pick<Deps, 'database'>): Promise<boolean> {
  const [row] = await rowsOf<{ present: boolean }>(deps.database.db, sql`SELECT EXISTS (SELECT 1 FROM merchants WHERE id <> ${PLATFORM_MERCHANT_ID}) AS present`);
  return Boolean(row?.present);
}

/**
 * A merchant created only on a database without merchants (the first start's demo), in one
 * transaction with that check, together with whatever `alongside` writes: two servers starting
 * at once on one PostgreSQL make one. Null when there are merchants already.
 */
export async function createFirstMerchant(
  deps: Pick<Deps, 'database' | 'vault' | 'config'>,
  name: string,
  alongside: (tx: Executor, created: Credentials) => Promise<void> = async () => {},
): Promise<Credentials | null> {
  return deps.database.db.transaction(async (tx) => {
    if (deps.database.kind === 'postgres') await tx.execute(sql`SELECT pg_advisory_xact_lock(72616302)`);
    const [row] = await rowsOf<{ present: boolean }>(tx, sql`SELECT EXISTS (SELECT 1 FROM merchants WHERE id <> ${PLATFORM_MERCHANT_ID}) AS present`);
    if (row?.present) return null;
    const merchantId = await nextMerchantId(tx);
    await tx.insert(merchants).values({ id: merchantId, name });
    const created = await insertAccount(tx, deps, merchantId, {});
    await alongside(tx, created);
    return created;
  });
}
