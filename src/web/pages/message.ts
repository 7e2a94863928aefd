// A page that only tells the shopper something: expired, already used, not found, processing,
// finished. At most one way on: a link back to the store (an http(s) URL) or a refresh.
import { html, httpUrl } from '../html.ts';
import { messages, type Lang, type Messages } from '../i18n.ts';
import { layout, type Page } from '../layout.ts';

type TitleKey = 'expiredTitle' | 'notFoundTitle' | 'replayTitle' | 'forgedTitle' | 'processingTitle' | 'doneTitle' | 'closedTitle' | 'errorTitle';
type TextKey = 'expiredText' | 'notFoundText' | 'replayText' | 'forgedText' | 'processingText' | 'doneText' | 'closedText' | 'errorText';

export interface MessageView {
  readonly baseUrl: string;
  readonly lang: Lang;
  readonly status: number;
  readonly title: TitleKey;
  readonly text: TextKey;
  readonly merchantName?: string;
  readonly returnUrl?: string;
  /** Reload after this many seconds (a payment in progress). */
  readonly refreshSeconds?: number;
  readonly frameAncestors?: readonly string[];
  readonly sandbox?: boolean;
}

export function messagePage(view: MessageView): Page {
  const t: Messages = messages(view.lang);
  const link = view.returnUrl ? httpUrl(view.returnUrl) : undefined;
  return layout({
    baseUrl: view.baseUrl,
    lang: view.lang,
    status: view.status,
    title: t[view.title],
    ...(view.merchantName ? { merchantName: view.merchantName } : {}),
    ...(view.sandbox ? { sandboxBanner: t.sandboxBanner } : {}),
    ...(view.refreshSeconds ? { refreshSeconds: view.refreshSeconds } : {}),
    frameAncestors: view.frameAncestors ?? [],
    main: html`<main class="centered">
<div class="panel" role="status">
${view.refreshSeconds ? html`<div class="spinner" aria-hidden="true"></div>` : ''}
<h1>${t[view.title]}</h1>
<p>${t[view.text]}</p>
${link ? html`<p><a class="button" href="${link}">${t.returnButton}</a></p>` : ''}
</div>
</main>`,
  });
}
