// Answers of the shopper-facing routes: a rendered page with its security headers, or a 303 to
// the next page. A shopper's page never answers in the merchants' XML or JSON.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../app/context.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { AppError } from '../domain/errors.ts';
import { pickLanguage } from '../web/i18n.ts';
import type { Page } from '../web/layout.ts';
import { messagePage } from '../web/pages/message.ts';
import { databaseAway } from './plugins/errors.ts';

export function sendPage(reply: FastifyReply, page: Page): FastifyReply {
  return reply.code(page.status).headers(page.headers).send(page.body);
}

/** See other: after a POST the browser GETs the next page, so a reload never posts twice. */
export function redirect(reply: FastifyReply, url: string): FastifyReply {
  return reply.code(303).header('location', url).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').send();
}

/** The shopper's languages, best first: the request's browser_lang and default_lang, then the browser's own. */
export function languageOf(request: FastifyRequest, stored: { readonly browser_lang?: unknown; readonly default_lang?: unknown } = {}) {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return pickLanguage([text(stored.browser_lang), text(stored.default_lang), request.headers['accept-language']]);
}

/** Route-level error handler of page routes: a refusal or a fault is a page too; a fault's detail goes to the log only. */
export function pageErrorHandler(deps: Deps) {
  return (error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) => {
    const { status, headers } = pageRefusal(error, request, 'page');
    return sendPage(
      reply.headers(headers),
      messagePage({ baseUrl: deps.config.baseUrl, lang: languageOf(request).lang, status, title: 'errorTitle', text: 'errorText' }),
    );
  };
}

/**
 * The status and headers of a page's answer to an error (the shopper's pages, `what` 'page'; the
 * portal's, 'portal'), logged as what it is. The database away (restarting, failing over) is 503
 * with Retry-After as on the API, logged as the API logs it, never 500: nothing is wrong with the
 * gateway, and the page works again as soon as the database is back. A 503 `service_unavailable`
 * (the gateway stopping) is an expected refusal, logged at info. Only a fault is an error.
 */
export function pageRefusal(error: FastifyError | AppError, request: FastifyRequest, what: 'page' | 'portal'): { status: number; headers: Record<string, string> } {
  if (!(error instanceof AppError) && isDatabaseUnavailable(error)) {
    const away = databaseAway();
    // One line per request while the database is away, without the driver's stack.
    request.log.warn({ status: away.http, code: away.code }, 'database unavailable');
    return { status: away.http, headers: away.headers ?? {} };
  }
  const status = error instanceof AppError ? error.http : error.statusCode !== undefined && error.statusCode < 500 ? error.statusCode : 500;
  const expected = status < 500 || (error instanceof AppError && error.codeName === 'service_unavailable');
  if (expected) request.log.info({ status, code: error.code }, `${what} request refused`);
  else request.log.error({ err: error }, what === 'page' ? 'page failed' : 'portal page failed');
  return { status, headers: (error instanceof AppError && error.headers) || {} };
}
