// Transactions: search with filters, sort by time or amount, pages of 50 (up to 200 pages), and
// the same search as a CSV file; a row whose payment has an open chargeback is marked. The
// transaction's own page is transaction.ts.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../app/context.ts';
import { recordAudit } from '../../../app/portal/audit.ts';
import { exportTransactions, searchTransactions, type TransactionPage } from '../../../app/portal/transactions.ts';
import { formatAmount } from '../../../domain/money.ts';
import { PAYMENT_STATUSES } from '../../../domain/payment.ts';
import type { PaymentRow } from '../../../db/schema.ts';
import { html, type Html } from '../../html.ts';
import { CSV_TYPE, toCsv } from '../csv.ts';
import { moneyText, timeText } from '../forms.ts';
import { portalPage } from '../guard.ts';
import { may } from '../permissions.ts';
import { parseSearch, searchLink } from './transaction-search.ts';

const LIST = '/portal/transactions';

function field(label: string, name: string, values: Readonly<Record<string, string>>, attributes: Html = html``): Html {
  return html`<div class="field"><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" value="${values[name] ?? ''}" ${attributes}></div>`;
}

function select(label: string, name: string, choices: readonly string[], values: Readonly<Record<string, string>>): Html {
  return html`<div class="field"><label for="f-${name}">${label}</label><select id="f-${name}" name="${name}"><option value="">Any</option>${choices.map(
    (choice) => html`<option value="${choice}"${values[name] === choice ? html` selected` : ''}>${choice.replace(/_/g, ' ')}</option>`,
  )}</select></div>`;
}

function filterForm(values: Readonly<Record<string, string>>, methods: readonly string[]): Html {
  return html`<form method="get" action="${LIST}" class="filters" role="search" aria-label="Filter transactions">
${field('Transaction id', 'transaction_id', values)}
${field('Order number', 'order_no', values)}
${select('Status', 'status', PAYMENT_STATUSES, values)}
${field('From', 'from', values, html`type="date"`)}
${field('To', 'to', values, html`type="date"`)}
${field('Currency', 'currency', values, html`maxlength="3" autocapitalize="characters"`)}
${field('Amount from', 'min_amount', values, html`inputmode="decimal"`)}
${field('Amount to', 'max_amount', values, html`inputmode="decimal"`)}
${field('Card last four', 'last4', values, html`inputmode="numeric" maxlength="4"`)}
${field('Shopper e-mail', 'email', values, html`type="email"`)}
${select('Payment method', 'method', methods, values)}
${values.sort ? html`<input type="hidden" name="sort" value="${values.sort}">` : ''}${values.dir ? html`<input type="hidden" name="dir" value="${values.dir}">` : ''}
<div class="field"><button class="button small" type="submit">Search</button> <a href="${LIST}">Clear</a></div>
</form>`;
}

/** A column header that sorts by `sort`, flipping the direction when it already does. */
function sortHeader(label: string, sort: string, values: Readonly<Record<string, string>>): Html {
  const current = (values.sort ?? 'created') === sort;
  const descending = (values.dir ?? 'desc') === 'desc';
  const link = searchLink(LIST, values, { sort, dir: current && descending ? 'asc' : 'desc', page: undefined });
  const state = current ? (descending ? 'descending' : 'ascending') : 'none';
  return html`<th aria-sort="${state}"><a href="${link}">${label}${current ? (descending ? ' ▼' : ' ▲') : ''}</a></th>`;
}

function card(payment: PaymentRow): string {
  return payment.cardLast4 ? `${payment.cardBrand ?? 'card'} •••• ${payment.cardLast4}` : '';
}

function resultsTable(result: TransactionPage, values: Readonly<Record<string, string>>): Html {
  if (result.rows.length === 0) return html`<div class="table-wrap"><p class="empty">No transactions match.</p></div>`;
  return html`<div class="table-wrap"><table class="data">
<caption class="visually-hidden">Transactions, page ${result.page}</caption>
<thead><tr>${sortHeader('Created', 'created', values)}<th>Transaction</th><th>Order</th><th>Status</th>${sortHeader('Amount', 'amount', values)}<th>Card</th><th>Shopper</th><th>Method</th></tr></thead>
<tbody>
${result.rows.map(
  (p) => html`<tr><td>${timeText(p.createdAt)}</td><td><a href="${LIST}/${encodeURIComponent(p.id)}">${p.id}</a></td><td>${p.orderNo}</td><td><span class="status status-${p.status}">${p.status.replace(/_/g, ' ')}</span>${result.openChargebacks.has(p.id) ? html` <span class="status status-chargeback-open">chargeback</span>` : ''}</td><td class="num">${moneyText(p.amount, p.currency)}</td><td>${card(p)}</td><td>${p.shopperEmail ?? ''}</td><td>${p.paymentMethod}</td></tr>`,
)}
</tbody></table></div>`;
}

function pager(result: TransactionPage, values: Readonly<Record<string, string>>): Html {
  const previous = result.page > 1 ? html`<a rel="prev" href="${searchLink(LIST, values, { page: String(result.page - 1) })}">Previous</a>` : '';
  const next = result.hasNext ? html`<a rel="next" href="${searchLink(LIST, values, { page: String(result.page + 1) })}">Next</a>` : '';
  return html`<nav class="pager" aria-label="Pages">${previous}<span>Page ${result.page}</span>${next}</nav>`;
}

const CSV_HEADER = ['created_at', 'transaction_id', 'order_no', 'account_id', 'status', 'currency', 'amount', 'captured', 'refunded', 'payment_method', 'card_brand', 'card_last4', 'shopper_email', 'result_code', 'result_message'];

function csvRow(p: PaymentRow): (string | null)[] {
  return [
    p.createdAt.toISOString(),
    p.id,
    p.orderNo,
    p.accountId,
    p.status,
    p.currency,
    formatAmount(p.amount, p.currency),
    formatAmount(p.capturedAmount, p.currency),
    formatAmount(p.refundedAmount, p.currency),
    p.paymentMethod,
    p.cardBrand,
    p.cardLast4,
    p.shopperEmail,
    p.resultCode,
    p.resultMessage,
  ];
}

export function transactionsRoutes(app: FastifyInstance, deps: Deps): void {
  portalPage(app, deps, {
    path: '/transactions',
    permission: 'transactions.view',
    title: 'Transactions',
    async render(context, request) {
      const { search, values } = parseSearch(request, context.member.merchantId);
      const result = await searchTransactions(deps, search);
      const exportLink = may(context.member.role, 'transactions.export') ? html`<a class="button small secondary" href="${searchLink(`${LIST}/export.csv`, values)}" download>Export CSV</a>` : '';
      return html`<h1>Transactions</h1>
${filterForm(values, result.methods)}
<div class="actions">${exportLink}</div>
${resultsTable(result, values)}
${pager(result, values)}`;
    },
  });

  portalPage(app, deps, {
    path: '/transactions/export.csv',
    permission: 'transactions.export',
    title: 'Transactions',
    nav: LIST,
    async render(context, request) {
      const { search } = parseSearch(request, context.member.merchantId);
      const rows = await exportTransactions(deps, search);
      await recordAudit(deps.database, { merchantId: context.member.merchantId, ...context.actor, action: 'transactions.export', outcome: 'ok', detail: { rows: String(rows.length) } }, deps.wallClock.now());
      return { file: toCsv(CSV_HEADER, rows.map(csvRow)), name: `transactions-${deps.clock.now().toISOString().slice(0, 10)}.csv`, type: CSV_TYPE };
    },
  });
}
