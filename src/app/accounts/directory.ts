// Finds the account a signed request names, with its usable secret keys, decrypted. A short-lived
// cache keeps the hot path off the database; a rotated or new key is seen within the TTL.
import type { AccountRow } from '../../db/schema.ts';
import { findAccountWithKeys } from '../../db/repositories/accounts.ts';
import type { Deps } from '../context.ts';

export interface SigningAccount {
  readonly account: AccountRow;
  /** The current key first, then rotated keys in their grace period. */
  readonly secrets: readonly string[];
}

const TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

export class AccountDirectory {
  readonly #deps: Pick<Deps, 'database' | 'vault' | 'clock'>;
  readonly #cache = new Map<string, { expires: number; value: Promise<SigningAccount | null> }>();

  constructor(deps: Pick<Deps, 'database' | 'vault' | 'clock'>) {
    this.#deps = deps;
  }

  /** null for an unknown pair, a disabled account or a disabled merchant: callers answer 404 alike. */
  find(merchantId: string, accountId: string): Promise<SigningAccount | null> {
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
    const found = await findAccountWithKeys(this.#deps.database.db, merchantId, accountId, this.#deps.clock.now());
    if (!found || found.account.status !== 'active' || found.merchantStatus !== 'active') return null;
    const secrets = found.keys.map((key) => this.#deps.vault.open({ ciphertext: key.secretCiphertext, keyId: key.vaultKeyId }, key.id));
    return { account: found.account, secrets };
  }
}
