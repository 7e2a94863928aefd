// The frame of every portal page: who is signed in (and a sign-out button), the navigation, and
// the page's content; the shared layout (../layout.ts) adds the head and the security headers.
import { html, type Html } from '../html.ts';
import { layout, type Page } from '../layout.ts';
import type { Member } from './member.ts';
import { may, type Permission } from './permissions.ts';

export const PORTAL = '/portal';

/** The navigation: each entry shown to the roles that may view it. */
export const NAVIGATION: readonly { readonly path: string; readonly label: string; readonly permission: Permission }[] = [
  { path: '/portal/transactions', label: 'Transactions', permission: 'transactions.view' },
  { path: '/portal/subscriptions', label: 'Subscriptions', permission: 'subscriptions.view' },
  { path: '/portal/payouts', label: 'Payouts', permission: 'payouts.view' },
  { path: '/portal/balances', label: 'Balances', permission: 'balances.view' },
  { path: '/portal/reports', label: 'Reports', permission: 'reports.view' },
  { path: '/portal/settings', label: 'Settings', permission: 'settings.view' },
  { path: '/portal/members', label: 'Members', permission: 'members.view' },
  { path: '/portal/audit', label: 'Audit log', permission: 'audit.view' },
  { path: '/portal/account', label: 'My account', permission: 'self.manage' },
];

export interface PortalFrame {
  readonly baseUrl: string;
  readonly title: string;
  readonly main: Html;
  readonly status?: number;
}

/** A page for a signed-in member. `current`: the navigation entry to mark. */
export function portalLayout(frame: PortalFrame & { readonly member: Member; readonly merchantName: string; readonly csrfToken: string; readonly current?: string }): Page {
  const entries = NAVIGATION.filter((entry) => may(frame.member.role, entry.permission));
  const main = html`<header class="portal-top">
<span class="portal-brand">Acquiro</span>
<div class="portal-who">
<span>${frame.merchantName}</span>
<span>${frame.member.email}</span>
<span class="role">${frame.member.role}</span>
<form method="post" action="${PORTAL}/sign-out"><input type="hidden" name="_csrf" value="${frame.csrfToken}"><button class="linklike" type="submit">Sign out</button></form>
</div>
</header>
<div class="portal-body">
<nav class="portal-nav" aria-label="Portal">
<ul>
${entries.map((entry) => html`<li><a href="${entry.path}"${entry.path === frame.current ? html` aria-current="page"` : ''}>${entry.label}</a></li>`)}
</ul>
</nav>
<main class="portal-main" id="main">
${frame.main}
</main>
</div>`;
  return layout({
    baseUrl: frame.baseUrl,
    lang: 'en',
    title: `${frame.title} · Acquiro`,
    main,
    styles: ['pages.css', 'portal.css'],
    scripts: ['portal.js', 'submit-once.js'],
    bodyClass: 'portal',
    ...(frame.status ? { status: frame.status } : {}),
  });
}

/** A page without a session: sign-in, second factor, setting a password, a refusal. */
export function narrowLayout(frame: PortalFrame): Page {
  return layout({
    baseUrl: frame.baseUrl,
    lang: 'en',
    title: `${frame.title} · Acquiro`,
    main: html`<header class="portal-top"><span class="portal-brand">Acquiro</span></header>
<main class="portal-narrow" id="main"><div class="panel">${frame.main}</div></main>`,
    styles: ['pages.css', 'portal.css'],
    scripts: ['portal.js', 'submit-once.js'],
    bodyClass: 'portal',
    ...(frame.status ? { status: frame.status } : {}),
  });
}

/** The hidden field every portal form carries. */
export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}
