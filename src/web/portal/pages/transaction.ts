// One transaction: its facts, the actions the member's role and the payment's state allow, the
// risk decision, the timeline (authorisation, 3-D Secure, captures and voids, refunds, events,
// every notification attempt) and its ledger entries, and its chargebacks when it has any (read
// only: disputes are answered at the acquirer). The actions are in transaction-actions.ts.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../app/context.ts';
import type { DisputeStatus } from '../../../domain/disputes.ts';
import { transactionDetail, type TransactionDetail } from '../../../app/portal/transactions.ts';
import { formatAmount } from '../../../domain/money.ts';
import { html, type Html } from '../../html.ts';
import { formKeyField } from '../form-keys.ts';
import { moneyText, queryOf, timeText } from '../forms.ts';
import { portalPage, type PortalContext } from '../guard.ts';
import { csrfField } from '../layout.ts';
import { may } from '../permissions.ts';

export const TRANSACTIONS = '/portal/transactions';

export function transactionPath(id: string): string {
  return `${TRANSACTIONS}/${encodeURIComponent(id)}`;
}

/** What an action reported through its redirect: names we wrote ourselves, never text from the query. */
const DONE: Record<string, string> = { refund: 'The refund', cancel: 'The cancellation', capture: 'The capture', approve: 'The approval', reject: 'The rejection', replay: 'The notification' };
const OUTCOME: Record<string, string> = {
  succeeded: 'is done.',
  pending: 'is pending at the processor; the gateway asks again until it knows.',
  failed: 'was refused by the processor: the timeline says why.',
};

function notice(values: Record<string, string>): Html {
  const what = values.done ? DONE[values.done] : undefined;
  const outcome = values.done === 'replay' && values.outcome === 'failed' ? 'was not acknowledged by the receiver: its attempts are listed below.' : values.outcome ? OUTCOME[values.outcome] : undefined;
  if (!what || !outcome) return html``;
  return html`<div class="${values.outcome === 'failed' ? 'alert' : 'notice'}" role="status"><p>${what} ${outcome}</p></div>`;
}

function facts(detail: TransactionDetail): Html {
  const p = detail.payment;
  const row = (label: string, value: Html | string) => html`<div><dt>${label}</dt><dd>${value}</dd></div>`;
  return html`<dl class="facts">
${row('Status', html`<span class="status status-${p.status}">${p.status.replace(/_/g, ' ')}</span>`)}
${row('Amount', moneyText(p.amount, p.currency))}
${row('Captured', moneyText(p.capturedAmount, p.currency))}
${row('Refunded', moneyText(p.refundedAmount, p.currency))}
${row('Order number', p.orderNo)}
${row('Account', `${detail.account.name} (${detail.account.id})`)}
${row('Payment method', p.paymentMethod)}
${row('Card', p.cardLast4 ? `${p.cardBrand ?? 'card'} ${p.cardBin ?? ''}…${p.cardLast4}` : '')}
${row('Shopper e-mail', p.shopperEmail ?? '')}
${row('Shopper address', p.shopperIp ?? '')}
${row('Result', p.resultCode ? `${p.resultCode}: ${p.resultMessage ?? ''}` : '')}
${row('Created', timeText(p.createdAt))}
</dl>`;
}

function risk(detail: TransactionDetail): Html {
  const p = detail.payment;
  if (p.riskScore === null && !p.riskAction) return html`<section aria-labelledby="risk"><h2 id="risk">Risk decision</h2><p>No risk decision was recorded.</p></section>`;
  const reasons = p.riskReasons ?? [];
  return html`<section aria-labelledby="risk"><h2 id="risk">Risk decision</h2>
<p><strong>${p.riskAction ?? 'allow'}</strong>, score ${p.riskScore ?? 0}</p>
${reasons.length > 0 ? html`<ul>${reasons.map((reason) => html`<li>${reason.name.replace(/_/g, ' ')}: ${reason.status}</li>`)}</ul>` : ''}
</section>`;
}

/** A dispute's status as staff read it: what happened to their money. */
const CHARGEBACK_STATUS: Record<DisputeStatus, string> = {
  open: 'Open: the amount was taken from your balance',
  reversed: 'Reversed: won, the amount came back',
};

function chargebacks(detail: TransactionDetail): Html {
  if (detail.chargebacks.length === 0) return html``;
  return html`<section aria-labelledby="chargebacks"><h2 id="chargebacks">Chargebacks</h2>
<div class="table-wrap"><table class="data"><thead><tr><th>Chargeback</th><th>Amount</th><th>Reason code</th><th>Reason</th><th>Status</th><th>Opened</th><th>Reversed</th></tr></thead><tbody>
${detail.chargebacks.map(
  (d) =>
    html`<tr><td class="mono">${d.id}</td><td class="num">${moneyText(d.amount, d.currency)}</td><td>${d.reasonCode}</td><td>${d.reason ?? ''}</td><td><span class="status status-chargeback-${d.status}">${CHARGEBACK_STATUS[d.status]}</span></td><td>${timeText(d.openedAt)}</td><td>${timeText(d.reversedAt)}</td></tr>`,
)}</tbody></table></div></section>`;
}

interface Moment {
  readonly at: Date;
  readonly what: string;
  readonly detail: string;
}

function timeline(detail: TransactionDetail): Html {
  const p = detail.payment;
  const { operations, refunds, events, attempts } = detail.history;
  const moments: Moment[] = [
    { at: p.createdAt, what: 'Payment created', detail: `${moneyText(p.amount, p.currency)} by ${p.paymentMethod}` },
    ...(p.threedsResult ? [{ at: p.createdAt, what: '3-D Secure', detail: p.threedsResult }] : []),
    ...operations.map((o) => ({
      at: o.createdAt,
      what: o.kind === 'capture' ? `Capture (${o.origin.replace(/_/g, ' ')})` : `Cancellation (${o.origin.replace(/_/g, ' ')})`,
      detail: `${moneyText(o.amount, o.currency)}: ${o.status}${o.failureReason ? `, ${o.failureReason}` : ''}`,
    })),
    ...refunds.map((r) => ({
      at: r.createdAt,
      what: `Refund ${r.id}`,
      detail: `${moneyText(r.amount, r.currency)}: ${r.status}${r.resultCode && r.status === 'failed' ? `, ${r.resultCode}: ${r.resultMessage ?? ''}` : ''}${r.reason ? ` (${r.reason})` : ''}`,
    })),
    ...events.map((e) => ({ at: e.createdAt, what: `Event ${e.type}`, detail: `notification ${e.id}: ${e.deliveryStatus.replace(/_/g, ' ')}` })),
    ...attempts.map((a) => ({
      at: a.startedAt,
      what: `Notification attempt ${a.attempt} (${a.trigger})`,
      detail: `${a.eventId}: ${a.outcome}${a.httpStatus ? `, HTTP ${a.httpStatus}` : ''}${a.latencyMs !== null ? `, ${a.latencyMs} ms` : ''}${a.error ? `, ${a.error}` : ''}`,
    })),
  ].sort((a, b) => a.at.getTime() - b.at.getTime());
  return html`<section aria-labelledby="timeline"><h2 id="timeline">Timeline</h2>
<ol class="timeline">${moments.map((m) => html`<li><time datetime="${m.at.toISOString()}">${timeText(m.at)}</time> <strong>${m.what}</strong> <span>${m.detail}</span></li>`)}</ol>
</section>`;
}

function ledger(detail: TransactionDetail): Html {
  const entries = detail.history.entries;
  return html`<section aria-labelledby="ledger"><h2 id="ledger">Ledger entries</h2>
${
  entries.length === 0
    ? html`<p>No money has moved yet.</p>`
    : html`<div class="table-wrap"><table class="data"><thead><tr><th>Booked</th><th>Journal</th><th>Kind</th><th>Book</th><th>Debit</th><th>Credit</th></tr></thead><tbody>
${entries.map(
  (e) => html`<tr><td>${timeText(e.bookedAt)}</td><td>${e.journalId}</td><td>${e.kind}</td><td>${e.book.replace(/_/g, ' ')}</td><td class="num">${e.amount > 0 ? formatAmount(e.amount, e.currency) : ''}</td><td class="num">${e.amount < 0 ? formatAmount(-e.amount, e.currency) : ''}</td></tr>`,
)}</tbody></table></div>`
}
</section>`;
}

function notifications(detail: TransactionDetail, context: PortalContext): Html {
  const path = transactionPath(detail.payment.id);
  const replay = may(context.member.role, 'notifications.replay');
  const { events } = detail.history;
  if (events.length === 0) return html``;
  return html`<section aria-labelledby="notifications"><h2 id="notifications">Notifications</h2>
<div class="table-wrap"><table class="data"><thead><tr><th>Notification</th><th>Event</th><th>Delivery</th><th>Attempts</th><th></th></tr></thead><tbody>
${events.map(
  (e) => html`<tr><td>${e.id}</td><td>${e.type}</td><td>${e.deliveryStatus.replace(/_/g, ' ')}</td><td class="num">${e.attempts}</td><td>${
    replay && e.notifyUrl
      ? html`<form method="post" action="${path}/notifications/${encodeURIComponent(e.id)}/replay" class="inline-form">${csrfField(context.csrfToken)}<button class="button small secondary" type="submit">Replay</button></form>`
      : ''
  }</td></tr>`,
)}</tbody></table></div></section>`;
}

function actions(detail: TransactionDetail, context: PortalContext): Html {
  const p = detail.payment;
  const path = transactionPath(p.id);
  const role = context.member.role;
  // The CSRF token, and each form its own one-time key drawn now: sent twice, a form moves the money once (form-keys.ts).
  const hidden = () => html`${csrfField(context.csrfToken)}${formKeyField()}`;
  const forms: Html[] = [];
  if (p.status === 'authorised' && may(role, 'transactions.capture')) {
    forms.push(html`<form method="post" action="${path}/capture" class="panel action-form"><h3>Capture</h3>${hidden()}
<div class="field"><label for="capture-amount">Amount (${p.currency})</label><input id="capture-amount" name="amount" inputmode="decimal" value="${formatAmount(p.amount, p.currency)}" required></div>
<button class="button small" type="submit">Capture</button></form>`);
  }
  if ((p.status === 'authorised' || p.status === 'pending_review') && may(role, 'transactions.cancel')) {
    forms.push(html`<form method="post" action="${path}/cancel" class="panel action-form" data-confirm="Cancel this payment? The hold on the shopper's card is released."><h3>Cancel</h3>${hidden()}
<p>Releases the hold on the shopper's card.</p><button class="button small danger" type="submit">Cancel payment</button></form>`);
  }
  if (p.status === 'pending_review' && may(role, 'transactions.review')) {
    forms.push(html`<form method="post" action="${path}/review" class="panel action-form"><h3>Review</h3>${hidden()}
<p>Risk held this payment for a decision.</p>
<button class="button small" type="submit" name="decision" value="approve">Approve</button> <button class="button small danger" type="submit" name="decision" value="reject">Reject</button></form>`);
  }
  // What a refund may take (src/app/refund/refund.ts): the capture less the refunds done or pending
  // and less what open chargebacks took back, which is with the shopper already.
  const disputed = detail.chargebacks.reduce((sum, d) => (d.status === 'open' ? sum + d.amount : sum), 0);
  const refundable = p.capturedAmount - p.refundReserved - disputed;
  if ((p.status === 'captured' || p.status === 'partially_refunded') && refundable > 0 && may(role, 'transactions.refund')) {
    forms.push(html`<form method="post" action="${path}/refund" class="panel action-form" data-confirm="Refund this amount to the shopper?"><h3>Refund</h3>${hidden()}
<div class="field"><label for="refund-amount">Amount (${p.currency}), up to ${formatAmount(refundable, p.currency)}</label><input id="refund-amount" name="refund_amount" inputmode="decimal" value="${formatAmount(refundable, p.currency)}" required></div>
<div class="field"><label for="refund-reason">Reason (optional)</label><input id="refund-reason" name="refund_reason" maxlength="256"></div>
<button class="button small" type="submit">Refund</button></form>`);
  }
  if (forms.length === 0) return html``;
  return html`<section aria-labelledby="act"><h2 id="act">Actions</h2><div class="action-forms">${forms}</div></section>`;
}

export function transactionRoutes(app: FastifyInstance, deps: Deps): void {
  portalPage<{ Params: { id: string } }>(app, deps, {
    path: '/transactions/:id',
    permission: 'transactions.view',
    title: (request) => `Transaction ${request.params.id}`,
    nav: TRANSACTIONS,
    async render(context, request) {
      const detail = await transactionDetail(deps, context.member.merchantId, request.params.id);
      return html`<p><a href="${TRANSACTIONS}">← Transactions</a></p>
<h1>Transaction <span class="mono">${detail.payment.id}</span></h1>
${notice(queryOf(request))}
${facts(detail)}
${chargebacks(detail)}
${actions(detail, context)}
${risk(detail)}
${timeline(detail)}
${notifications(detail, context)}
${ledger(detail)}`;
    },
  });
}
