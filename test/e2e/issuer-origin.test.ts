// A real acquirer's 3-D Secure challenge lives on the issuer's own origin, not on the gateway's
// (the sandbox ACS is the gateway's, so the other e2e tests cannot show this). The hosted page's
// CSP form-action must not stop the shopper on the way there: Chromium applies it to every
// redirect that follows a form's submission, and the pay button is one.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connectors } from '../../src/app/context.ts';
import type { Connector } from '../../src/connectors/port.ts';
import { createSimulator } from '../../src/connectors/simulator/index.ts';
import { orderNo } from '../support/fixtures.ts';
import { freePort, launchBrowser, startLiveGateway, startMerchantSite, type LiveGateway, type MerchantSite, type TestBrowser } from '../support/browser.ts';

let gw: LiveGateway;
let chrome: TestBrowser;
let site: MerchantSite;
let issuer: { url: string; server: Server };
let ids: { merchant_id: string; account_id: string };

/** The issuer's ACS: another origin, serving a challenge page to whoever arrives. */
async function startIssuer() {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Issuer challenge</title></head><body><h1>Enter your code</h1></body></html>');
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  // `localhost`: another host as well as another port than the gateway's 127.0.0.1.
  return { url: `http://localhost:${port}`, server };
}

/** The simulator, except that every card payment asks for a challenge on the issuer's origin. */
function remoteAcsConnector(issuerUrl: string): Connectors {
  const simulator = createSimulator({ baseUrl: 'http://gateway.invalid' });
  const connector: Connector = {
    ...simulator,
    authorise: async (request) => ({
      ok: true,
      value: { status: 'action_required', action: 'authenticate', reference: `acs_${request.paymentId}`, url: `${issuerUrl}/acs/challenge?tx=${request.paymentId}` },
    }),
  };
  return { get: (name) => (name === 'simulator' ? connector : undefined) };
}

beforeAll(async () => {
  issuer = await startIssuer();
  gw = await startLiveGateway({ connectors: remoteAcsConnector(issuer.url) });
  const merchant = await gw.merchant({ name: 'Lojas Aurora' });
  ids = merchant.ids;
  chrome = await launchBrowser();
  site = await startMerchantSite(gw.url, merchant.secret);
});
afterAll(async () => {
  await chrome?.close();
  await site?.close();
  await new Promise<void>((resolve) => (issuer ? issuer.server.close(() => resolve()) : resolve()));
  await gw?.close();
});

describe('the hosted page with an issuer on another origin', () => {
  for (const javaScript of [true, false]) {
    it(`takes the shopper to the issuer's challenge after the pay button (${javaScript ? 'with' : 'without'} JavaScript)`, async () => {
      const context = await chrome.context({ javaScript });
      try {
        const page = await context.newPage();
        const violations: string[] = [];
        page.on('console', (message) => {
          if (message.text().includes('Content Security Policy')) violations.push(message.text());
        });
        await page.goto(await site.startCheckout({ ...ids, order_no: orderNo('E2E'), currency: 'USD', amount: '42.50', return_url: `${site.url}/return` }));
        if (!javaScript) await page.getByRole('button', { name: 'Continue' }).click();
        await page.waitForURL(`${gw.url}/checkout/**`);
        await page.getByLabel('Name on card').fill('Ana Lima');
        await page.getByLabel('Card number').fill('4111 1111 1111 1111');
        await page.getByLabel('Expiry date').fill('12 / 30');
        await page.getByLabel('Security code').fill('123');
        await page.getByRole('button', { name: /^Pay / }).click();
        // Blocked, the browser stays on the card page and reports the violation: shown before the URL.
        await page.waitForURL(`${issuer.url}/acs/challenge?tx=**`, { timeout: 5_000 }).catch(() => undefined);
        expect(violations).toEqual([]);
        expect(page.url()).toMatch(new RegExp(`^${issuer.url}/acs/challenge\\?tx=T[0-9A-Z]{26}$`));
        expect(await page.title()).toBe('Issuer challenge');
      } finally {
        await context.close();
      }
    });
  }
});
