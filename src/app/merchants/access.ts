// Who may reach an account, as its merchant's staff set it in the portal: the addresses allowed to
// query it, the storefronts allowed to frame its hosted page, and a check of a notification URL.
// The account is always looked up under the merchant: another merchant's account is not found.
import { announceAccountChange, addStorefrontDomain, removeStorefrontDomain, storefrontDomains } from '../../db/repositories/accounts.ts';
import { merchantAccount } from '../../db/repositories/portal-transactions.ts';
import { addQueryIp, listQueryIps, removeQueryIp } from '../../db/repositories/query-ips.ts';
import { currentKey } from '../../db/repositories/notifications.ts';
import type { AccountRow } from '../../db/schema.ts';
import { AppError } from '../../domain/errors.ts';
import { normaliseCidr } from '../../domain/ip.ts';
import { sign, type SignedBody } from '../../domain/signature.ts';
import { hostSource } from '../checkout/frame-ancestors.ts';
import type { Deps } from '../context.ts';
import { checkUrl } from '../notifications/target.ts';
import { networkTransport, sendNotification, type Transport } from '../notifications/transport.ts';

async function accountOf(deps: Pick<Deps, 'database'>, merchantId: string, accountId: string): Promise<AccountRow> {
  const account = await merchantAccount(deps.database.db, merchantId, accountId);
  if (!account) throw new AppError('account_not_found', `no account ${accountId}`, { field: 'account_id' });
  return account;
}

function cidrOf(text: string): string {
  const cidr = normaliseCidr(text);
  if (!cidr) throw new AppError('invalid_field', 'cidr is invalid: expected an IP address (127.0.0.1) or a block (10.0.0.0/8)', { field: 'cidr' });
  return cidr;
}

function domainOf(text: string): string {
  const source = hostSource(text);
  if (!source) throw new AppError('invalid_field', 'domain is invalid: expected a site such as https://shop.example, shop.example or *.example.com', { field: 'domain' });
  return source;
}

export async function queryIpsOf(deps: Pick<Deps, 'database'>, merchantId: string, accountId: string): Promise<string[]> {
  await accountOf(deps, merchantId, accountId);
  return (await listQueryIps(deps.database.db, accountId)).map((row) => row.cidr);
}

/** Registers an address or block; returns it as stored. */
export async function allowQueryIp(deps: Pick<Deps, 'database'>, merchantId: string, accountId: string, text: string): Promise<string> {
  const cidr = cidrOf(text);
  await accountOf(deps, merchantId, accountId);
  await addQueryIp(deps.database.db, accountId, cidr);
  return cidr;
}

export async function forbidQueryIp(deps: Pick<Deps, 'database'>, merchantId: string, accountId: string, text: string): Promise<boolean> {
  const cidr = cidrOf(text);
  await accountOf(deps, merchantId, accountId);
  return removeQueryIp(deps.database.db, accountId, cidr);
}

export async function storefrontsOf(deps: Pick<Deps, 'database'>, merchantId: string, accountId: string): Promise<string[]> {
  await accountOf(deps, merchantId, accountId);
  return storefrontDomains(deps.database.db, accountId);
}

/** Adds or removes a site allowed to frame the hosted page; every process's account cache is told. */
export async function changeStorefront(deps: Pick<Deps, 'database'>, merchantId: string, accountId: string, change: 'add' | 'remove', text: string): Promise<string> {
  const domain = domainOf(text);
  await accountOf(deps, merchantId, accountId);
  await deps.database.db.transaction(async (tx) => {
    await (change === 'add' ? addStorefrontDomain : removeStorefrontDomain)(tx, accountId, domain);
    await announceAccountChange(tx);
  });
  return domain;
}

export type UrlCheck =
  | { readonly reached: true; readonly httpStatus: number; readonly latencyMs: number }
  | { readonly reached: false; readonly reason: string };

/**
 * Checks a notification URL as deliveries would go: the same rules (scheme, no internal
 * addresses), then one signed POST of `notify_type` `url_check` through the same transport,
 * reporting the receiver's HTTP status. Nothing is stored and no event is written.
 */
export async function checkNotifyUrl(
  deps: Pick<Deps, 'database' | 'config' | 'vault' | 'wallClock'>,
  merchantId: string,
  accountId: string,
  url: string,
  transport: Transport = networkTransport,
): Promise<UrlCheck> {
  const account = await accountOf(deps, merchantId, accountId);
  const verdict = checkUrl(deps.config.mode, url);
  if (!verdict.ok) throw new AppError('invalid_field', `notify_url is invalid: expected ${verdict.reason}`, { field: 'notify_url' });
  const key = await currentKey(deps.database.db, account.id);
  if (!key) throw new AppError('account_not_found', `no current key for account ${accountId}`, { field: 'account_id' });
  const secret = deps.vault.open({ ciphertext: key.secretCiphertext, keyId: key.vaultKeyId }, key.id);
  const body = { notify_type: 'url_check', merchant_id: merchantId, account_id: accountId, notify_time: Math.floor(deps.wallClock.now().getTime() / 1000) };
  const sent = await sendNotification(transport, deps.config.mode, url, JSON.stringify({ ...body, encryption_data: sign(body as SignedBody, secret) }));
  if (sent.kind === 'answered') return { reached: true, httpStatus: sent.answer.status, latencyMs: sent.latencyMs };
  return { reached: false, reason: sent.kind === 'refused' ? sent.shown : sent.error };
}
