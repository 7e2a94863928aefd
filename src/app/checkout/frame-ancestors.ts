// Who may frame the hosted page: the account's declared storefront domains, as CSP host-sources.
import { domainToASCII } from 'node:url';
import type { AccountRow } from '../../db/schema.ts';
import { AppError } from '../../domain/errors.ts';

/**
 * Who may frame the shopper's pages: the account's declared storefront domains. A request's own
 * storefront_domains may narrow that list, never widen it: a domain the account did not declare
 * is refused when the request arrives (`strict`), and left out when a page is drawn later.
 */
export function frameAncestors(account: AccountRow, requested: string | undefined, strict = false): string[] {
  const declared = account.storefrontDomains.map(hostSource).filter((source): source is string => source !== undefined);
  if (!requested) return declared;
  const narrowed: string[] = [];
  for (const domain of requested.split(/[\s,]+/).filter(Boolean)) {
    const source = hostSource(domain);
    if (source && declared.includes(source)) narrowed.push(source);
    else if (strict) {
      throw new AppError('invalid_field', 'storefront_domains is invalid: expected domains declared for the account', { field: 'storefront_domains' });
    }
  }
  return narrowed;
}

const HOST_SOURCE = /^(https?:\/\/)?(\*\.)?([a-z0-9-]+\.)*[a-z0-9-]+(:[0-9]{1,5})?$/;
/** Scheme, wildcard, host and port of a site as typed, the host in any script. */
const SITE = /^(https?:\/\/)?(\*\.)?([^/:*\s]+)(:[0-9]{1,5})?$/;

/**
 * A storefront domain as a CSP host-source ("https://shop.example", "*.example.com",
 * "http://127.0.0.1:5555"), or undefined when it is not one: nothing else reaches the header.
 * An internationalised domain name ("https://例子.广告") becomes its ASCII form
 * ("https://xn--fsqu00a.xn--4rr70v"), the one browsers compare frame ancestors with.
 */
export function hostSource(domain: string): string | undefined {
  const clean = domain.trim().toLowerCase().replace(/\/+$/, '');
  if (HOST_SOURCE.test(clean)) return withinDns(clean) ? clean : undefined;
  const site = SITE.exec(clean);
  const host = site ? domainToASCII(site[3]!) : '';
  if (!site || host === '') return undefined;
  const ascii = `${site[1] ?? ''}${site[2] ?? ''}${host}${site[4] ?? ''}`;
  return HOST_SOURCE.test(ascii) && withinDns(ascii) ? ascii : undefined;
}

/** DNS's limits (RFC 1035): a host of at most 253 characters, 63 a label; no site has a longer one. */
function withinDns(source: string): boolean {
  const host = SITE.exec(source)?.[3] ?? '';
  return host.length <= 253 && host.split('.').every((label) => label.length <= 63);
}
