// Subscriptions: each account's subscriptions, one's history of charges, and cancelling it —
// through the use cases `acquiro subscriptions` and /v1/cancelsubscription use (src/app/subscriptions);
// refused (4410) on an account an operator disabled, as /v1/cancelsubscription is.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../app/context.ts';
import { asRefusal } from '../../../app/portal/api-refusal.ts';
import { refuseDisabledAccount } from '../../../app/portal/disabled-account.ts';
import { PortalRefusal } from '../../../app/portal/refusal.ts';
import { cancelAccountSubscription, listAccountSubscriptions, showSubscription, type SubscriptionView } from '../../../app/subscriptions/manage.ts';
import { codeText } from '../../../domain/errors.ts';
import { html } from '../../html.ts';
import { queryOf } from '../forms.ts';
import { portalAction, portalPage } from '../guard.ts';
import { csrfField } from '../layout.ts';
import { may } from '../permissions.ts';
import { pageNumber, pageOf, pagesPerAccount, pager } from '../paging.ts';

const SUBSCRIPTIONS = '/portal/subscriptions';
type Params = { Params: { accountId: string; recurringId: string } };
const CANCELLABLE: ReadonlySet<string> = new Set(['Active', 'Unpaid']);
/** Subscriptions a page shows of each account. */
const PAGE_SIZE = 50;
/** Charge attempts a subscription's page shows. */
const CHARGES_PAGE_SIZE = 50;

/** What each charge takes: the payment's amount for the promotion's charges (the first payment's among them), contract_amount after. */
function amountText(s: Pick<SubscriptionView, 'first_amount' | 'contract_amount' | 'currency' | 'period' | 'promotion_cycle'>): string {
  const every = `${s.contract_amount} ${s.currency} every ${s.period}`;
  return s.promotion_cycle > 1 && s.first_amount !== s.contract_amount ? `${s.first_amount} ${s.currency} for the first ${s.promotion_cycle} charges, then ${every}` : every;
}

const pathOf = (accountId: string, recurringId: string) => `${SUBSCRIPTIONS}/${encodeURIComponent(accountId)}/${encodeURIComponent(recurringId)}`;

export function subscriptionsRoutes(app: FastifyInstance, deps: Deps): void {
  portalPage(app, deps, {
    path: '/subscriptions',
    permission: 'subscriptions.view',
    title: 'Subscriptions',
    async render(context, request) {
      // Each account's newest page; `?account=A&page=N` pages through one account's (none is out of reach).
      const { page, lists } = await pagesPerAccount(deps, context.member.merchantId, queryOf(request), PAGE_SIZE, (accountId, limit, offset) =>
        listAccountSubscriptions(deps, context.member.merchantId, accountId, limit, offset),
      );
      const pageLink = (accountId: string, n: number) => `${SUBSCRIPTIONS}?account=${encodeURIComponent(accountId)}&page=${n}`;
      return html`<h1>Subscriptions</h1>
${lists.map(
  ({ account, rows, hasNext }) => html`<section aria-labelledby="sub-${account.id}"><h2 id="sub-${account.id}">${account.name} <span class="mono">${account.id}</span></h2>
${
  rows.length === 0
    ? html`<p class="empty">No subscriptions.</p>`
    : html`<div class="table-wrap"><table class="data"><thead><tr><th>Subscription</th><th>Status</th><th>Contract</th><th>Amount</th><th>Period</th><th>Paid cycles</th><th>Next charge</th></tr></thead><tbody>
${rows.map(
  (s) => html`<tr><td><a href="${pathOf(account.id, s.recurring_id)}">${s.recurring_id}</a></td><td>${s.status}</td><td>${s.contract_name}</td><td class="num">${s.contract_amount} ${s.currency}</td><td>${s.period}</td><td class="num">${s.cycles_paid}</td><td>${s.next_charge_at}</td></tr>`,
)}</tbody></table></div>`
}${pager(`Pages of ${account.id}`, page, hasNext, (n) => pageLink(account.id, n))}</section>`,
)}`;
    },
  });

  portalPage<Params>(app, deps, {
    path: '/subscriptions/:accountId/:recurringId',
    permission: 'subscriptions.view',
    title: (request) => `Subscription ${request.params.recurringId}`,
    nav: SUBSCRIPTIONS,
    async render(context, request) {
      const { accountId, recurringId } = request.params;
      const query = queryOf(request);
      // Charge attempts newest first, a page at a time (`?page=N`): a daily contract makes thousands.
      const page = pageNumber(query);
      const s = await asRefusal(() => showSubscription(deps, context.member.merchantId, accountId, recurringId, { limit: CHARGES_PAGE_SIZE + 1, offset: (page - 1) * CHARGES_PAGE_SIZE }));
      const charges = pageOf(s.charges, CHARGES_PAGE_SIZE);
      const cancelled = query.done === 'cancel';
      // What the cancel takes (src/app/subscriptions/cancel.ts): an Active subscription, or an
      // Unpaid one, ended for good (docs/subscriptions.md).
      const canCancel = CANCELLABLE.has(s.status) && may(context.member.role, 'subscriptions.cancel');
      return html`<p><a href="${SUBSCRIPTIONS}">← Subscriptions</a></p>
<h1>Subscription <span class="mono">${s.recurring_id}</span></h1>
${cancelled ? html`<div class="notice" role="status"><p>The subscription is cancelled: it is never charged again.</p></div>` : ''}
<dl class="facts">
<div><dt>Status</dt><dd>${s.status}</dd></div><div><dt>Contract</dt><dd>${s.contract_name}</dd></div>
<div><dt>Amount</dt><dd>${amountText(s)}</dd></div><div><dt>First payment</dt><dd><a href="/portal/transactions/${encodeURIComponent(s.first_transaction_id)}">${s.first_transaction_id}</a></dd></div>
<div><dt>Paid cycles</dt><dd>${s.cycles_paid}</dd></div><div><dt>Next charge</dt><dd>${s.next_charge_at}</dd></div>
<div><dt>Created</dt><dd>${s.created_at}</dd></div><div><dt>Ended</dt><dd>${s.ended_at}</dd></div>
</dl>
${canCancel ? html`<form method="post" action="${pathOf(accountId, recurringId)}/cancel" data-confirm="Cancel this subscription? It is never charged again.">${csrfField(context.csrfToken)}<button class="button small danger" type="submit">Cancel subscription</button></form>` : ''}
<h2>Charges</h2>
${
  charges.rows.length === 0
    ? html`<p class="empty">${page === 1 ? 'No charges yet.' : 'No charges on this page.'}</p>`
    : html`<div class="table-wrap"><table class="data"><thead><tr><th>Cycle</th><th>Attempt</th><th>Status</th><th>Due</th><th>Amount</th><th>Transaction</th><th>Result</th></tr></thead><tbody>
${charges.rows.map(
  (c) => html`<tr><td class="num">${c.cycle}</td><td class="num">${c.attempt}</td><td>${c.status}</td><td>${c.due_at}</td><td class="num">${c.amount}</td><td>${c.transaction_id ? html`<a href="/portal/transactions/${encodeURIComponent(c.transaction_id)}">${c.transaction_id}</a>` : ''}</td><td>${c.result_info}</td></tr>`,
)}</tbody></table></div>`
}${pager('Pages of charges', page, charges.hasNext, (n) => `${pathOf(accountId, recurringId)}?page=${n}`)}`;
    },
  });

  portalAction<Params>(app, deps, {
    path: '/subscriptions/:accountId/:recurringId/cancel',
    permission: 'subscriptions.cancel',
    async handle(context, request) {
      const { accountId, recurringId } = request.params;
      await refuseDisabledAccount(deps, context.member.merchantId, accountId);
      const outcome = await asRefusal(() => cancelAccountSubscription(deps, context.member.merchantId, accountId, recurringId));
      if (outcome.status === 'refused') throw new PortalRefusal(codeText(outcome.code), { status: outcome.code === 'subscription_not_found' ? 404 : 409 });
      return { redirect: `${pathOf(accountId, recurringId)}?done=cancel`, target: recurringId };
    },
  });
}
