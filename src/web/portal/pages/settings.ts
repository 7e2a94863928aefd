// Settings, per account of the merchant: rotate the API key (re-authenticate; the new secret is
// shown once, on the answer to the post, never stored in clear or put in a URL), the addresses
// allowed to query, the storefronts allowed to frame the hosted page, and a notification URL check.
// Every change is refused (4410) on an account an operator disabled, as its API requests are.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../app/context.ts';
import { allowQueryIp, changeStorefront, checkNotifyUrl, forbidQueryIp, queryIpsOf, storefrontsOf } from '../../../app/merchants/access.ts';
import { rotateKey } from '../../../app/merchants/credentials.ts';
import { asRefusal } from '../../../app/portal/api-refusal.ts';
import { refuseDisabledAccount } from '../../../app/portal/disabled-account.ts';
import { PortalRefusal } from '../../../app/portal/refusal.ts';
import { merchantAccounts } from '../../../db/repositories/portal-transactions.ts';
import type { AccountRow } from '../../../db/schema.ts';
import { html, type Html } from '../../html.ts';
import { formOf, portalAction, portalPage, type PortalContext } from '../guard.ts';
import { queryOf, textField } from '../forms.ts';
import { csrfField } from '../layout.ts';
import { may } from '../permissions.ts';

const SETTINGS = '/portal/settings';
type Params = { Params: { accountId: string } };

const DONE: Record<string, string> = {
  'ip-added': 'The address was added.',
  'ip-removed': 'The address was removed.',
  'storefront-added': 'The storefront was added.',
  'storefront-removed': 'The storefront was removed.',
};

function accountPath(accountId: string): string {
  return `${SETTINGS}/accounts/${encodeURIComponent(accountId)}`;
}

function listForm(path: string, csrf: Html, name: string, value: string, label: string, canChange: boolean): Html {
  return html`<li><span class="mono">${value}</span>${
    canChange ? html` <form method="post" action="${path}" class="inline-form">${csrf}<input type="hidden" name="${name}" value="${value}"><button class="linklike" type="submit" aria-label="${label} ${value}">${label}</button></form>` : ''
  }</li>`;
}

async function accountSection(deps: Deps, context: PortalContext, account: AccountRow): Promise<Html> {
  const merchantId = context.member.merchantId;
  const [ips, storefronts] = await Promise.all([queryIpsOf(deps, merchantId, account.id), storefrontsOf(deps, merchantId, account.id)]);
  const path = accountPath(account.id);
  const csrf = csrfField(context.csrfToken);
  const change = may(context.member.role, 'settings.change');
  const rotate = may(context.member.role, 'settings.rotate-key');
  return html`<section class="settings-account" aria-labelledby="acct-${account.id}">
<h2 id="acct-${account.id}">${account.name} <span class="mono">${account.id}</span></h2>
<p>merchant_id <span class="mono">${merchantId}</span>, account_id <span class="mono">${account.id}</span>, capture ${account.captureMode}, ${account.status}</p>
<h3>API key</h3>
<p>The secret key signs every request and notification. Rotating issues a new one; the old one keeps working for a grace period so you can deploy the new one.</p>
${rotate ? html`<form method="post" action="${path}/rotate-key" data-confirm="Issue a new secret key? The current one stops working after the grace period.">${csrf}<button class="button small" type="submit">Rotate the secret key</button></form>` : ''}
<h3>Addresses allowed to query</h3>
${ips.length === 0 ? html`<p>None: no address may call the query operations.</p>` : html`<ul>${ips.map((cidr) => listForm(`${path}/query-ips/remove`, csrf, 'cidr', cidr, 'Remove', change))}</ul>`}
${change ? html`<form method="post" action="${path}/query-ips/add" class="inline-fields">${csrf}<div class="field"><label for="ip-${account.id}">Address or block</label><input id="ip-${account.id}" name="cidr" placeholder="203.0.113.7 or 203.0.113.0/24" required></div><button class="button small" type="submit">Add</button></form>` : ''}
<h3>Storefronts allowed to frame the payment page</h3>
${storefronts.length === 0 ? html`<p>None: no site may frame the hosted page.</p>` : html`<ul>${storefronts.map((domain) => listForm(`${path}/storefronts/remove`, csrf, 'domain', domain, 'Remove', change))}</ul>`}
${change ? html`<form method="post" action="${path}/storefronts/add" class="inline-fields">${csrf}<div class="field"><label for="sf-${account.id}">Site</label><input id="sf-${account.id}" name="domain" placeholder="https://shop.example" required></div><button class="button small" type="submit">Add</button></form>` : ''}
<h3>Notification URL check</h3>
<p>Sends one signed POST with <code>notify_type</code> <code>url_check</code> to the URL, as notifications are sent, and shows what it answered.</p>
${change ? html`<form method="post" action="${path}/notify-url/check" class="inline-fields">${csrf}<div class="field"><label for="nu-${account.id}">Notification URL</label><input id="nu-${account.id}" name="notify_url" type="url" placeholder="https://shop.example/notify" required></div><button class="button small" type="submit">Check</button></form>` : ''}
</section>`;
}

function requiredField(form: Record<string, string>, name: string): string {
  const value = textField(form, name, { max: 2048, hint: 'a value' });
  if (value === undefined) throw new PortalRefusal(`${name} is missing`, { field: name });
  return value.trim();
}

export function settingsRoutes(app: FastifyInstance, deps: Deps): void {
  portalPage(app, deps, {
    path: '/settings',
    permission: 'settings.view',
    title: 'Settings',
    async render(context, request) {
      const accounts = await merchantAccounts(deps.database.db, context.member.merchantId);
      const done = DONE[queryOf(request).done ?? ''];
      return html`<h1>Settings</h1>
${done ? html`<div class="notice" role="status"><p>${done}</p></div>` : ''}
${await Promise.all(accounts.map((account) => accountSection(deps, context, account)))}`;
    },
  });

  portalAction<Params>(app, deps, {
    path: '/settings/accounts/:accountId/rotate-key',
    permission: 'settings.rotate-key',
    reauth: true,
    async handle(context, request) {
      await refuseDisabledAccount(deps, context.member.merchantId, request.params.accountId);
      const rotated = await asRefusal(() => rotateKey(deps, context.member.merchantId, request.params.accountId));
      return {
        title: 'New secret key',
        target: request.params.accountId,
        page: html`<h1>New secret key</h1>
<div class="notice" role="status"><p>Copy it now: it is shown this once. The previous key keeps working until ${rotated.previous_key_expires_at}.</p></div>
<p>account_id <span class="mono">${rotated.account_id}</span></p>
<p class="secret-text" id="new-secret">${rotated.secret_key}</p>
<p><a href="${SETTINGS}">Back to settings</a></p>`,
      };
    },
  });

  const change = (suffix: string, field: string, done: string, run: (context: PortalContext, accountId: string, value: string) => Promise<unknown>) =>
    portalAction<Params>(app, deps, {
      path: `/settings/accounts/:accountId/${suffix}`,
      permission: 'settings.change',
      audit: `settings.${suffix.replace('/', '.')}`,
      async handle(context, request) {
        await refuseDisabledAccount(deps, context.member.merchantId, request.params.accountId);
        await asRefusal(() => run(context, request.params.accountId, requiredField(formOf(request), field)));
        return { redirect: `${SETTINGS}?done=${done}#acct-${encodeURIComponent(request.params.accountId)}`, target: request.params.accountId };
      },
    });
  change('query-ips/add', 'cidr', 'ip-added', (context, accountId, value) => allowQueryIp(deps, context.member.merchantId, accountId, value));
  change('query-ips/remove', 'cidr', 'ip-removed', (context, accountId, value) => forbidQueryIp(deps, context.member.merchantId, accountId, value));
  change('storefronts/add', 'domain', 'storefront-added', (context, accountId, value) => changeStorefront(deps, context.member.merchantId, accountId, 'add', value));
  change('storefronts/remove', 'domain', 'storefront-removed', (context, accountId, value) => changeStorefront(deps, context.member.merchantId, accountId, 'remove', value));

  portalAction<Params>(app, deps, {
    path: '/settings/accounts/:accountId/notify-url/check',
    permission: 'settings.change',
    audit: 'settings.notify-url.check',
    async handle(context, request) {
      await refuseDisabledAccount(deps, context.member.merchantId, request.params.accountId);
      const url = requiredField(formOf(request), 'notify_url');
      const result = await asRefusal(() => checkNotifyUrl(deps, context.member.merchantId, request.params.accountId, url));
      return {
        title: 'Notification URL check',
        target: request.params.accountId,
        outcome: result.reached ? 'ok' : 'refused',
        page: html`<h1>Notification URL check</h1>
<p class="mono">${url}</p>
${
  result.reached
    ? html`<div class="${result.httpStatus >= 200 && result.httpStatus < 300 ? 'notice' : 'alert'}" role="status"><p>The receiver answered HTTP ${result.httpStatus} in ${result.latencyMs} ms.${result.httpStatus >= 200 && result.httpStatus < 300 ? ' Notifications will be acknowledged.' : ' Notifications are acknowledged only by a 2xx answer.'}</p></div>`
    : html`<div class="alert" role="alert"><p>Not reached: ${result.reason}</p></div>`
}
<p><a href="${SETTINGS}">Back to settings</a></p>`,
      };
    },
  });
}
