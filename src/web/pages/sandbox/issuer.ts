// The sandbox's simulated APM provider page (issuer_url): the shopper approves, declines or
// abandons the payment. Each method type looks like what it stands for: a redirect checkout, an
// online bank, a cash voucher, a wallet. English only, like every simulated third party.
import type { ApmMethod } from '../../../connectors/simulator/apm.ts';
import { html } from '../../html.ts';
import { layout, type Page } from '../../layout.ts';

export interface IssuerView {
  readonly baseUrl: string;
  readonly postUrl: string;
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
  const type = view.method.type;
  const heading =
    type === 'voucher' ? 'Your payment voucher' : type === 'bank_redirect' ? `Approve the payment at ${view.bankName ?? 'your bank'}` : 'Approve the payment';
  return layout({
    baseUrl: view.baseUrl,
    lang: 'en',
    title: `${BRAND[type]}: ${view.merchantName}`,
    scripts: ['submit-once.js'],
    frameAncestors: view.frameAncestors,
    formTargets: view.formTargets,
    main: html`<main class="issuer">
<div class="panel" aria-labelledby="issuer-heading">
<p class="issuer-brand">${BRAND[type]}</p>
<h1 id="issuer-heading">${heading}</h1>
<dl class="facts">
<dt>Merchant</dt><dd>${view.merchantName}</dd>
<dt>Order</dt><dd>${view.orderNo}</dd>
<dt>Amount</dt><dd id="issuer-amount">${view.amount}</dd>
${view.walletEmail ? html`<dt>Signed in as</dt><dd>${view.walletEmail}</dd>` : ''}
${view.voucher
  ? html`<dt>Voucher</dt><dd class="voucher-code">${view.voucher.number}</dd><dt>Pay by</dt><dd>${view.voucher.due}</dd>`
  : ''}
</dl>
<p class="sandbox-hint">Sandbox: choose the outcome. ${
      type === 'voucher' ? 'A real voucher is paid later at a store; "Back to the store" leaves it waiting until it expires.' : ''
    }</p>
<form method="post" action="${view.postUrl}" data-submit-once>
<div class="button-row">
<button type="submit" class="button" name="action" value="approve">${type === 'voucher' ? 'Simulate: voucher paid' : 'Approve payment'}</button>
<button type="submit" class="button danger" name="action" value="decline">${type === 'voucher' ? 'Simulate: payment refused' : 'Decline'}</button>
${type === 'voucher' ? html`<button type="submit" class="button secondary" name="action" value="later">Back to the store (pay later)</button>` : ''}
<button type="submit" class="button secondary" name="action" value="abandon">Cancel and return to the store</button>
</div>
</form>
</div>
</main>`,
  });
}
