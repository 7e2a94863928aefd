// Secrets at rest: AES-256-GCM with the key id stored beside each ciphertext, so keys can rotate
// (the first configured key encrypts, any configured key decrypts). The associated data binds a
// ciphertext to its row, so one row's ciphertext cannot be pasted into another.
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { Config, VaultKey } from '../config.ts';

/** Used only in sandbox mode when no key is configured; documented as not secret. */
const SANDBOX_KEY: VaultKey = { id: 'sandbox', key: createHash('sha256').update('acquiro sandbox vault key: not secret').digest() };

export interface Sealed {
  readonly ciphertext: string;
  readonly keyId: string;
}

export class Vault {
  readonly #keys: ReadonlyMap<string, Buffer>;
  readonly #active: VaultKey;
  readonly #fingerprintKey: Buffer;
  readonly #macKeys = new Map<string, Buffer>();

  /** `alsoOpens`: keys that open what they sealed but seal nothing (after `keys`; an id of `keys` wins). */
  constructor(keys: readonly VaultKey[], fingerprintKey?: Buffer, alsoOpens: readonly VaultKey[] = []) {
    const usable = keys.length > 0 ? keys : [SANDBOX_KEY];
    this.#active = usable[0]!;
    this.#keys = new Map([...alsoOpens, ...usable].map((k) => [k.id, k.key]));
    this.#fingerprintKey =
      fingerprintKey ?? Buffer.from(hkdfSync('sha256', this.#active.key, Buffer.alloc(0), 'acquiro fingerprint', 32));
  }

  /**
   * In sandbox mode the built-in key still opens what it sealed once ACQUIRO_VAULT_KEYS is set, so
   * a sandbox database moves to keys of its own (`acquiro vault reseal`): its bytes are nowhere an
   * operator could copy them from to list it. Never in live mode: it is not secret.
   */
  static fromConfig(config: Pick<Config, 'vaultKeys' | 'fingerprintKey' | 'mode'>): Vault {
    return new Vault(config.vaultKeys, config.fingerprintKey, config.mode === 'sandbox' ? [SANDBOX_KEY] : []);
  }

  get activeKeyId(): string {
    return this.#active.id;
  }

  /** The fingerprint key in use (ACQUIRO_FINGERPRINT_KEY's, or the one derived from the first vault key), base64. */
  get fingerprintKeyText(): string {
    return this.#fingerprintKey.toString('base64');
  }

  /** Whether a row sealed with this key id can be opened. */
  opens(keyId: string): boolean {
    return this.#keys.has(keyId);
  }

  seal(plaintext: string, context: string): Sealed {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#active.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const ciphertext = [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.');
    return { ciphertext, keyId: this.#active.id };
  }

  open(sealed: Sealed, context: string): string {
    const key = this.#keys.get(sealed.keyId);
    if (!key) throw new Error(`vault key ${sealed.keyId} is not configured`);
    const [iv, tag, body] = sealed.ciphertext.split('.').map((part) => Buffer.from(part, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', key, iv!);
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tag!);
    return Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8');
  }

  /** A keyed, stable digest for matching equal values (same card, same request) without storing them. */
  fingerprint(value: string): string {
    return createHmac('sha256', this.#fingerprintKey).update(value, 'utf8').digest('base64url');
  }

  /**
   * A MAC for values the gateway hands out and later checks itself (the hosted page's signInfo),
   * keyed per purpose from the fingerprint key, so a MAC made for one purpose never passes for another.
   */
  mac(purpose: string, message: string): string {
    let key = this.#macKeys.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.#fingerprintKey, Buffer.alloc(0), `acquiro mac ${purpose}`, 32));
      this.#macKeys.set(purpose, key);
    }
    return createHmac('sha256', key).update(message, 'utf8').digest('base64url');
  }
}
