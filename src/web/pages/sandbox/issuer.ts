// The sandbox's simulated APM provider page (issuer_url): the shopper approves, declines or
// abandons the payment, in the shopper's language like the hosted page. Each method type looks
// like what it stands for: a redirect checkout, an online bank, a cash voucher, a wallet. The form
// carries the shopper's session token, without which the gateway refuses the answer.
import type { ApmMethod } from '../../../connectors/simulator/apm.ts';
import { html } from '../../html.ts';
import { fill, type Lang } from '../../i18n.ts';
import { sandboxMessages } from '../../i18n-sandbox.ts';
import { layout, type Page } from '../../layout.ts';

export interface IssuerView {
  readonly baseUrl: string;
  readonly lang: Lang;
  readonly postUrl: string;
  /** The shopper's session token, posted back with the answer. */
  readonly session: string;
  readonly method: ApmMethod;
  readonly merchantName: string;
  readonly orderNo: string;
  readonly amount: string;
  readonly bankName?: string;
  readonly walletEmail?: string;
  readonly voucher?: { readonly number: string; readonly due: string };
  readonly frameAncestors: readonly string[];
  readonly formTargets: readonly string[];
}

const BRAND: Record<ApmMethod['type'], string> = {
  redirect: 'Sandbox Pay',
  bank_redirect: 'Sandbox online banking',
  voucher: 'Sandbox cash voucher',
  wallet: 'Sandbox Wallet',
};

export function issuerPage(view: IssuerView): Page {
  const t = sandboxMessages(view.lang);
  const type = view.method.type;
  const heading =
    type === 'voucher' ? t.voucherHeading : type === 'bank_redirect' ? fill(t.bankHeading, { bank: view.bankName ?? t.yourBank }) : t.approveHeading;
  return layout({
    baseUrl: view.baseUrl,
    lang: view.lang,
    title: `${BRAND[type]}: ${view.merchantName}`,
    scripts: ['submit-once.js'],
    frameAncestors: view.frameAncestors,
    formTargets: view.formTargets,
    main: html`<main class="issuer">
<div class="panel" aria-labelledby="issuer-heading">
<p class="issuer-brand">${BRAND[type]}</p>
<h1 id="issuer-heading">${heading}</h1>
<dl class="facts">
<dt>${t.merchant}</dt><dd>${view.merchantName}</dd>
<dt>${t.order}</dt><dd>${view.orderNo}</dd>
<dt>${t.amount}</dt><dd id="issuer-amount">${view.amount}</dd>
${view.walletEmail ? html`<dt>${t.signedInAs}</dt><dd>${view.walletEmail}</dd>` : ''}
${view.voucher ? html`<dt>${t.voucher}</dt><dd class="voucher-code">${view.voucher.number}</dd><dt>${t.payBy}</dt><dd>${view.voucher.due}</dd>` : ''}
</dl>
<form method="post" action="${view.postUrl}" data-submit-once>
<input type="hidden" name="session" value="${view.session}">
<div class="button-row">
<button type="submit" class="button" name="action" value="approve">${type === 'voucher' ? t.voucherPaid : t.approve}</button>
<button type="submit" class="button danger" name="action" value="decline">${type === 'voucher' ? t.voucherRefused : t.decline}</button>
${type === 'voucher' ? html`<button type="submit" class="button secondary" name="action" value="later">${t.payLater}</button>` : ''}
<button type="submit" class="button secondary" name="action" value="abandon">${t.backToStore}</button>
</div>
</form>
<details class="sandbox-hint"><summary>${t.sandboxNote}</summary>
<p lang="en">Choose the outcome.${type === 'voucher' ? ' A real voucher is paid later at a store; "pay later" leaves it waiting until it expires.' : ''}</p>
</details>
</div>
</main>`,
  });
}
