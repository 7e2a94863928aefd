// At start in live mode: can this process read what the database holds sealed? One secret key and
// one stored card are opened with the configured vault keys; a process started with the wrong
// ACQUIRO_VAULT_KEYS stops here, saying what to do, instead of answering every request with an
// error it cannot explain.
import { ConfigError } from '../config.ts';
import type { Deps } from './context.ts';

export async function probeSealedData(deps: Pick<Deps, 'database' | 'vault'>): Promise<void> {
  const rows = await deps.database.query<{ id: string; ciphertext: string; key_id: string }>(
    `(SELECT id, secret_ciphertext AS ciphertext, vault_key_id AS key_id FROM account_keys ORDER BY created_at DESC LIMIT 1)
     UNION ALL
     (SELECT id, pan_ciphertext, vault_key_id FROM card_tokens ORDER BY created_at DESC LIMIT 1)`,
  );
  for (const row of rows) {
    try {
      deps.vault.open({ ciphertext: row.ciphertext, keyId: row.key_id }, row.id);
    } catch {
      throw new ConfigError(
        `the database holds data sealed with vault key ${row.key_id}, which ACQUIRO_VAULT_KEYS cannot open: ` +
          `start with the keys this database was sealed with in ACQUIRO_VAULT_KEYS (a new key first, the old ones after it), ` +
          `then run \`acquiro vault reseal\` to move everything to the new key`,
      );
    }
  }
}
