// The answer to the merchant's /v1/checkout: a loading page whose hidden form posts the hand-off
// to the gateway. The form is in the HTML itself, so a browser without JavaScript shows its
// Continue button; handoff.js posts it at once otherwise. Every value is escaped.
import { html } from '../html.ts';
import { messages, type Lang } from '../i18n.ts';
import { layout, type Page } from '../layout.ts';

export interface HandOffView {
  readonly baseUrl: string;
  readonly lang: Lang;
  readonly fields: readonly (readonly [string, string])[];
  readonly frameAncestors: readonly string[];
}

export function handOffPage(view: HandOffView): Page {
  const t = messages(view.lang);
  return layout({
    baseUrl: view.baseUrl,
    lang: view.lang,
    title: t.handoffTitle,
    scripts: ['handoff.js'],
    frameAncestors: view.frameAncestors,
    main: html`<main class="centered">
<div class="panel">
<div class="spinner" aria-hidden="true"></div>
<h1>${t.handoffHeading}</h1>
<form id="handoff" method="post" action="${view.baseUrl}/v1/checkout">
${view.fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">\n`)}<div class="handoff-manual">
<p>${t.handoffHint}</p>
<button type="submit" class="button">${t.continue}</button>
</div>
</form>
</div>
</main>`,
  });
}
