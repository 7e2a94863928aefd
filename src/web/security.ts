// The headers every shopper-facing page carries: a strict Content-Security-Policy that names each
// script and stylesheet the page loads (no inline script or style at all), who may frame the
// page (the account's storefront domains, or nobody), and where its forms may lead.
import { assetSource, type AssetName } from './assets.ts';

export interface PagePolicy {
  readonly baseUrl: string;
  readonly scripts: readonly AssetName[];
  /** Stylesheets the page loads; pages.css when absent. */
  readonly styles?: readonly AssetName[];
  /** CSP host-sources allowed to frame the page; empty: nobody may. */
  readonly frameAncestors: readonly string[];
  /** Origins besides the gateway that the page's forms may post to or be redirected to after posting. */
  readonly formTargets: readonly string[];
}

export function pageHeaders(policy: PagePolicy): Record<string, string> {
  const origin = new URL(policy.baseUrl).origin;
  const scripts = policy.scripts.map((name) => assetSource(policy.baseUrl, name));
  const csp = [
    "default-src 'none'",
    `script-src ${scripts.length > 0 ? scripts.join(' ') : "'none'"}`,
    `style-src ${(policy.styles ?? ['pages.css']).map((name) => assetSource(policy.baseUrl, name)).join(' ')}`,
    `img-src ${origin} data:`,
    `form-action ${[origin, ...new Set(policy.formTargets)].join(' ')}`,
    `frame-ancestors ${policy.frameAncestors.length > 0 ? policy.frameAncestors.join(' ') : "'none'"}`,
    "base-uri 'none'",
  ].join('; ');
  return {
    'content-security-policy': csp,
    // Browsers without frame-ancestors: X-Frame-Options cannot list several origins, so only DENY.
    ...(policy.frameAncestors.length === 0 ? { 'x-frame-options': 'DENY' } : {}),
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    'content-type': 'text/html; charset=utf-8',
  };
}

/** The origin of an http(s) URL, for form-action. */
export function originOf(url: string | undefined): string[] {
  if (!url) return [];
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? [parsed.origin] : [];
  } catch {
    return [];
  }
}

/**
 * Whether a form post comes from another site: the browser says so (Sec-Fetch-Site), or names an
 * Origin other than the gateway's. Our pages' no-referrer policy makes browsers send `Origin: null`
 * for their own forms, so `null` says nothing; a post without these headers (not a browser, or an
 * old one) is judged by the session token it must carry.
 */
export function isCrossSite(headers: Readonly<Record<string, string | string[] | undefined>>, baseUrl: string): boolean {
  const site = headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') return true;
  const origin = headers.origin;
  return typeof origin === 'string' && origin !== 'null' && origin !== new URL(baseUrl).origin;
}
