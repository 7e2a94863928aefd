// The frame every page shares: document head, the stylesheet and the page's own scripts (served
// from /assets, named in the CSP), a header with the merchant's name, and the sandbox banner.
import { assetUrl, type AssetName } from './assets.ts';
import { html, httpUrl, type Html } from './html.ts';
import type { Lang } from './i18n.ts';
import { pageHeaders, type PagePolicy } from './security.ts';

export interface Page {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export interface LayoutOptions {
  readonly baseUrl: string;
  readonly lang: Lang;
  readonly title: string;
  readonly main: Html;
  readonly scripts?: readonly AssetName[];
  /** Stylesheets; pages.css when absent. */
  readonly styles?: readonly AssetName[];
  readonly bodyClass?: string;
  /** Shown in the top bar. */
  readonly merchantName?: string;
  /** Text of the sandbox banner, when in sandbox mode. */
  readonly sandboxBanner?: string;
  readonly frameAncestors?: readonly string[];
  readonly formTargets?: readonly string[];
  /** Seconds after which the browser reloads the page (status pages); no script needed. */
  readonly refreshSeconds?: number;
  /**
   * An http(s) URL the browser goes to at once, by itself (meta refresh, no script): the way on
   * that a page answering a form's submission takes where a redirect would meet form-action.
   */
  readonly refreshTo?: string;
  readonly status?: number;
}

export function layout(options: LayoutOptions): Page {
  const scripts = options.scripts ?? [];
  const styles = options.styles ?? ['pages.css'];
  const policy: PagePolicy = {
    baseUrl: options.baseUrl,
    scripts,
    styles,
    frameAncestors: options.frameAncestors ?? [],
    formTargets: options.formTargets ?? [],
  };
  const body = html`<!doctype html>
<html lang="${options.lang === 'zh' ? 'zh-Hans' : options.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
${options.refreshSeconds ? html`<meta http-equiv="refresh" content="${options.refreshSeconds}">` : ''}
${options.refreshTo ? html`<meta http-equiv="refresh" content="0; url=${httpUrl(options.refreshTo)}">` : ''}
<title>${options.title}</title>
${styles.map((name) => html`<link rel="stylesheet" href="${assetUrl(options.baseUrl, name)}">`)}
${scripts.map((name) => html`<script src="${assetUrl(options.baseUrl, name)}" defer></script>`)}
</head>
<body${options.bodyClass ? html` class="${options.bodyClass}"` : ''}>
${options.merchantName || options.sandboxBanner
  ? html`<header class="topbar">
<span class="topbar-merchant">${options.merchantName ?? ''}</span>
${options.sandboxBanner ? html`<span class="sandbox-badge" role="note">${options.sandboxBanner}</span>` : ''}
</header>`
  : ''}
${options.main}
</body>
</html>
`;
  return { status: options.status ?? 200, headers: pageHeaders(policy), body: body.text };
}
