// Reports: the settlement report per day (captured, refunded, fees, net) with its CSV export,
// and charts of approved volume, approval rate and decline reasons over the same period.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../../app/context.ts';
import { recordAudit } from '../../../app/portal/audit.ts';
import { DEFAULT_REPORT_DAYS, merchantActivity, settlementReport, type Activity, type SettlementDay, type Window } from '../../../app/portal/reports.ts';
import { PortalRefusal } from '../../../app/portal/refusal.ts';
import { formatAmount } from '../../../domain/money.ts';
import { html, type Html } from '../../html.ts';
import { barList, columnChart } from '../charts.ts';
import { CSV_TYPE, toCsv } from '../csv.ts';
import { currencyField, dayField, DAY_MS, endOfDay, moneyText, queryOf } from '../forms.ts';
import { portalPage } from '../guard.ts';
import { may } from '../permissions.ts';
import { searchLink } from './transaction-search.ts';

const REPORTS = '/portal/reports';

interface Period {
  readonly window: Window;
  readonly currency: string | undefined;
  /** The form's values, as the member typed them or as defaulted. */
  readonly values: Record<string, string>;
}

/** The period asked (whole UTC days, `to` included), by default the last 30 days of business time. */
function periodOf(deps: Deps, request: FastifyRequest, merchantId: string): Period {
  const values = queryOf(request);
  const today = new Date(Math.floor(deps.clock.now().getTime() / DAY_MS) * DAY_MS);
  const to = dayField(values, 'to') ?? today;
  const from = dayField(values, 'from') ?? new Date(to.getTime() - (DEFAULT_REPORT_DAYS - 1) * DAY_MS);
  if (to < from) throw new PortalRefusal('to is invalid: expected a day on or after from', { field: 'to' });
  const currency = currencyField(values);
  const day = (date: Date) => date.toISOString().slice(0, 10);
  return { window: { merchantId, from, before: endOfDay(to) }, currency, values: { from: day(from), to: day(to), ...(currency ? { currency } : {}) } };
}

function periodForm(values: Record<string, string>): Html {
  return html`<form method="get" action="${REPORTS}" class="filters" aria-label="Report period">
<div class="field"><label for="r-from">From</label><input id="r-from" name="from" type="date" value="${values.from ?? ''}"></div>
<div class="field"><label for="r-to">To</label><input id="r-to" name="to" type="date" value="${values.to ?? ''}"></div>
<div class="field"><label for="r-currency">Currency</label><input id="r-currency" name="currency" maxlength="3" value="${values.currency ?? ''}"></div>
<div class="field"><button class="button small" type="submit">Show</button></div>
</form>`;
}

function settlementTable(days: readonly SettlementDay[]): Html {
  if (days.length === 0) return html`<div class="table-wrap"><p class="empty">Nothing was captured or refunded in this period.</p></div>`;
  return html`<div class="table-wrap"><table class="data"><thead><tr><th>Day</th><th>Currency</th><th>Captured</th><th>Refunded</th><th>Fees</th><th>Net</th></tr></thead><tbody>
${days.map(
  (d) => html`<tr><td>${d.day}</td><td>${d.currency}</td><td class="num">${formatAmount(d.captured, d.currency)}</td><td class="num">${formatAmount(d.refunded, d.currency)}</td><td class="num">${formatAmount(d.fees, d.currency)}</td><td class="num">${formatAmount(d.net, d.currency)}</td></tr>`,
)}</tbody></table></div>`;
}

/** Every UTC day of the window, so a quiet day shows as an empty bar rather than no bar at all. */
function daysOf(window: Window): string[] {
  const days: string[] = [];
  for (let at = window.from.getTime(); at < window.before.getTime(); at += DAY_MS) days.push(new Date(at).toISOString().slice(0, 10));
  return days;
}

function charts(activity: Activity, currency: string | undefined, window: Window): Html {
  const currencies = [...new Set(activity.days.map((d) => d.currency))].sort();
  const shown = currency ?? currencies[0];
  const byDay = new Map<string, { approved: number; declined: number; volume: number }>(daysOf(window).map((day) => [day, { approved: 0, declined: 0, volume: 0 }]));
  for (const d of activity.days) {
    const day = byDay.get(d.day) ?? { approved: 0, declined: 0, volume: 0 };
    day.approved += d.approved;
    day.declined += d.declined;
    if (d.currency === shown) day.volume += d.approvedVolume;
    byDay.set(d.day, day);
  }
  const days = [...byDay.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  const volume = shown ? days.map(([day, d]) => ({ label: day, value: d.volume, text: moneyText(d.volume, shown) })) : [];
  const rate = days.map(([day, d]) => {
    const decided = d.approved + d.declined;
    const percent = decided === 0 ? 0 : Math.round((d.approved / decided) * 1000) / 10;
    return { label: day, value: percent, text: `${percent}% of ${decided}` };
  });
  const reasons = activity.declineReasons.map((r) => ({ label: r.reason, value: r.count, text: String(r.count) }));
  return html`<section aria-labelledby="charts"><h2 id="charts">Activity</h2>
${columnChart(shown ? `Approved volume per day (${shown})` : 'Approved volume per day', volume)}
${columnChart('Approval rate per day', rate, { max: 100 })}
${barList('Decline reasons', reasons)}
</section>`;
}

const CSV_HEADER = ['day', 'currency', 'captured', 'refunded', 'fees', 'net'];

export function reportsRoutes(app: FastifyInstance, deps: Deps): void {
  portalPage(app, deps, {
    path: '/reports',
    permission: 'reports.view',
    title: 'Reports',
    async render(context, request) {
      const period = periodOf(deps, request, context.member.merchantId);
      const [days, activity] = await Promise.all([settlementReport(deps, period.window), merchantActivity(deps, period.window)]);
      const filtered = period.currency ? days.filter((d) => d.currency === period.currency) : days;
      const exportLink = may(context.member.role, 'reports.export') ? html`<a class="button small secondary" href="${searchLink(`${REPORTS}/settlement.csv`, period.values)}" download>Export CSV</a>` : '';
      return html`<h1>Reports</h1>
${periodForm(period.values)}
<section aria-labelledby="settlement"><h2 id="settlement">Settlement per day</h2>
<p>Captured less refunded and fees is the day's net, added to the pending balance until it settles.</p>
<div class="actions">${exportLink}</div>
${settlementTable(filtered)}
</section>
${charts(activity, period.currency, period.window)}`;
    },
  });

  portalPage(app, deps, {
    path: '/reports/settlement.csv',
    permission: 'reports.export',
    title: 'Reports',
    nav: REPORTS,
    async render(context, request) {
      const period = periodOf(deps, request, context.member.merchantId);
      const days = (await settlementReport(deps, period.window)).filter((d) => !period.currency || d.currency === period.currency);
      await recordAudit(deps.database, { merchantId: context.member.merchantId, ...context.actor, action: 'reports.export', outcome: 'ok', detail: { from: period.values.from!, to: period.values.to! } }, deps.wallClock.now());
      const rows = days.map((d) => [d.day, d.currency, ...[d.captured, d.refunded, d.fees, d.net].map((minor) => formatAmount(minor, d.currency))]);
      return { file: toCsv(CSV_HEADER, rows), name: `settlement-${period.values.from}-${period.values.to}.csv`, type: CSV_TYPE };
    },
  });
}
