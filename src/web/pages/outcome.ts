// The payment's outcome on the gateway's own page, for a hosted-page payment whose merchant gave
// no return_url (nor cancel_url, for a shopper who cancelled): paid, not completed (with the
// refusal's cause, without the card form's advice to try another card: no form follows here),
// cancelled or still being confirmed, with the order's number and amount. Nothing to follow: the
// shopper closes the window; the merchant hears the outcome from its notification (notify_url)
// and /v1/retrievalTrans.
import type { Outcome } from '../../app/checkout/page-state.ts';
import { exponentOf } from '../../domain/money.ts';
import { html } from '../html.ts';
import { formatMoney, messages, type MessageText } from '../i18n.ts';
import { layout, type Page } from '../layout.ts';
import { refusalCauseText, type OrderPageView } from './hosted.ts';

export interface OutcomeView extends OrderPageView {
  readonly outcome: Outcome;
  /** The payment's result code: the reason of a declined outcome. */
  readonly resultCode: string;
}

const WORDING: Record<Outcome, { readonly title: MessageText; readonly text: MessageText }> = {
  paid: { title: 'outcomePaidTitle', text: 'outcomePaidText' },
  declined: { title: 'outcomeDeclinedTitle', text: 'outcomeDeclinedText' },
  abandoned: { title: 'outcomeAbandonedTitle', text: 'outcomeAbandonedText' },
  pending: { title: 'outcomePendingTitle', text: 'outcomePendingText' },
};

/** How often a page still being confirmed reloads itself. */
const PENDING_REFRESH_SECONDS = 10;

export function outcomePage(view: OutcomeView): Page {
  const { lang, locale } = view.language;
  const t = messages(lang);
  const { title, text } = WORDING[view.outcome];
  const amount = formatMoney(view.total.minor, view.total.currency, exponentOf(view.total.currency), locale);
  return layout({
    baseUrl: view.baseUrl,
    lang,
    title: t[title],
    merchantName: view.merchantName,
    ...(view.sandbox ? { sandboxBanner: t.sandboxBanner } : {}),
    frameAncestors: view.frameAncestors,
    // Still being confirmed: the page looks again by itself (no script), and shows the outcome once there is one.
    ...(view.outcome === 'pending' ? { refreshSeconds: PENDING_REFRESH_SECONDS } : {}),
    main: html`<main class="centered">
<div class="panel outcome outcome-${view.outcome}" role="status">
<h1 id="outcome-title">${t[title]}</h1>
${view.outcome === 'declined' ? html`<p id="outcome-reason">${refusalCauseText(t, view.resultCode)}</p>` : ''}
<p>${t[text]}</p>
<dl class="totals">
<dt>${t.orderLabel}</dt><dd id="outcome-order">${view.orderNo}</dd>
<dt class="grand">${t.total}</dt><dd class="grand" id="outcome-amount">${amount}</dd>
</dl>
<p class="close-note">${t.closeWindow}</p>
</div>
</main>`,
  });
}
