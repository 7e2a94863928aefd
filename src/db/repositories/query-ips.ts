// The addresses allowed to call the read operations (query, refund search) for an account.
import type { Executor } from '../client.ts';
import { accountIps } from '../schema.ts';

/** Registers `cidr` (normalised by the caller); registering it twice changes nothing. */
export async function addQueryIp(db: Executor, accountId: string, cidr: string): Promise<void> {
  await db.insert(accountIps).values({ accountId, cidr }).onConflictDoNothing();
}
