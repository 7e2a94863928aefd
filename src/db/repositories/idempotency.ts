import { and, eq, lt } from 'drizzle-orm';
import type { Executor } from '../client.ts';
import { idempotencyKeys } from '../schema.ts';

/** How long a key is remembered; after that the same key is a new request. */
export const KEY_DAYS = 7;

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;

/**
 * Claims the key; null when another request holds it (the caller reads that one). `createdAt` is
 * the injected clock's time: the purge compares it with that clock, never with the database's.
 */
export async function claimKey(
  db: Executor,
  row: { accountId: string; key: string; operation: string; requestFingerprint: string; createdAt: Date },
): Promise<IdempotencyRow | null> {
  const [claimed] = await db.insert(idempotencyKeys).values(row).onConflictDoNothing().returning();
  return claimed ?? null;
}

export async function findKey(db: Executor, accountId: string, key: string): Promise<IdempotencyRow | null> {
  const [row] = await db.select().from(idempotencyKeys).where(and(eq(idempotencyKeys.accountId, accountId), eq(idempotencyKeys.key, key)));
  return row ?? null;
}

export async function completeKey(db: Executor, accountId: string, key: string, answer: { httpStatus: number; contentType: string; answer: string }): Promise<void> {
  await db.update(idempotencyKeys).set({ status: 'done', ...answer }).where(and(eq(idempotencyKeys.accountId, accountId), eq(idempotencyKeys.key, key)));
}

export async function releaseKey(db: Executor, accountId: string, key: string): Promise<void> {
  await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.accountId, accountId), eq(idempotencyKeys.key, key)));
}

export async function purgeKeysBefore(db: Executor, before: Date): Promise<number> {
  return (await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, before)).returning({ key: idempotencyKeys.key })).length;
}
