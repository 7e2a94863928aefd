// After a new vault key is put first in ACQUIRO_VAULT_KEYS, rows sealed with older keys still open
// (every configured key decrypts). Resealing moves them to the active key, so the old key can be
// removed from the configuration.
import { and, eq, ne } from 'drizzle-orm';
import { accountKeys, cardTokens } from '../db/schema.ts';
import type { Deps } from './context.ts';

export async function resealAll(deps: Pick<Deps, 'database' | 'vault'>, batch = 500): Promise<{ tokens: number; keys: number }> {
  const active = deps.vault.activeKeyId;
  let tokens = 0;
  let keys = 0;
  for (;;) {
    const rows = await deps.database.db.select().from(cardTokens).where(ne(cardTokens.vaultKeyId, active)).limit(batch);
    if (rows.length === 0) break;
    for (const row of rows) {
      const pan = deps.vault.open({ ciphertext: row.panCiphertext, keyId: row.vaultKeyId }, row.id);
      const sealed = deps.vault.seal(pan, row.id);
      await deps.database.db
        .update(cardTokens)
        .set({ panCiphertext: sealed.ciphertext, vaultKeyId: sealed.keyId })
        .where(and(eq(cardTokens.id, row.id), eq(cardTokens.vaultKeyId, row.vaultKeyId)));
      tokens += 1;
    }
  }
  for (;;) {
    const rows = await deps.database.db.select().from(accountKeys).where(ne(accountKeys.vaultKeyId, active)).limit(batch);
    if (rows.length === 0) break;
    for (const row of rows) {
      const secret = deps.vault.open({ ciphertext: row.secretCiphertext, keyId: row.vaultKeyId }, row.id);
      const sealed = deps.vault.seal(secret, row.id);
      await deps.database.db
        .update(accountKeys)
        .set({ secretCiphertext: sealed.ciphertext, vaultKeyId: sealed.keyId })
        .where(and(eq(accountKeys.id, row.id), eq(accountKeys.vaultKeyId, row.vaultKeyId)));
      keys += 1;
    }
  }
  return { tokens, keys };
}
