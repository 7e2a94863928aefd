// The hosted payment page: the order summary (merchant, amount in the shopper's format, lines)
// and the card form. The form posts the card to the gateway only (never in a URL); a refused
// attempt comes back here with the reason and the attempts left. Labels, hints and errors are
// tied to their inputs for screen readers; checkout.js adds checks as the shopper types.
import type { CardField, FieldProblem } from '../../app/checkout/pay.ts';
import { CODES } from '../../domain/errors.ts';
import { exponentOf } from '../../domain/money.ts';
import { html, type Html } from '../html.ts';
import { fill, formatMoney, messages, type Language, type MessageText, type Messages, type RefusalCause } from '../i18n.ts';
import { layout, type Page } from '../layout.ts';


/** What every page about one hosted order shows: the card form (HostedView) and the outcome (outcome.ts). */
export interface OrderPageView {
  readonly baseUrl: string;
  readonly language: Language;
  readonly sandbox: boolean;
  readonly merchantName: string;
  readonly orderNo: string;
  readonly total: { readonly minor: number; readonly currency: string };
  readonly frameAncestors: readonly string[];
}

export interface HostedView extends OrderPageView {
  readonly lines: readonly { readonly name: string; readonly quantity: number; readonly amount?: number }[];
  readonly breakdown: readonly { readonly label: 'subtotal' | 'shipping' | 'tax' | 'discount'; readonly minor: number }[];
  readonly payUrl: string;
  readonly cancelUrl: string;
  /** Origins the shopper may be sent to after a post (return_url, cancel_url). */
  readonly formTargets: readonly string[];
  /** The code of the last refused attempt, and how many remain. */
  readonly refusal?: { readonly code: string; readonly attemptsLeft: number };
  readonly problems?: Partial<Record<CardField, FieldProblem>>;
  /** The name the shopper typed, shown again with the problems (never the card's number or code). */
  readonly holderName?: string;
  readonly status?: number;
}

/** Which refusal a result code is, as far as a shopper should know (no fraud verdicts). */
function refusalCause(code: string): RefusalCause {
  switch (code) {
    case CODES.insufficient_funds.code:
      return 'funds';
    case CODES.expired_card.code:
      return 'expired';
    case CODES.incorrect_cvc.code:
      return 'cvc';
    case CODES.authentication_failed.code:
      return 'auth';
    case CODES.processor_error.code:
      return 'processing';
    default:
      return 'generic';
  }
}

const REFUSAL_TEXT: Record<RefusalCause, MessageText> = {
  generic: 'declGeneric',
  funds: 'declFunds',
  expired: 'declExpired',
  cvc: 'declCvc',
  auth: 'declAuth',
  processing: 'declProcessing',
};

/** What the card form tells the shopper of a refusal: its cause and what to do next on the form. */
export function refusalText(t: Messages, code: string): string {
  return t[REFUSAL_TEXT[refusalCause(code)]];
}

/** The refusal's cause alone, for the outcome page, which has no form to try again on. */
export function refusalCauseText(t: Messages, code: string): string {
  return t.refusalCauses[refusalCause(code)];
}

function problemText(t: Messages, problem: FieldProblem | undefined): string {
  switch (problem) {
    case undefined:
      return '';
    case 'holder':
      return t.errHolder;
    case 'number':
      return t.errNumber;
    case 'expiry':
      return t.errExpiry;
    case 'expired':
      return t.errExpired;
    case 'cvc3':
      return fill(t.errCvc, { n: 3 });
    case 'cvc4':
      return fill(t.errCvc, { n: 4 });
  }
}

export function hostedPage(view: HostedView): Page {
  const { lang, locale } = view.language;
  const t = messages(lang);
  const exponent = exponentOf(view.total.currency);
  const money = (minor: number) => formatMoney(minor, view.total.currency, exponent, locale);
  const total = money(view.total.minor);
  const problems = view.problems ?? {};
  const hasProblems = Object.keys(problems).length > 0;

  const field = (options: {
    id: string;
    field: CardField;
    label: string;
    autocomplete: string;
    inputmode?: string;
    hint?: string;
    maxlength: number;
    pattern?: string;
    extra?: Html;
    value?: string;
  }) => {
    const error = problemText(t, problems[options.field]);
    const described = [options.hint ? `${options.id}-hint` : '', `${options.id}-error`].filter(Boolean).join(' ');
    const input = html`<input id="${options.id}" name="${options.id}" type="text" autocomplete="${options.autocomplete}" ${
      options.inputmode ? html`inputmode="${options.inputmode}" ` : ''
    }${options.value ? html`value="${options.value}" ` : ''}maxlength="${options.maxlength}" ${options.pattern ? html`pattern="${options.pattern}" ` : ''}required spellcheck="false" autocapitalize="${
      options.field === 'holder' ? 'words' : 'off'
    }" aria-describedby="${described}" aria-invalid="${error ? 'true' : 'false'}">`;
    return html`<div class="field">
<label for="${options.id}">${options.label}</label>
${options.extra ? html`<div class="number-wrap">${input}${options.extra}</div>` : input}
${options.hint ? html`<span class="hint" id="${options.id}-hint">${options.hint}</span>` : ''}
<span class="error" id="${options.id}-error" aria-live="polite">${error}</span>
</div>`;
  };

  const alert = view.refusal
    ? html`<p>${refusalText(t, view.refusal.code)}</p><p>${fill(t.attemptsLeft, { n: view.refusal.attemptsLeft })}</p>`
    : hasProblems
      ? html`<p>${t.errSummary}</p>`
      : '';

  return layout({
    baseUrl: view.baseUrl,
    lang,
    status: view.status ?? 200,
    title: fill(t.payTitle, { merchant: view.merchantName }),
    merchantName: view.merchantName,
    ...(view.sandbox ? { sandboxBanner: t.sandboxBanner } : {}),
    scripts: ['checkout.js', 'submit-once.js'],
    frameAncestors: view.frameAncestors,
    formTargets: view.formTargets,
    main: html`<main class="checkout">
<section class="panel summary" aria-labelledby="summary-heading">
<h1 class="summary-title">${fill(t.payTitle, { merchant: view.merchantName })}</h1>
<h2 id="summary-heading">${t.summaryHeading}</h2>
<p class="summary-meta">${t.orderLabel} ${view.orderNo}</p>
<p class="summary-amount" id="order-total">${total}</p>
${view.lines.length > 0
  ? html`<ul class="lines">${view.lines.map(
      (line) => html`<li><span class="line-name">${line.name}</span><span class="line-qty">${fill(t.quantity, { n: line.quantity })}</span>${
        line.amount !== undefined ? html`<span class="line-amount">${money(line.amount)}</span>` : ''
      }</li>`,
    )}</ul>`
  : ''}
<dl class="totals">
${view.breakdown.map((entry) => html`<dt>${t[entry.label]}</dt><dd>${money(entry.minor)}</dd>`)}
<dt class="grand">${t.total}</dt><dd class="grand">${total}</dd>
</dl>
</section>
<section class="panel pay" aria-labelledby="pay-heading">
<h2 id="pay-heading">${t.cardHeading}</h2>
<div class="alert" id="form-errors" role="alert" tabindex="-1">${alert}</div>
<form id="card-form" method="post" action="${view.payUrl}" autocomplete="on" data-msg-holder="${t.errHolder}" data-msg-number="${
      t.errNumber
    }" data-msg-expiry="${t.errExpiry}" data-msg-expired="${t.errExpired}" data-msg-cvc="${t.errCvc}" data-msg-summary="${
      t.errSummary
    }" data-msg-paying="${t.paying}" data-msg-pay="${fill(t.payButton, { amount: total })}">
${field({ id: 'holder_name', field: 'holder', label: t.holderLabel, autocomplete: 'cc-name', maxlength: 64, ...(view.holderName ? { value: view.holderName } : {}) })}
${field({
  id: 'card_number',
  field: 'number',
  label: t.numberLabel,
  autocomplete: 'cc-number',
  inputmode: 'numeric',
  maxlength: 23,
  // Full-width digits and spaces too (an input method's): the server reads them as the shopper's digits.
  pattern: '[0-9０-９ 　]{12,23}',
  extra: html`<span class="brand" id="card-brand" aria-live="polite"></span>`,
})}
<div class="row">
${field({ id: 'expiry', field: 'expiry', label: t.expiryLabel, hint: t.expiryHint, autocomplete: 'cc-exp', inputmode: 'numeric', maxlength: 7 })}
${field({ id: 'security_code', field: 'cvc', label: t.cvcLabel, hint: t.cvcHint, autocomplete: 'cc-csc', inputmode: 'numeric', maxlength: 4, pattern: '[0-9０-９]{3,4}' })}
</div>
<button type="submit" class="button" id="pay-button">${fill(t.payButton, { amount: total })}</button>
</form>
<form class="cancel-form" method="post" action="${view.cancelUrl}" data-submit-once>
<button type="submit" class="linklike">${view.formTargets.length > 0 ? t.cancel : t.cancelPayment}</button>
</form>
<p class="secure-note">${t.secureNote}</p>
</section>
</main>`,
  });
}
