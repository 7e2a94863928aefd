// After a new vault key is put first in ACQUIRO_VAULT_KEYS, rows sealed with older keys still open
// (every configured key decrypts). Resealing moves them to the active key, so the old key can be
// removed from the configuration.
import { ne, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { accountKeys, accounts, cardTokens } from '../db/schema.ts';
import type { Deps } from './context.ts';

/** A table of sealed values: its id (the sealing context), the ciphertext and the key id. */
interface SealedColumns {
  readonly table: PgTable;
  readonly id: PgColumn;
  readonly ciphertext: PgColumn;
  readonly keyId: PgColumn;
}

const SEALED = {
  tokens: { table: cardTokens, id: cardTokens.id, ciphertext: cardTokens.panCiphertext, keyId: cardTokens.vaultKeyId },
  keys: { table: accountKeys, id: accountKeys.id, ciphertext: accountKeys.secretCiphertext, keyId: accountKeys.vaultKeyId },
  connectors: { table: accounts, id: accounts.id, ciphertext: accounts.connectorCredentials, keyId: accounts.connectorCredentialsKey },
} satisfies Record<string, SealedColumns>;

async function reseal(deps: Pick<Deps, 'database' | 'vault'>, sealed: SealedColumns, batch: number): Promise<number> {
  const db = deps.database.db;
  let done = 0;
  for (;;) {
    const rows = (await db
      .select({ id: sealed.id, ciphertext: sealed.ciphertext, keyId: sealed.keyId })
      .from(sealed.table)
      .where(ne(sealed.keyId, deps.vault.activeKeyId))
      .limit(batch)) as { id: string; ciphertext: string; keyId: string }[];
    if (rows.length === 0) return done;
    for (const row of rows) {
      const fresh = deps.vault.seal(deps.vault.open(row, row.id), row.id);
      // Only if no one resealed it meanwhile.
      await db.execute(
        sql`UPDATE ${sealed.table} SET ${sql.identifier(sealed.ciphertext.name)} = ${fresh.ciphertext}, ${sql.identifier(sealed.keyId.name)} = ${fresh.keyId}
            WHERE ${sealed.id} = ${row.id} AND ${sealed.keyId} = ${row.keyId}`,
      );
      done += 1;
    }
  }
}

/** The key ids of sealed rows this vault cannot open (none: a reseal can move everything). */
export async function unopenedKeyIds(deps: Pick<Deps, 'database' | 'vault'>): Promise<string[]> {
  const rows = await deps.database.query<{ key_id: string }>(
    `SELECT vault_key_id AS key_id FROM card_tokens UNION SELECT vault_key_id FROM account_keys
     UNION SELECT connector_credentials_key FROM accounts WHERE connector_credentials_key IS NOT NULL`,
  );
  return rows.map((row) => row.key_id).filter((id) => !deps.vault.opens(id)).sort();
}

export async function resealAll(deps: Pick<Deps, 'database' | 'vault'>, batch = 500): Promise<{ tokens: number; keys: number; connectors: number }> {
  return {
    tokens: await reseal(deps, SEALED.tokens, batch),
    keys: await reseal(deps, SEALED.keys, batch),
    connectors: await reseal(deps, SEALED.connectors, batch),
  };
}
