import { and, eq } from 'drizzle-orm';
import type { Executor } from '../client.ts';
import { cardTokens } from '../schema.ts';

export type TokenRow = typeof cardTokens.$inferSelect;

/** A token is found only by the account that stored it. */
export async function findToken(db: Executor, accountId: string, id: string): Promise<TokenRow | null> {
  const [row] = await db.select().from(cardTokens).where(and(eq(cardTokens.accountId, accountId), eq(cardTokens.id, id)));
  return row ?? null;
}

export interface SealedCardToken {
  readonly id: string;
  readonly ciphertext: string;
  readonly vaultKeyId: string;
  readonly brand: string;
  readonly bin: string;
  readonly last4: string;
  readonly length: number;
  readonly expiryMonth: number;
  readonly expiryYear: number;
  readonly fingerprint: string;
}

/** Stores a card the vault has sealed, in the caller's transaction. */
export async function insertCardToken(tx: Executor, accountId: string, token: SealedCardToken): Promise<void> {
  const { ciphertext, length, ...rest } = token;
  await tx.insert(cardTokens).values({ ...rest, accountId, panCiphertext: ciphertext, panLength: length });
}

/** Removes a stored card of the account, in the caller's transaction. */
export async function deleteCardToken(tx: Executor, accountId: string, id: string): Promise<void> {
  await tx.delete(cardTokens).where(and(eq(cardTokens.accountId, accountId), eq(cardTokens.id, id)));
}
