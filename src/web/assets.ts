// The pages' scripts and stylesheet, served from our own origin (/assets/…). Read once at start;
// each URL carries a digest of the file, so a changed file is never taken from a stale cache.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const TYPES = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8' } as const;

export const ASSET_NAMES = ['pages.css', 'portal.css', 'handoff.js', 'checkout.js', 'submit-once.js', 'portal.js'] as const;
export type AssetName = (typeof ASSET_NAMES)[number];

export interface Asset {
  readonly body: Buffer;
  readonly type: string;
  readonly version: string;
}

const ASSETS: ReadonlyMap<string, Asset> = new Map(
  ASSET_NAMES.map((name) => {
    const body = readFileSync(new URL(`./assets/${name}`, import.meta.url));
    const type = TYPES[name.endsWith('.css') ? 'css' : 'js'];
    return [name, { body, type, version: createHash('sha256').update(body).digest('hex').slice(0, 12) }];
  }),
);

export function asset(name: string): Asset | undefined {
  return ASSETS.get(name);
}

/** Absolute: a hand-off page may be served from the merchant's own origin. */
export function assetUrl(baseUrl: string, name: AssetName): string {
  return `${baseUrl}/assets/${name}?v=${ASSETS.get(name)!.version}`;
}

/** The URL a Content-Security-Policy names (CSP ignores the query). */
export function assetSource(baseUrl: string, name: AssetName): string {
  return `${baseUrl}/assets/${name}`;
}
