// Balances: per account and currency, pending (captured, not yet settled: from the ledger),
// available (settled, may be paid out) and reserved (held by a payout in progress).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../app/context.ts';
import { merchantBalances } from '../../../app/portal/reports.ts';
import { html } from '../../html.ts';
import { moneyText } from '../forms.ts';
import { portalPage } from '../guard.ts';

export function balancesRoutes(app: FastifyInstance, deps: Deps): void {
  portalPage(app, deps, {
    path: '/balances',
    permission: 'balances.view',
    title: 'Balances',
    async render(context) {
      const accounts = await merchantBalances(deps, context.member.merchantId);
      return html`<h1>Balances</h1>
<p>Pending is captured money not yet settled; available is settled and may be paid out; reserved is held by a payout in progress.</p>
${accounts.map(
  (account) => html`<section class="settings-account" aria-labelledby="acct-${account.accountId}"><h2 id="acct-${account.accountId}">${account.name} <span class="mono">${account.accountId}</span></h2>
${
  account.balances.length === 0
    ? html`<p class="empty">No money has moved on this account yet.</p>`
    : html`<div class="cards">${account.balances.map(
        (b) => html`<div class="panel"><h3>${b.currency}</h3><dl><dt>Pending</dt><dd>${moneyText(b.pending, b.currency)}</dd><dt>Available</dt><dd>${moneyText(b.available, b.currency)}</dd><dt>Reserved</dt><dd>${moneyText(b.reserved, b.currency)}</dd></dl></div>`,
      )}</div>`
}</section>`,
)}`;
    },
  });
}
