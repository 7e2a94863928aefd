// Signing in and out: /portal/sign-in, /second-factor, /enrol, /set-password, /sign-out. Every
// form posts back with its CSRF token (bound to the session, or to none before one exists); each
// successful step sets a new session cookie. Failed passwords are counted per member (the lockout,
// src/app/portal/sign-in.ts) and per client address (the API's FailureLimiter, on the wall
// clock, taken before each password is checked): past the address's budget every password from it
// is refused, right or wrong, before any member is looked up.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../app/context.ts';
import { linkMember, setPasswordWithLink } from '../../app/portal/links.ts';
import { PortalRefusal } from '../../app/portal/refusal.ts';
import { confirmEnrolment, endReplacedSession, enrolmentOf, finishedSignIn, reauthenticate, signOut, type OpenSession } from '../../app/portal/sessions.ts';
import { completeSecondFactor, secondsUntil, signIn } from '../../app/portal/sign-in.ts';
import { redirect, sendPage } from '../../http/page.ts';
import { FailureLimiter, gatewayShare } from '../../http/plugins/rate-limit.ts';
import type { Html } from '../html.ts';
import { checkPost, formOf, fromOurSite } from './guard.ts';
import { narrowLayout } from './layout.ts';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie } from './cookies.ts';
import { lockedText } from './pages/refusals.ts';
import { enrolForm, enrolmentTakenPage, linkGonePage, recoveryCodesPage, secondFactorForm, setPasswordForm, signInForm, signInStepDonePage } from './pages/sign-in.ts';
import type { PortalOptions } from './plugin.ts';

const HOME = '/portal/transactions';
/** The sign-in page's notice, by the `ended` of a redirect to it (/portal/sign-in?ended=…). */
const ENDED_NOTICES: ReadonlyMap<string, string> = new Map([
  ['everywhere', 'You are signed out on every device.'],
  ['password', 'Your password is set: sign in with it.'],
  ['expired', 'Your sign-in has expired: sign in again.'],
]);

/** Enrolment at sign-in (required for owners and admins), or a signed-in member's own choice (confirmed by password). */
function enrolMode(open: OpenSession) {
  const signedIn = open.session.status === 'active';
  return { required: open.session.status === 'enrol', ...(signedIn ? { confirm: { current: open.member.totpSecret !== null } } : {}) };
}

export function authRoutes(app: FastifyInstance, deps: Deps, options: PortalOptions): void {
  const page = (reply: FastifyReply, title: string, main: Html, status = 200) =>
    sendPage(reply, narrowLayout({ baseUrl: deps.config.baseUrl, title, main, status }));
  const csrf = (request: FastifyRequest, reply: FastifyReply) => reply.generateCsrf({ userInfo: request.portal?.session.id ?? 'anonymous' });
  const post = { preHandler: checkPost(app, deps) };
  // A sign-in step (the second factor, or enrolment at sign-in) sent with the cookie of a session
  // that is no more. The form's CSRF token was bound to that session, so it would be refused as
  // "This form has expired"; the database says instead which it was. Another sending of the same
  // form finished the sign-in lately, replacing the session it came with: answered as done,
  // changing nothing and leaving the cookie the other answer set, which a browser that shows this
  // answer last must keep. Otherwise the sign-in expired or ended (or the cookie never opened
  // one): the member signs in again, told why; the cookie is left too, as it opens nothing, and the
  // sign-in page leads a browser holding a newer one to the portal. (Enrolment from My account
  // carries the password: not a sign-in step.)
  const stepGone = async (request: FastifyRequest, reply: FastifyReply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (request.portal || token === undefined || formOf(request)._reauth_password !== undefined) return;
    if (await finishedSignIn(deps, token)) return page(reply, 'Already done', signInStepDonePage(), 409);
    return redirect(reply, '/portal/sign-in?ended=expired');
  };
  const signInStep = { preHandler: checkPost(app, deps, stepGone) };
  // Each gateway holds its part of an address's budget, as for the API's failed authentications.
  const failures = new FailureLimiter(() => gatewayShare(deps.config.portalFailureLimit, options.gateways()));
  const now = () => deps.wallClock.now().getTime();
  const tooMany = (request: FastifyRequest, reply: FastifyReply, email: string, retryAfter: number) => {
    reply.header('retry-after', String(retryAfter));
    const error = 'Too many failed sign-ins from your network: wait a moment and try again.';
    return page(reply, 'Sign in', signInForm({ csrfToken: csrf(request, reply), email, error }), 429);
  };

  app.get('/', async (request, reply) => redirect(reply, request.portal ? HOME : '/portal/sign-in'));

  app.get<{ Querystring: { ended?: string } }>('/sign-in', async (request, reply) => {
    if (request.portal?.session.status === 'active') return redirect(reply, HOME);
    const notice = ENDED_NOTICES.get(request.query.ended ?? '');
    return page(reply, 'Sign in', signInForm({ csrfToken: csrf(request, reply), ...(notice ? { notice } : {}) }));
  });

  app.post('/sign-in', post, async (request, reply) => {
    const form = formOf(request);
    const email = (form.email ?? '').slice(0, 320);
    // Each sign-in takes a failure from the address's budget before its password is checked, and
    // gives it back only when it succeeds: sign-ins sent at once are counted as they arrive, so a
    // burst cannot have more passwords checked than the budget holds (counted as each ended, every
    // one of them passed while the first were still hashing).
    const gate = failures.take(request.ip, now());
    if (!gate.allowed) return tooMany(request, reply, email, gate.retryAfter);
    const result = await signIn(deps, { email, password: (form.password ?? '').slice(0, 1000), ip: request.ip }).catch((error: unknown) => {
      failures.giveBack(request.ip, now()); // a fault (the database away) is no failed password
      throw error;
    });
    if (result.ok) failures.giveBack(request.ip, now());
    else {
      // Every refused password counts, a locked member's too: the failure taken stays taken.
      const error = result.reason === 'locked' ? 'Too many failed attempts: this account is locked for 15 minutes.' : 'The e-mail or password is not right.';
      return page(reply, 'Sign in', signInForm({ csrfToken: csrf(request, reply), email, error }), result.reason === 'locked' ? 429 : 401);
    }
    // The session that may have come with the request ends: a new one replaces it.
    await endReplacedSession(deps, request.portal);
    setSessionCookie(reply, deps, result.token);
    return redirect(reply, result.status === 'active' ? HOME : result.status === 'enrol' ? '/portal/enrol' : '/portal/second-factor');
  });

  app.get('/second-factor', async (request, reply) => {
    if (request.portal?.session.status !== 'second_factor') return redirect(reply, request.portal ? HOME : '/portal/sign-in');
    return page(reply, 'Two-step verification', secondFactorForm({ csrfToken: csrf(request, reply) }));
  });

  app.post('/second-factor', signInStep, async (request, reply) => {
    const open = request.portal;
    if (open?.session.status !== 'second_factor') return redirect(reply, '/portal/sign-in');
    const result = await completeSecondFactor(deps, { session: open.session, code: (formOf(request).code ?? '').slice(0, 40), ip: request.ip });
    // A form sent twice: the other sending signed in, and its answer sets the cookie.
    if (!result.ok && result.reason === 'ended') return redirect(reply, HOME);
    if (!result.ok) {
      const error = result.reason === 'locked' ? 'Too many failed attempts: this account is locked for 15 minutes.' : 'That code is not right.';
      return page(reply, 'Two-step verification', secondFactorForm({ csrfToken: csrf(request, reply), error }), result.reason === 'locked' ? 429 : 401);
    }
    setSessionCookie(reply, deps, result.token);
    return redirect(reply, HOME);
  });

  // Enrolment: required at the first sign-in of an owner or admin, or chosen from My account.
  app.get('/enrol', async (request, reply) => {
    const open = request.portal;
    if (!open || open.session.status === 'second_factor') return redirect(reply, '/portal/sign-in');
    const enrolment = await enrolmentOf(deps, open);
    return page(reply, 'Two-step verification', enrolForm({ csrfToken: csrf(request, reply), ...enrolment, ...enrolMode(open) }));
  });

  app.post('/enrol', signInStep, async (request, reply) => {
    const open = request.portal;
    if (!open || open.session.status === 'second_factor') return redirect(reply, '/portal/sign-in');
    const form = formOf(request);
    // A signed-in member replacing (or adding) its second factor confirms it is them first.
    const verdict = open.session.status === 'active' ? await reauthenticate(deps, open, { password: form._reauth_password ?? '', code: form._reauth_code ?? '', ip: request.ip }) : undefined;
    const confirmed = verdict === undefined || verdict.outcome === 'ok';
    const result = confirmed ? await confirmEnrolment(deps, open, { code: (form.code ?? '').slice(0, 40), ip: request.ip }) : { ok: false as const, reason: 'wrong code' as const };
    if (!result.ok && result.reason === 'ended') {
      clearSessionCookie(reply, deps);
      return redirect(reply, '/portal/sign-in');
    }
    // This key confirmed by another request (the form sent twice), or the factor changed by one meanwhile.
    if ((!result.ok && result.reason === 'confirmed') || verdict?.outcome === 'changed') return page(reply, 'Two-step verification', enrolmentTakenPage(), 409);
    if (!result.ok) {
      const enrolment = await enrolmentOf(deps, open);
      // Locked (here or at sign-in): nothing changes until the lock ends; the session stays.
      const lockedFor = verdict?.outcome === 'locked' ? secondsUntil(verdict.until, deps.wallClock.now()) : undefined;
      if (lockedFor !== undefined) reply.header('retry-after', String(lockedFor));
      const error = lockedFor !== undefined ? lockedText(lockedFor) : confirmed ? 'That code is not right: check the key and try again.' : 'Your password or current code is not right.';
      return page(reply, 'Two-step verification', enrolForm({ csrfToken: csrf(request, reply), ...enrolment, ...enrolMode(open), error }), lockedFor !== undefined ? 429 : 400);
    }
    if (result.token) setSessionCookie(reply, deps, result.token);
    return page(reply, 'Recovery codes', recoveryCodesPage(result.recoveryCodes, result.token ? HOME : '/portal/account'));
  });

  app.get<{ Querystring: { token?: string } }>('/set-password', async (request, reply) => {
    const member = await linkMember(deps, request.query.token);
    if (!member) return page(reply, 'Link not valid', linkGonePage(), 404);
    return page(reply, 'Choose a password', setPasswordForm({ csrfToken: csrf(request, reply), token: request.query.token!, email: member.email }));
  });

  app.post('/set-password', post, async (request, reply) => {
    const form = formOf(request);
    const token = form.token ?? '';
    try {
      await setPasswordWithLink(deps, { token, password: form.password ?? '', ip: request.ip });
    } catch (error) {
      if (!(error instanceof PortalRefusal)) throw error;
      const member = await linkMember(deps, token);
      if (!member) return page(reply, 'Link not valid', linkGonePage(), 404);
      return page(reply, 'Choose a password', setPasswordForm({ csrfToken: csrf(request, reply), token, email: member.email, error: error.message }), 400);
    }
    clearSessionCookie(reply, deps);
    return redirect(reply, '/portal/sign-in?ended=password');
  });

  // A page left open past its session's end still signs out: with no session there is nothing a
  // forged post could end, so the form's token (bound to the session that is gone, and refused
  // now) is asked only of a live session; the post must still come from this site.
  const signOutChecks = [fromOurSite(deps), (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => (request.portal ? app.csrfProtection(request, reply, done) : done())];
  app.post('/sign-out', { preHandler: signOutChecks }, async (request, reply) => {
    if (request.portal) await signOut(deps, request.portal, request.ip);
    clearSessionCookie(reply, deps);
    return redirect(reply, '/portal/sign-in');
  });
}

