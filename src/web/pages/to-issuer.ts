// The step between the pay button and the issuer's 3-D Secure challenge, which may be on any
// origin (the connector's action_url). A 303 there would be a redirect following the card form's
// submission, and browsers hold such redirects to the card page's CSP form-action, which names
// only the gateway and the merchant's return origins (so that an injected form cannot post the
// card elsewhere). This page goes on by a meta refresh instead, a navigation of its own that
// carries no form data and that form-action does not govern; the link is there for a browser that
// does not follow it. No script, no form: its own CSP stays the strictest.
import { html, httpUrl } from '../html.ts';
import { messages, type Lang } from '../i18n.ts';
import { layout, type Page } from '../layout.ts';

export interface ToIssuerView {
  readonly baseUrl: string;
  readonly lang: Lang;
  /** The connector's action_url: http(s) only, else the page is not made. */
  readonly actionUrl: string;
  readonly merchantName: string;
  readonly frameAncestors: readonly string[];
  readonly sandbox: boolean;
}

export function toIssuerPage(view: ToIssuerView): Page {
  const t = messages(view.lang);
  const url = httpUrl(view.actionUrl);
  return layout({
    baseUrl: view.baseUrl,
    lang: view.lang,
    title: t.toBankTitle,
    merchantName: view.merchantName,
    ...(view.sandbox ? { sandboxBanner: t.sandboxBanner } : {}),
    frameAncestors: view.frameAncestors,
    refreshTo: url,
    main: html`<main class="centered">
<div class="panel" role="status">
<div class="spinner" aria-hidden="true"></div>
<h1>${t.toBankTitle}</h1>
<p>${t.toBankText}</p>
<p><a class="button" id="to-issuer" href="${url}">${t.toBankButton}</a></p>
</div>
</main>`,
  });
}
