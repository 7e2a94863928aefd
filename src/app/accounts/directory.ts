// Finds the account a signed request names, with its usable secret keys, decrypted. A short-lived
// cache keeps the hot path off the database. Every change to an account or its keys (new account,
// rotation, revocation, disable, enable, fees, risk settings: announceAccountChange) empties the
// cache of every process: at once through LISTEN where the database offers it, and within a second
// through the version the process's heartbeat reads (noteVersion), also behind a transaction
// pooler. A rotated key whose grace period ends stops at that moment, cached or not.
import type { AccountRow } from '../../db/schema.ts';
import { ACCOUNTS_CHANNEL, findAccountWithKeys } from '../../db/repositories/accounts.ts';
import type { Deps } from '../context.ts';

export interface SigningAccount {
  readonly account: AccountRow;
  /** The current key first, then rotated keys in their grace period. */
  readonly secrets: readonly string[];
  /** The account or its merchant is disabled: its requests are refused (account_disabled). */
  readonly disabled: boolean;
}

const TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

interface Loaded {
  readonly account: AccountRow;
  readonly keys: readonly { secret: string; expiresAt: Date | null }[];
  readonly disabled: boolean;
}

export class AccountDirectory {
  readonly #deps: Pick<Deps, 'database' | 'vault' | 'wallClock'>;
  readonly #cache = new Map<string, { expires: number; value: Promise<Loaded | null> }>();
  #version: number | undefined;

  constructor(deps: Pick<Deps, 'database' | 'vault' | 'wallClock'>) {
    this.#deps = deps;
  }

  /** null for an unknown pair, a disabled account or a disabled merchant: callers answer 404 alike. */
  async find(merchantId: string, accountId: string): Promise<SigningAccount | null> {
    const found = await this.lookup(merchantId, accountId);
    return found && !found.disabled ? found : null;
  }

  /** Empties the cache whenever any process announces an account change; answers how to stop. */
  async watch(): Promise<() => Promise<void>> {
    const listen = this.#deps.database.listen;
    if (!listen) return async () => {};
    return listen(ACCOUNTS_CHANNEL, () => this.forget());
  }

  /** null for an unknown pair; a disabled account or merchant is found, marked `disabled`. */
  async lookup(merchantId: string, accountId: string): Promise<SigningAccount | null> {
    const loaded = await this.#cached(merchantId, accountId);
    if (!loaded) return null;
    const now = this.#deps.wallClock.now().getTime();
    const secrets = loaded.keys.filter((key) => key.expiresAt === null || key.expiresAt.getTime() > now).map((key) => key.secret);
    return { account: loaded.account, secrets, disabled: loaded.disabled };
  }

  forget(): void {
    this.#cache.clear();
  }

  /**
   * The account cache's version as the heartbeat read it: a new one means something changed. The
   * first one read empties the cache too: what was cached before it (requests served while the
   * first beats failed) was loaded under a version never seen, so a change committed between that
   * load and this read would otherwise live out the TTL instead of stopping within a second.
   */
  noteVersion(version: number): void {
    if (version !== this.#version) this.forget();
    this.#version = version;
  }

  #cached(merchantId: string, accountId: string): Promise<Loaded | null> {
    const key = `${merchantId}\u0000${accountId}`;
    // Wall time, not the injected clock: how long this process trusts its copy, not a business time.
    const now = performance.now();
    const hit = this.#cache.get(key);
    if (hit && hit.expires > now) return hit.value;
    if (this.#cache.size >= MAX_ENTRIES) this.#cache.clear();
    const value = this.#load(merchantId, accountId);
    this.#cache.set(key, { expires: now + TTL_MS, value });
    value.catch(() => this.#cache.delete(key));
    return value;
  }

  async #load(merchantId: string, accountId: string): Promise<Loaded | null> {
    // Keys' grace periods are security timers: the wall clock's, never the test clock's.
    const found = await findAccountWithKeys(this.#deps.database.db, merchantId, accountId, this.#deps.wallClock.now());
    if (!found) return null;
    const keys = found.keys.map((key) => ({
      secret: this.#deps.vault.open({ ciphertext: key.secretCiphertext, keyId: key.vaultKeyId }, key.id),
      expiresAt: key.expiresAt,
    }));
    return { account: found.account, keys, disabled: found.account.status !== 'active' || found.merchantStatus !== 'active' };
  }
}
