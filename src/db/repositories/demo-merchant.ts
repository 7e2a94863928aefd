// The demo merchant a sandbox's first start creates: the oldest merchant of that name, and its
// first account.
import { asc, eq } from 'drizzle-orm';
import type { Executor } from '../client.ts';
import { accounts, merchants } from '../schema.ts';

export async function findMerchantAccountByName(db: Executor, name: string): Promise<{ merchantId: string; accountId: string } | null> {
  const [row] = await db
    .select({ merchantId: merchants.id, accountId: accounts.id })
    .from(merchants)
    .innerJoin(accounts, eq(accounts.merchantId, merchants.id))
    .where(eq(merchants.name, name))
    .orderBy(asc(merchants.createdAt), asc(merchants.id), asc(accounts.createdAt), asc(accounts.id))
    .limit(1);
  return row ?? null;
}
