// Finds the account a signed request names, with its usable secret keys, decrypted. A short-lived
// cache keeps the hot path off the database; a rotated or new key is seen within the TTL, and an
// operator's change (disable, enable, fees: announceAccountChange) empties the cache of every
// process at once, through LISTEN on the database.
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

export class AccountDirectory {
  readonly #deps: Pick<Deps, 'database' | 'vault' | 'wallClock'>;
  readonly #cache = new Map<string, { expires: number; value: Promise<SigningAccount | null> }>();

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
  lookup(merchantId: string, accountId: string): Promise<SigningAccount | null> {
    const key = `${merchantId}\u0000${accountId}`;
    const now = Date.now();
    const hit = this.#cache.get(key);
    if (hit && hit.expires > now) return hit.value;
    if (this.#cache.size >= MAX_ENTRIES) this.#cache.clear();
    const value = this.#load(merchantId, accountId);
    this.#cache.set(key, { expires: now + TTL_MS, value });
    value.catch(() => this.#cache.delete(key));
    return value;
  }

  forget(): void {
    this.#cache.clear();
  }

  async #load(merchantId: string, accountId: string): Promise<SigningAccount | null> {
    // Keys' grace periods are security timers: the wall clock's, never the test clock's.
    const found = await findAccountWithKeys(this.#deps.database.db, merchantId, accountId, this.#deps.wallClock.now());
    if (!found) return null;
    const secrets = found.keys.map((key) => this.#deps.vault.open({ ciphertext: key.secretCiphertext, keyId: key.vaultKeyId }, key.id));
    return { account: found.account, secrets, disabled: found.account.status !== 'active' || found.merchantStatus !== 'active' };
  }
}
