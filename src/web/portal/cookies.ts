// The session cookie: HttpOnly, SameSite=Strict, scoped to /portal, and Secure unless the gateway
// is served on a loopback address (a developer's http://127.0.0.1). No Max-Age: it ends with the
// browser, and the server ends it sooner (idle 15 minutes, absolute limit).
import type { FastifyReply } from 'fastify';
import type { Deps } from '../../app/context.ts';

export const SESSION_COOKIE = 'acquiro_portal';
export const CSRF_COOKIE = 'acquiro_portal_csrf';

export function isLoopback(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function cookieOptions(deps: Pick<Deps, 'config'>) {
  return { path: '/portal', httpOnly: true, sameSite: 'strict', secure: !isLoopback(deps.config.baseUrl) } as const;
}

export function setSessionCookie(reply: FastifyReply, deps: Pick<Deps, 'config'>, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, cookieOptions(deps));
}

export function clearSessionCookie(reply: FastifyReply, deps: Pick<Deps, 'config'>): void {
  reply.clearCookie(SESSION_COOKIE, cookieOptions(deps));
}
