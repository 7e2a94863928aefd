// How a portal page or form is declared: `portalPage` (a GET) and `portalAction` (a POST) check,
// in order, that the post comes from our own site, its CSRF token, the session (signed in, second
// factor done), the member's permission (permissions.ts), and for sensitive actions a fresh
// re-authentication; then the page renders or the action runs. Refusals and actions are written
// to the audit log. A route file declares what it needs and never repeats these checks.
import type {} from '@fastify/csrf-protection';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteGenericInterface } from 'fastify';
import type { Deps } from '../../app/context.ts';
import { recordAudit } from '../../app/portal/audit.ts';
import { PortalRefusal, type Actor } from '../../app/portal/refusal.ts';
import { actorOf, isFresh, reauthenticate, type OpenSession } from '../../app/portal/sessions.ts';
import { secondsUntil } from '../../app/portal/sign-in.ts';
import { merchantName } from '../../db/repositories/checkout.ts';
import { redirect, sendPage } from '../../http/page.ts';
import type { Html } from '../html.ts';
import { isCrossSite } from '../security.ts';
import { narrowLayout, portalLayout } from './layout.ts';
import type { Member } from './member.ts';
import { may, type Permission } from './permissions.ts';
import { confirmPage, refusalPage } from './pages/refusals.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's portal session, when its cookie opens one (plugin.ts). */
    portal?: OpenSession;
  }
}

/** What a page's render and an action's handler are given. */
export interface PortalContext {
  readonly member: Member;
  readonly session: OpenSession['session'];
  /** The token every form on the page carries (csrfField). */
  readonly csrfToken: string;
  readonly merchantName: string;
  /** Who acts, for the audit log of a use case that writes its own row. */
  readonly actor: Actor;
}

export interface PageSpec<R extends RouteGenericInterface> {
  /** Under /portal, e.g. `/transactions/:id`. */
  readonly path: string;
  readonly permission: Permission;
  readonly title: string | ((request: FastifyRequest<R>) => string);
  /** The navigation entry to mark (its path); the page's own path when absent. */
  readonly nav?: string;
  /** The page's content, or a file to download (a CSV export is a GET with the page's filters). */
  readonly render: (context: PortalContext, request: FastifyRequest<R>) => Promise<Html | FileAnswer>;
}

export interface FileAnswer {
  readonly file: string;
  readonly name: string;
  readonly type: string;
}

function sendFile(reply: FastifyReply, answer: FileAnswer) {
  return reply
    .code(200)
    .header('content-type', answer.type)
    .header('content-disposition', `attachment; filename="${answer.name.replace(/[^A-Za-z0-9._-]/g, '_')}"`)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(answer.file);
}

export type ActionResult =
  /** See other: the browser GETs `redirect` next (a reload never posts twice). */
  | { readonly redirect: string; readonly target?: string; readonly audited?: boolean }
  /** A page in answer (a form shown again with its errors: status 400, outcome refused). */
  | { readonly page: Html; readonly title: string; readonly status?: number; readonly outcome?: 'ok' | 'refused'; readonly target?: string; readonly audited?: boolean }
  /** A file (a CSV export). */
  | (FileAnswer & { readonly target?: string; readonly audited?: boolean });

export interface ActionSpec<R extends RouteGenericInterface> {
  readonly path: string;
  readonly permission: Permission;
  /** The audit log's name of the action; the permission when absent. */
  readonly audit?: string;
  /** Ask for the password (and TOTP) again unless confirmed in the last minutes: always, or when this says so. */
  readonly reauth?: boolean | ((request: FastifyRequest<R>, context: PortalContext) => boolean | Promise<boolean>);
  readonly handle: (context: PortalContext, request: FastifyRequest<R>, reply: FastifyReply) => Promise<ActionResult>;
}

const SIGN_IN = '/portal/sign-in';

/** Every page and action declared through the guard, with the permission it needs (the permission tests walk it). */
export const DECLARED = new Map<string, { readonly method: 'GET' | 'POST'; readonly path: string; readonly permission: Permission; readonly reauth: boolean }>();

function declare(method: 'GET' | 'POST', path: string, permission: Permission, reauth: boolean): void {
  DECLARED.set(`${method} /portal${path}`, { method, path: `/portal${path}`, permission, reauth });
}

/** Where a session that is not (yet) fully signed in goes. */
function pendingStep(open: OpenSession | undefined): string | undefined {
  if (!open) return SIGN_IN;
  if (open.session.status === 'second_factor') return '/portal/second-factor';
  if (open.session.status === 'enrol') return '/portal/enrol';
  return undefined;
}

function memberOf(open: OpenSession): Member {
  return { userId: open.member.id, merchantId: open.member.merchantId, email: open.member.email, role: open.member.role };
}

async function contextOf(deps: Deps, request: FastifyRequest, reply: FastifyReply, open: OpenSession): Promise<PortalContext> {
  return {
    member: memberOf(open),
    session: open.session,
    csrfToken: reply.generateCsrf({ userInfo: open.session.id }),
    merchantName: await merchantName(deps.database.db, open.member.merchantId),
    actor: actorOf(open, request.ip),
  };
}

export function sendFrame(deps: Deps, reply: FastifyReply, context: PortalContext, page: { title: string; main: Html; status?: number; nav?: string }) {
  return sendPage(
    reply,
    portalLayout({
      baseUrl: deps.config.baseUrl,
      title: page.title,
      main: page.main,
      member: context.member,
      merchantName: context.merchantName,
      csrfToken: context.csrfToken,
      ...(page.nav ? { current: page.nav } : {}),
      ...(page.status ? { status: page.status } : {}),
    }),
  );
}

async function refuse(deps: Deps, reply: FastifyReply, context: PortalContext, action: string, reason: string, status: 403 | 404 | 400 | 409, title = 'Not allowed') {
  await recordAudit(deps.database, { merchantId: context.member.merchantId, ...context.actor, action, target: null, outcome: 'refused', detail: { reason } }, deps.wallClock.now());
  return sendFrame(deps, reply, context, { title, main: refusalPage(reason), status });
}

export function portalPage<R extends RouteGenericInterface = RouteGenericInterface>(app: FastifyInstance, deps: Deps, spec: PageSpec<R>): void {
  declare('GET', spec.path, spec.permission, false);
  app.get(spec.path, async (request, reply) => {
    const step = pendingStep(request.portal);
    if (step) return redirect(reply, step);
    const context = await contextOf(deps, request, reply, request.portal!);
    if (!may(context.member.role, spec.permission)) return refuse(deps, reply, context, spec.permission, 'your role does not allow this page', 403);
    const title = typeof spec.title === 'string' ? spec.title : spec.title(request as FastifyRequest<R>);
    try {
      const main = await spec.render(context, request as FastifyRequest<R>);
      if ('file' in main) return sendFile(reply, main);
      return sendFrame(deps, reply, context, { title, main, nav: spec.nav ?? `/portal${spec.path}` });
    } catch (error) {
      if (!(error instanceof PortalRefusal)) throw error;
      return sendFrame(deps, reply, context, { title, main: refusalPage(error.message), status: error.status });
    }
  });
}

function bodyOf(request: FastifyRequest): Record<string, unknown> {
  return typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>) : {};
}

/** Text fields of a form body (anything else is dropped): what an action reads, once portalAction has refused a body holding anything else. */
export function formOf(request: FastifyRequest): Record<string, string> {
  return Object.fromEntries(Object.entries(bodyOf(request)).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/**
 * Why a form body is refused before an action reads it: a field that is not one text value (a list
 * or a group in bracket notation, a JSON number). Dropped, it would read as left out, and a
 * capture without `amount` captures the whole authorisation. Our pages' forms post text only.
 */
function notTextRefusal(request: FastifyRequest): string | undefined {
  const name = Object.entries(bodyOf(request)).find(([, value]) => typeof value !== 'string')?.[0];
  if (name === undefined) return undefined;
  const shown = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name) ? name : 'a field';
  return `${shown} is invalid: expected one text value, as the page's form sends it`;
}

/** A POST sent from another site is answered 403 here (a preHandler). */
export function fromOurSite(deps: Deps) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (isCrossSite(request.headers, deps.config.baseUrl)) {
      request.log.info({ status: 403 }, 'portal post from another site refused');
      return sendPage(reply, narrowLayout({ baseUrl: deps.config.baseUrl, title: 'Not allowed', main: refusalPage('This form was sent from another site.'), status: 403 }));
    }
  };
}

/**
 * Every POST under /portal: from our own site, with the CSRF token bound to its session (or to no
 * session, before sign-in). `beforeToken` answers first what the token would refuse for a reason
 * it cannot tell (a sign-in step sent with a session that is no more: auth-routes.ts).
 */
export function checkPost(app: FastifyInstance, deps: Deps, beforeToken?: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) {
  return beforeToken ? [fromOurSite(deps), beforeToken, app.csrfProtection] : [fromOurSite(deps), app.csrfProtection];
}

export function portalAction<R extends RouteGenericInterface = RouteGenericInterface>(app: FastifyInstance, deps: Deps, spec: ActionSpec<R>): void {
  const action = spec.audit ?? spec.permission;
  declare('POST', spec.path, spec.permission, spec.reauth !== undefined && spec.reauth !== false);
  app.post(spec.path, { preHandler: checkPost(app, deps) }, async (request, reply) => {
    const step = pendingStep(request.portal);
    if (step) return redirect(reply, step);
    const open = request.portal!;
    const context = await contextOf(deps, request, reply, open);
    if (!may(context.member.role, spec.permission)) return refuse(deps, reply, context, action, 'your role does not allow this action', 403);
    const notText = notTextRefusal(request);
    if (notText) return refuse(deps, reply, context, action, notText, 400, 'Not done');
    const wantsReauth = typeof spec.reauth === 'function' ? await spec.reauth(request as FastifyRequest<R>, context) : spec.reauth === true;
    if (wantsReauth && !isFresh(deps, open.session)) {
      const form = formOf(request);
      const password = form._reauth_password;
      const verdict = password === undefined ? undefined : await reauthenticate(deps, open, { password, code: form._reauth_code ?? '', ip: request.ip });
      if (verdict?.outcome !== 'ok') {
        // Locked (here or at sign-in): the action waits for the lock to end, its form kept; the session stays.
        const lockedFor = verdict?.outcome === 'locked' ? secondsUntil(verdict.until, deps.wallClock.now()) : undefined;
        if (lockedFor !== undefined) reply.header('retry-after', String(lockedFor));
        const fields = Object.entries(form).filter(([name]) => !name.startsWith('_'));
        const failed = lockedFor !== undefined ? { lockedFor } : verdict?.outcome === 'changed' ? { changed: true as const } : verdict ? { wrong: true as const } : undefined;
        return sendFrame(deps, reply, context, {
          title: 'Confirm it is you',
          main: confirmPage({ action: request.url.split('?', 1)[0]!, csrfToken: context.csrfToken, fields, secondFactor: open.member.totpSecret !== null, ...(failed ? { failed } : {}) }),
          status: lockedFor !== undefined ? 429 : verdict?.outcome === 'changed' ? 409 : verdict ? 403 : 200,
        });
      }
    }
    const at = () => deps.wallClock.now();
    const audit = (outcome: 'ok' | 'refused' | 'failed', target: string | null | undefined, detail?: Record<string, string>) =>
      recordAudit(deps.database, { merchantId: context.member.merchantId, ...context.actor, action, target: target ?? null, outcome, ...(detail ? { detail } : {}) }, at());
    let result: ActionResult;
    try {
      result = await spec.handle(context, request as FastifyRequest<R>, reply);
    } catch (error) {
      if (!(error instanceof PortalRefusal)) {
        await audit('failed', null);
        throw error;
      }
      await audit('refused', null, { reason: error.message });
      return sendFrame(deps, reply, context, { title: 'Not done', main: refusalPage(error.message), status: error.status });
    }
    if (!result.audited) await audit('page' in result ? (result.outcome ?? 'ok') : 'ok', result.target);
    if ('redirect' in result) return redirect(reply, result.redirect);
    if ('file' in result) return sendFile(reply, result);
    return sendFrame(deps, reply, context, { title: result.title, main: result.page, ...(result.status ? { status: result.status } : {}) });
  });
}
