// My account: one's own second factor (turn on, or replace with a new key) and sessions (sign
// out everywhere). Every role has it.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../app/context.ts';
import { signOutEverywhere } from '../../../app/portal/sessions.ts';
import { unusedRecoveryCodes } from '../../../db/repositories/portal-users.ts';
import { html } from '../../html.ts';
import { clearSessionCookie } from '../cookies.ts';
import { portalAction, portalPage } from '../guard.ts';
import { csrfField } from '../layout.ts';

export function accountRoutes(app: FastifyInstance, deps: Deps): void {
  portalPage(app, deps, {
    path: '/account',
    permission: 'self.manage',
    title: 'My account',
    render: async (context, request) => {
      const enrolled = request.portal!.member.totpSecret !== null;
      const codes = enrolled ? await unusedRecoveryCodes(deps.database.db, context.member.userId) : 0;
      return html`<h1>My account</h1>
<section class="panel">
<h2>Two-step verification</h2>
<p id="second-factor-state">${enrolled ? `On. ${codes} recovery codes left.` : 'Off.'}</p>
<p><a class="button secondary" href="/portal/enrol">${enrolled ? 'Use a new authenticator key' : 'Turn on two-step verification'}</a></p>
</section>
<section class="panel">
<h2>Sessions</h2>
<p>Sign out on every device where you are signed in, this one included.</p>
<form method="post" action="/portal/account/sign-out-everywhere" data-confirm="Sign out on every device?">${csrfField(context.csrfToken)}<button class="button secondary" type="submit">Sign out everywhere</button></form>
</section>`;
    },
  });

  portalAction(app, deps, {
    path: '/account/sign-out-everywhere',
    permission: 'self.manage',
    audit: 'sign-out.everywhere',
    handle: async (_context, request, reply) => {
      await signOutEverywhere(deps, request.portal!, request.ip);
      clearSessionCookie(reply, deps);
      return { redirect: '/portal/sign-in?ended=everywhere', audited: true };
    },
  });
}
