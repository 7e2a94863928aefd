// The merchant portal, served by the gateway under /portal (docs/portal.md): its own cookies,
// CSRF tokens and error pages inside this plugin's scope, so nothing of it reaches the API. Form
// bodies are read by the gateway's one body parser (a form is what it reads when the body is
// neither JSON nor XML). Each request's session is looked up before its route runs.
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import type { FastifyError, FastifyInstance } from 'fastify';
import type { Deps } from '../../app/context.ts';
import { sessionOf } from '../../app/portal/sessions.ts';
import type { AppError } from '../../domain/errors.ts';
import { pageRefusal, sendPage } from '../../http/page.ts';
import { html } from '../html.ts';
import { authRoutes } from './auth-routes.ts';
import { accountRoutes } from './pages/account.ts';
import { CSRF_COOKIE, SESSION_COOKIE, cookieOptions } from './cookies.ts';
import { narrowLayout } from './layout.ts';
import { auditRoutes } from './pages/audit.ts';
import { membersRoutes } from './pages/members.ts';
import { balancesRoutes } from './pages/balances.ts';
import { payoutsRoutes } from './pages/payouts.ts';
import { reportsRoutes } from './pages/reports.ts';
import { settingsRoutes } from './pages/settings.ts';
import { subscriptionsRoutes } from './pages/subscriptions.ts';
import { transactionActionRoutes } from './pages/transaction-actions.ts';
import { transactionRoutes } from './pages/transaction.ts';
import { transactionsRoutes } from './pages/transactions.ts';

export interface PortalOptions {
  /** Gateways alive on this database: each holds its part of an address's sign-in failure budget. */
  readonly gateways: () => number;
}

/** Registers the portal; give it `{ prefix: '/portal' }`. */
export function portalPlugin(deps: Deps, options: PortalOptions) {
  return async (app: FastifyInstance) => {
    await app.register(fastifyCookie);
    await app.register(fastifyCsrf, {
      sessionPlugin: '@fastify/cookie',
      cookieKey: CSRF_COOKIE,
      cookieOpts: cookieOptions(deps),
      // Tokens are bound to the session (or to "anonymous" before one), so a token taken from
      // one session is no good in another.
      getUserInfo: (request) => request.portal?.session.id ?? 'anonymous',
      csrfOpts: { hmacKey: deps.vault.mac('portal csrf', 'hmac key') },
      logLevel: 'info',
    });

    app.addHook('onRequest', async (request) => {
      const open = await sessionOf(deps, request.cookies[SESSION_COOKIE]);
      if (open) request.portal = open;
    });

    app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
      const { status, headers } = pageRefusal(error, request, 'portal');
      reply.headers(headers);
      const text = status === 403 ? 'This form has expired or did not come from this portal: go back, reload the page and try again.' : status >= 500 ? 'Something went wrong on our side. Nothing was changed; try again.' : 'The request could not be read.';
      return sendPage(reply, narrowLayout({ baseUrl: deps.config.baseUrl, title: 'Not done', main: html`<h1>Not done</h1><div class="alert" role="alert"><p>${text}</p></div><p><a href="/portal">Back to the portal</a></p>`, status }));
    });
    app.setNotFoundHandler((_request, reply) =>
      sendPage(reply, narrowLayout({ baseUrl: deps.config.baseUrl, title: 'Not found', main: html`<h1>Not found</h1><p>There is no such page.</p><p><a href="/portal">Back to the portal</a></p>`, status: 404 })),
    );

    authRoutes(app, deps, options);
    accountRoutes(app, deps);
    transactionsRoutes(app, deps);
    membersRoutes(app, deps);
    auditRoutes(app, deps);
    transactionRoutes(app, deps);
    transactionActionRoutes(app, deps);
    balancesRoutes(app, deps);
    reportsRoutes(app, deps);
    settingsRoutes(app, deps);
    subscriptionsRoutes(app, deps);
    payoutsRoutes(app, deps);
  };
}
