// The addresses allowed to call the read operations (query, refund search) for an account.
import { and, asc, eq, inArray } from 'drizzle-orm';
import { storedForms } from '../../domain/ip.ts';
import type { Executor } from '../client.ts';
import { accountIps } from '../schema.ts';

/** Registers `cidr` (normalised by the caller); registering it twice changes nothing. */
export async function addQueryIp(db: Executor, accountId: string, cidr: string): Promise<void> {
  await db.insert(accountIps).values({ accountId, cidr }).onConflictDoNothing();
}

/**
 * Whether the block `cidr` (normalised by the caller) was registered, in any form it was stored in
 * (storedForms in src/domain/ip.ts), and now is not.
 */
export async function removeQueryIp(db: Executor, accountId: string, cidr: string): Promise<boolean> {
  const rows = await db.select({ cidr: accountIps.cidr }).from(accountIps).where(eq(accountIps.accountId, accountId));
  const forms = storedForms(cidr, rows.map((row) => row.cidr));
  if (forms.length === 0) return false;
  const removed = await db.delete(accountIps).where(and(eq(accountIps.accountId, accountId), inArray(accountIps.cidr, forms))).returning();
  return removed.length > 0;
}

export function listQueryIps(db: Executor, accountId: string): Promise<{ cidr: string; created_at: Date }[]> {
  return db.select({ cidr: accountIps.cidr, created_at: accountIps.createdAt }).from(accountIps).where(eq(accountIps.accountId, accountId)).orderBy(asc(accountIps.cidr));
}
