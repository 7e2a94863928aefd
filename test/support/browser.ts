// End-to-end support: Debian's Chromium driven by playwright-core, a gateway listening on a real
// port (the browser fetches pages and assets from it), and a merchant's site on another origin
// that relays hand-off pages, frames the hosted page and receives the shopper's return.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { sign, verify } from '../../src/domain/signature.ts';
import { encode } from './client.ts';
import { CHROMIUM } from './chromium.ts';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './gateway.ts';

export { CHROMIUM };

export interface TestBrowser {
  readonly browser: Browser;
  /** A fresh context (cookies, storage) per test; phone or desktop viewport. */
  context(options?: { phone?: boolean; javaScript?: boolean; locale?: string }): Promise<BrowserContext>;
  close(): Promise<void>;
}

/**
 * Playwright gives each launch a fresh, temporary user-data-dir (and removes it on close).
 * `backForwardCache`: Back and Forward restore a page kept in memory, as browsers do for their
 * users (Playwright turns the cache off by default).
 */
export async function launchBrowser(options: { backForwardCache?: boolean } = {}): Promise<TestBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      ...(options.backForwardCache ? ['--enable-features=BackForwardCache'] : []),
    ],
    ...(options.backForwardCache ? { ignoreDefaultArgs: ['--disable-back-forward-cache'] } : {}),
  });
  return {
    browser,
    context: ({ phone = false, javaScript = true, locale = 'en-US' } = {}) =>
      browser.newContext({
        viewport: phone ? { width: 390, height: 844 } : { width: 1280, height: 800 },
        ...(phone ? { deviceScaleFactor: 2, isMobile: true, hasTouch: true } : {}),
        javaScriptEnabled: javaScript,
        locale,
      }),
    close: () => browser.close(),
  };
}

export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface LiveGateway extends TestGateway {
  readonly url: string;
}

/** A gateway on 127.0.0.1 with ACQUIRO_BASE_URL set to where it listens. */
export async function startLiveGateway(options: TestGatewayOptions = {}): Promise<LiveGateway> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const gw = await startTestGateway({ ...options, env: { ACQUIRO_BASE_URL: url, ...options.env } });
  await gw.gateway.server.app.listen({ port, host: '127.0.0.1' });
  return Object.assign(gw, { url });
}

export interface Returned {
  readonly path: string;
  readonly fields: Record<string, string>;
  readonly verified: boolean;
}

export interface MerchantSite {
  readonly url: string;
  /** Shopper returns received, in order, with whether their signature verified. */
  readonly returns: Returned[];
  /** Signs a /v1/checkout request as the merchant's server would and keeps the hand-off page to relay. */
  startCheckout(body: Record<string, unknown>): Promise<string>;
  /** The storefront page that frames the relayed hand-off (iFrame mode). */
  framePage(key: string): string;
  close(): Promise<void>;
}

/**
 * The merchant's website: GET /pay/:key relays a hand-off page, GET /frame/:key frames it,
 * GET /return and /cancel receive the shopper and check the outcome's signature.
 */
export async function startMerchantSite(gatewayUrl: string, secret: string): Promise<MerchantSite> {
  const handOffs = new Map<string, string>();
  const returns: Returned[] = [];
  let next = 0;
  const page = (title: string, body: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head><body style="font-family:sans-serif;margin:2rem">${body}</body></html>`;
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://merchant.test');
    const send = (status: number, html: string) => {
      response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
      response.end(html);
    };
    const [, area, key] = url.pathname.split('/');
    if (area === 'pay' && key && handOffs.has(key)) return send(200, handOffs.get(key)!);
    if (area === 'frame' && key) {
      return send(
        200,
        page('Storefront', `<h1>Storefront checkout</h1><iframe id="payframe" title="Payment" src="/pay/${key}" style="width:100%;height:720px;border:1px solid #ccc"></iframe>`),
      );
    }
    if (area === 'return' || area === 'cancel') {
      const fields = Object.fromEntries(url.searchParams);
      const verified = verify(fields, secret);
      returns.push({ path: `/${area}`, fields, verified });
      return send(
        200,
        page(
          'Order status',
          `<h1 id="outcome">${verified ? 'Signature verified' : 'Signature NOT verified'}</h1><p id="status">order_status ${fields.order_status ?? ''}: ${(fields.result_info ?? '').replace(/</g, '&lt;')}</p><p id="order">${(fields.order_no ?? '').replace(/</g, '&lt;')}</p>`,
        ),
      );
    }
    return send(404, page('Not found', '<h1>Not found</h1>'));
  };
  const server: Server = createServer(handle);
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    returns,
    async startCheckout(body) {
      const signed = { ...body, encryption_data: sign(body as never, secret) };
      const { payload, contentType } = encode(signed, 'json');
      const response = await fetch(`${gatewayUrl}/v1/checkout`, { method: 'POST', body: payload, headers: { 'content-type': contentType } });
      if (response.status !== 200) throw new Error(`checkout refused: ${response.status} ${await response.text()}`);
      const key = String(++next);
      handOffs.set(key, await response.text());
      return `${url}/pay/${key}`;
    },
    framePage: (key) => `${url}/frame/${key}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
