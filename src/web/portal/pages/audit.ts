// The audit log (owners): the merchant's rows, newest first, filtered by member, action, outcome
// and time; exported as CSV with the same filters (the export is itself audited).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../app/context.ts';
import { recordAudit } from '../../../app/portal/audit.ts';
import { auditRowsOf, type AuditFilter } from '../../../db/repositories/audit-log.ts';
import type { AuditRow } from '../../../db/schema.ts';
import { html } from '../../html.ts';
import { CSV_TYPE, toCsv } from '../csv.ts';
import { endOfDay, queryOf } from '../forms.ts';
import { portalPage, type PortalContext } from '../guard.ts';


const PAGE_SIZE = 50;
const EXPORT_LIMIT = 10_000;
const OUTCOMES = ['ok', 'refused', 'failed'];

/**
 * The filters as typed (each name's first value, as queryOf reads every portal search); a value
 * that does not parse is left out (and shown back as typed).
 */
function filterOf(context: PortalContext, query: Record<string, string | undefined>, limit: number): AuditFilter {
  const date = (text: string | undefined, end: boolean) => {
    if (!text || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
    const day = new Date(`${text}T00:00:00Z`);
    if (Number.isNaN(day.getTime())) return undefined;
    return end ? endOfDay(day) : day;
  };
  const from = date(query.from, false);
  const to = date(query.to, true);
  const before = query.before && /^[1-9][0-9]{0,15}$/.test(query.before) ? Number(query.before) : undefined;
  return {
    merchantId: context.member.merchantId,
    limit,
    ...(query.email ? { email: query.email.slice(0, 320) } : {}),
    ...(query.action ? { action: query.action.slice(0, 100) } : {}),
    ...(query.outcome && OUTCOMES.includes(query.outcome) ? { outcome: query.outcome } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
    ...(before !== undefined ? { beforeSeq: before } : {}),
  };
}

function queryString(query: Record<string, string | undefined>, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const name of ['email', 'action', 'outcome', 'from', 'to']) if (query[name]) params.set(name, query[name]!);
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

const detailText = (row: AuditRow) => Object.entries(row.detail).map(([key, value]) => `${key}: ${value}`).join(', ');

export function auditRoutes(app: FastifyInstance, deps: Deps): void {
  portalPage(app, deps, {
    path: '/audit',
    permission: 'audit.view',
    title: 'Audit log',
    render: async (context, request) => {
      const query = queryOf(request);
      const rows = await auditRowsOf(deps.database.db, filterOf(context, query, PAGE_SIZE));
      const field = (name: string, label: string, type = 'text') =>
        html`<div class="field"><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" type="${type}" value="${query[name] ?? ''}"></div>`;
      return html`<h1>Audit log</h1>
<form method="get" action="/portal/audit" class="filters">
${field('email', 'Member e-mail')}
${field('action', 'Action')}
<div class="field"><label for="f-outcome">Outcome</label><select id="f-outcome" name="outcome"><option value="">any</option>${OUTCOMES.map((outcome) => html`<option${query.outcome === outcome ? html` selected` : ''}>${outcome}</option>`)}</select></div>
${field('from', 'From (day)', 'date')}
${field('to', 'To (day)', 'date')}
<div class="field"><button class="button small" type="submit">Filter</button></div>
</form>
<div class="actions"><a class="button small secondary" href="/portal/audit/export${queryString(query)}">Export CSV</a></div>
<div class="table-wrap"><table class="data" id="audit-rows">
<thead><tr><th scope="col">#</th><th scope="col">When (UTC)</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">On</th><th scope="col">Outcome</th><th scope="col">From</th><th scope="col">Detail</th></tr></thead>
<tbody>${rows.map(
        (row) => html`<tr><td class="num">${row.seq}</td><td>${row.at.toISOString().replace('T', ' ').slice(0, 19)}</td><td>${row.email}</td><td>${row.action}</td><td>${row.target ?? ''}</td><td class="outcome-${row.outcome}">${row.outcome}</td><td>${row.ip}</td><td>${detailText(row)}</td></tr>`,
      )}</tbody>
</table>${rows.length === 0 ? html`<p class="empty">No rows match.</p>` : ''}</div>
${rows.length === PAGE_SIZE ? html`<nav class="pager" aria-label="Pages"><a href="/portal/audit${queryString(query, { before: String(rows.at(-1)!.seq) })}">Older rows</a></nav>` : ''}`;
    },
  });

  portalPage(app, deps, {
    path: '/audit/export',
    permission: 'audit.export',
    title: 'Audit log',
    nav: '/portal/audit',
    render: async (context, request) => {
      const rows = await auditRowsOf(deps.database.db, filterOf(context, queryOf(request), EXPORT_LIMIT));
      await recordAudit(deps.database, { merchantId: context.member.merchantId, ...context.actor, action: 'audit.export', outcome: 'ok', detail: { rows: String(rows.length) } }, deps.wallClock.now());
      return {
        name: 'audit-log.csv',
        type: CSV_TYPE,
        file: toCsv(
          ['seq', 'at', 'email', 'action', 'target', 'outcome', 'ip', 'detail', 'hash'],
          rows.map((row) => [row.seq, row.at, row.email, row.action, row.target, row.outcome, row.ip, detailText(row), row.hash]),
        ),
      };
    },
  });
}
