// Payouts: each account's payouts, one payout's detail (the fields the API answers), and
// cancelling a scheduled one — through the use cases `acquiro payouts` uses (src/app/payouts);
// refused (4410) on an account an operator disabled, as the API refuses it. A payout such a
// disable holds (not yet with the rail) is marked held, as `acquiro payouts list` marks it: its
// status alone says it will be sent, which it will not be until the account is enabled.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../app/context.ts';
import { cancelPayout, payoutOf, payoutsHeld, payoutsOf } from '../../../app/payouts/operator.ts';
import { payoutFields } from '../../../app/payouts/view.ts';
import { awaitsRail } from '../../../domain/payouts/status.ts';
import { asRefusal } from '../../../app/portal/api-refusal.ts';
import { refuseDisabledAccount } from '../../../app/portal/disabled-account.ts';
import { PortalRefusal } from '../../../app/portal/refusal.ts';
import { merchantAccount } from '../../../db/repositories/portal-transactions.ts';
import { html, type Html } from '../../html.ts';
import { moneyText, queryOf, timeText } from '../forms.ts';
import { portalAction, portalPage } from '../guard.ts';
import { csrfField } from '../layout.ts';
import { may } from '../permissions.ts';
import { pagesPerAccount, pager } from '../paging.ts';

const PAYOUTS = '/portal/payouts';
type Params = { Params: { accountId: string; payoutId: string } };
/** Payouts a page shows of each account. */
const PAGE_SIZE = 50;

const pathOf = (accountId: string, payoutId: string) => `${PAYOUTS}/${encodeURIComponent(accountId)}/${encodeURIComponent(payoutId)}`;

/** The merchant's account, or not found (another merchant's too). */
async function ownAccount(deps: Deps, merchantId: string, accountId: string): Promise<string> {
  const account = await merchantAccount(deps.database.db, merchantId, accountId);
  if (!account) throw new PortalRefusal('There is no such payout.', { status: 404 });
  return account.id;
}

/** The API's payout fields, nested ones (the beneficiary's) as dotted names. */
function fieldRows(fields: Record<string, unknown>, prefix = ''): Html[] {
  return Object.entries(fields).flatMap(([name, value]) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? fieldRows(value as Record<string, unknown>, `${prefix}${name}.`)
      : [html`<div><dt>${prefix}${name}</dt><dd>${typeof value === 'string' ? value : JSON.stringify(value)}</dd></div>`],
  );
}

export function payoutsRoutes(app: FastifyInstance, deps: Deps): void {
  portalPage(app, deps, {
    path: '/payouts',
    permission: 'payouts.view',
    title: 'Payouts',
    async render(context, request) {
      // Each account's newest page; `?account=A&page=N` pages through one account's (none is out of reach).
      const paged = await pagesPerAccount(deps, context.member.merchantId, queryOf(request), PAGE_SIZE, (accountId, limit, offset) => payoutsOf(deps, accountId, { limit, offset }));
      const { page } = paged;
      const lists = await Promise.all(paged.lists.map(async (list) => ({ ...list, held: await payoutsHeld(deps, list.account.id) })));
      const pageLink = (accountId: string, n: number) => `${PAYOUTS}?account=${encodeURIComponent(accountId)}&page=${n}`;
      return html`<h1>Payouts</h1>
${lists.map(
  ({ account, rows, hasNext, held }) => html`<section aria-labelledby="po-${account.id}"><h2 id="po-${account.id}">${account.name} <span class="mono">${account.id}</span></h2>
${
  rows.length === 0
    ? html`<p class="empty">No payouts.</p>`
    : html`<div class="table-wrap"><table class="data"><thead><tr><th>Payout</th><th>Status</th><th>Paid from balance</th><th>Beneficiary gets</th><th>Created</th></tr></thead><tbody>
${rows.map(
  (p) => html`<tr><td><a href="${pathOf(account.id, p.id)}">${p.id}</a></td><td>${p.status}${held && awaitsRail(p) ? html` <span class="status status-held">held</span>` : ''}</td><td class="num">${moneyText(p.amountPayerPays, p.sourceCurrency)}</td><td class="num">${moneyText(p.amountBeneficiaryReceives, p.paymentCurrency)}</td><td>${timeText(p.createdAt)}</td></tr>`,
)}</tbody></table></div>`
}${pager(`Pages of ${account.id}`, page, hasNext, (n) => pageLink(account.id, n))}</section>`,
)}`;
    },
  });

  portalPage<Params>(app, deps, {
    path: '/payouts/:accountId/:payoutId',
    permission: 'payouts.view',
    title: (request) => `Payout ${request.params.payoutId}`,
    nav: PAYOUTS,
    async render(context, request) {
      const accountId = await ownAccount(deps, context.member.merchantId, request.params.accountId);
      const payout = await asRefusal(() => payoutOf(deps, accountId, request.params.payoutId));
      const canCancel = payout.status === 'SCHEDULED' && may(context.member.role, 'payouts.cancel');
      const held = awaitsRail(payout) && (await payoutsHeld(deps, accountId));
      return html`<p><a href="${PAYOUTS}">← Payouts</a></p>
<h1>Payout <span class="mono">${payout.id}</span></h1>
${queryOf(request).done === 'cancel' ? html`<div class="notice" role="status"><p>The payout is cancelled; its amount is back in the available balance.</p></div>` : ''}
${held ? html`<div class="notice" role="status"><p>This payout is held: the account or its merchant is disabled. It is sent once they are enabled again.</p></div>` : ''}
${canCancel ? html`<form method="post" action="${pathOf(accountId, payout.id)}/cancel" data-confirm="Cancel this scheduled payout?">${csrfField(context.csrfToken)}<button class="button small danger" type="submit">Cancel payout</button></form>` : ''}
<dl class="facts">${fieldRows(payoutFields(payout))}</dl>`;
    },
  });

  portalAction<Params>(app, deps, {
    path: '/payouts/:accountId/:payoutId/cancel',
    permission: 'payouts.cancel',
    async handle(context, request) {
      const accountId = await ownAccount(deps, context.member.merchantId, request.params.accountId);
      await refuseDisabledAccount(deps, context.member.merchantId, accountId);
      const payout = await asRefusal(() => cancelPayout(deps, accountId, request.params.payoutId));
      return { redirect: `${pathOf(accountId, payout.id)}?done=cancel`, target: payout.id };
    },
  });
}
