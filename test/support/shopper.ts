// A shopper's browser without a browser: reads our pages' forms and follows them through
// Fastify's inject (the e2e tests use Chromium for the real thing).
import type { FastifyInstance } from 'fastify';
import { verify } from '../../src/domain/signature.ts';

export function unescapeHtml(text: string): string {
  return text.replace(/&(quot|#39|lt|gt|amp);/g, (_all, name: string) => ({ quot: '"', '#39': "'", lt: '<', gt: '>', amp: '&' })[name]!);
}

/** The hidden inputs of a page, in order, values unescaped. */
export function hiddenFields(html: string): [string, string][] {
  return [...html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [unescapeHtml(m[1]!), unescapeHtml(m[2]!)]);
}

export interface PageAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  readonly body: string;
  readonly location?: string;
}

export interface Shopper {
  get(url: string, headers?: Record<string, string>): Promise<PageAnswer>;
  post(url: string, fields: Record<string, string> | [string, string][], headers?: Record<string, string>): Promise<PageAnswer>;
  /** Posts the hand-off page's form, as its script (or Continue button) would. */
  handOff(handOffHtml: string): Promise<PageAnswer>;
  /** Follows the page URL a hand-off led to: the hosted page. */
  pathOf(url: string): string;
  /** A page's form: where it posts and its hidden fields (a sandbox page's session token among them). */
  form(pageUrl: string): Promise<{ action: string; fields: [string, string][] } | undefined>;
  /** Opens the page and posts its form with `fields`, as the shopper would; a page without a form is answered as it is. */
  answer(pageUrl: string, fields: Record<string, string>): Promise<PageAnswer>;
}

export function shopper(app: FastifyInstance): Shopper {
  const answer = (response: { statusCode: number; headers: Record<string, unknown>; body: string }): PageAnswer => ({
    status: response.statusCode,
    headers: response.headers as PageAnswer['headers'],
    body: response.body,
    ...(typeof response.headers.location === 'string' ? { location: response.headers.location } : {}),
  });
  const pathOf = (url: string) => {
    const parsed = new URL(url, 'http://gateway.test');
    return parsed.pathname + parsed.search;
  };
  const post: Shopper['post'] = async (url, fields, headers = {}) =>
    answer(
      await app.inject({
        method: 'POST',
        url: pathOf(url),
        payload: new URLSearchParams(fields).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      }),
    );
  const get: Shopper['get'] = async (url, headers = {}) => answer(await app.inject({ method: 'GET', url: pathOf(url), headers }));
  const form: Shopper['form'] = async (pageUrl) => {
    const page = await get(pageUrl);
    const action = /<form method="post" action="([^"]*)"/.exec(page.body)?.[1];
    return action === undefined ? undefined : { action: unescapeHtml(action), fields: hiddenFields(page.body) };
  };
  return {
    get,
    post,
    form,
    answer: async (pageUrl, fields) => {
      const found = await form(pageUrl);
      return found ? post(found.action, [...found.fields, ...Object.entries(fields)]) : get(pageUrl);
    },
    handOff: (html) => post('/v1/checkout', hiddenFields(html)),
    pathOf,
  };
}

/**
 * Where a page sends the shopper on by itself: the URL of its meta refresh (the hosted page's step
 * to the issuer's challenge, which cannot be a redirect: src/web/pages/to-issuer.ts).
 */
export function refreshTarget(page: PageAnswer): string | undefined {
  const content = /<meta http-equiv="refresh" content="0; url=([^"]*)">/.exec(page.body)?.[1];
  return content === undefined ? undefined : unescapeHtml(content);
}

/** The outcome fields a return URL carries, and whether their signature verifies. */
export function returnedOutcome(url: string, secret: string): { fields: Record<string, string>; signed: boolean; base: string } {
  const parsed = new URL(url);
  const fields = Object.fromEntries(parsed.searchParams);
  return { fields, signed: verify(fields, secret), base: `${parsed.origin}${parsed.pathname}` };
}
