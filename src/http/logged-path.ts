// What a request line logs of the URL: the path, without the query string (request data: a
// search, the portal's set-password link) and without the route parameters that are credentials
// (the hosted page's token, the sandbox issuer pages' session token), which stay as their names.
// Whoever reads the logs must not be able to open, pay or cancel a shopper's page.
import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Route parameters that are credentials: logged as `:name`, never their value. */
    secretParams?: readonly string[];
  }
}

export function loggedPath(request: FastifyRequest): string {
  const path = request.url.split('?', 1)[0]!;
  const secret = request.routeOptions.config?.secretParams;
  const pattern = request.routeOptions.url;
  // A path no route matched names no parameters to leave out, and may still hold a credential (a
  // shopper's page URL with a segment added, `/checkout/<session>/<token>/pay` opened with GET):
  // its first two segments are logged, the rest as `…`.
  if (!pattern) return unmatchedPath(path);
  if (!secret || secret.length === 0) return path;
  const params = (request.params ?? {}) as Record<string, string>;
  return pattern.replace(/:([A-Za-z0-9_]+)/g, (whole, name: string) => (secret.includes(name) ? whole : encodeURIComponent(params[name] ?? '')));
}

/** `/checkout/CS01…/<token>/pay` → `/checkout/CS01…/…`: what a path no route matched logs. */
function unmatchedPath(path: string): string {
  const segments = path.split('/');
  return segments.length <= 3 ? path : `${segments.slice(0, 3).join('/')}/…`;
}
