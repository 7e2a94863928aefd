// The sandbox's demo merchant: created on the first start of an empty database, so that a first
// payment and a first query work from this machine with nothing else to set up (its query IPs
// are the loopback addresses). `acquiro demo` prints its credentials again.
import { findAccountWithKeys, accountIpList } from '../../db/repositories/accounts.ts';
import { findMerchantAccountByName } from '../../db/repositories/demo-merchant.ts';
import { addQueryIp } from '../../db/repositories/query-ips.ts';
import type { Deps } from '../context.ts';
import { createFirstMerchant, createMerchant, type Credentials } from './credentials.ts';

export const DEMO_MERCHANT_NAME = 'Demo merchant';
export const DEMO_QUERY_IPS = ['127.0.0.1/32', '::1/128'] as const;

export interface DemoCredentials extends Credentials {
  readonly query_ips: readonly string[];
}

type DemoDeps = Pick<Deps, 'database' | 'vault' | 'config' | 'clock' | 'wallClock'>;

export async function createDemoMerchant(deps: DemoDeps): Promise<DemoCredentials> {
  const created = await createMerchant(deps, DEMO_MERCHANT_NAME);
  for (const cidr of DEMO_QUERY_IPS) await addQueryIp(deps.database.db, created.account_id, cidr);
  return { ...created, query_ips: [...DEMO_QUERY_IPS] };
}

/**
 * The first start's demo merchant, on an empty database only: made in one transaction with that
 * check and its query IPs. Null when the database has merchants.
 */
export async function createDemoMerchantIfEmpty(deps: DemoDeps): Promise<DemoCredentials | null> {
  const created = await createFirstMerchant(deps, DEMO_MERCHANT_NAME, async (tx, credentials) => {
    for (const cidr of DEMO_QUERY_IPS) await addQueryIp(tx, credentials.account_id, cidr);
  });
  return created ? { ...created, query_ips: [...DEMO_QUERY_IPS] } : null;
}

/** The demo merchant's credentials with its current key, or null when there is none. */
export async function findDemoMerchant(deps: DemoDeps): Promise<DemoCredentials | null> {
  const db = deps.database.db;
  const demo = await findMerchantAccountByName(db, DEMO_MERCHANT_NAME);
  if (!demo) return null;
  const found = await findAccountWithKeys(db, demo.merchantId, demo.accountId, deps.wallClock.now());
  const key = found?.keys[0];
  if (!key) return null;
  return {
    merchant_id: demo.merchantId,
    account_id: demo.accountId,
    secret_key: deps.vault.open({ ciphertext: key.secretCiphertext, keyId: key.vaultKeyId }, key.id),
    query_ips: await accountIpList(db, demo.accountId),
  };
}
