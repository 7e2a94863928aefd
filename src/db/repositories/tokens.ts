import { and, eq } from 'drizzle-orm';
import type { Executor } from '../client.ts';
import { cardTokens } from '../schema.ts';

export type TokenRow = typeof cardTokens.$inferSelect;

/** A token is found only by the account that stored it. */
export async function findToken(db: Executor, accountId: string, id: string): Promise<TokenRow | null> {
  const [row] = await db.select().from(cardTokens).where(and(eq(cardTokens.accountId, accountId), eq(cardTokens.id, id)));
  return row ?? null;
}
