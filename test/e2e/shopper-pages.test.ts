// The other shopper pages in a real browser: a direct payment's 3-D Secure challenge, the APM
// issuer page (approve, abandon), script in every echoed field, and the page in Chinese on a phone.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { cardPayment, orderNo } from '../support/fixtures.ts';
import type { SignedClient } from '../support/client.ts';
import { launchBrowser, startLiveGateway, startMerchantSite, type LiveGateway, type MerchantSite, type TestBrowser } from '../support/browser.ts';

let gw: LiveGateway;
let chrome: TestBrowser;
let site: MerchantSite;
let shop: SignedClient;
let context: BrowserContext | undefined;

beforeAll(async () => {
  gw = await startLiveGateway();
  shop = await gw.merchant({ name: 'Kite & Co' });
  chrome = await launchBrowser();
  site = await startMerchantSite(gw.url, shop.secret);
});
afterAll(async () => {
  await chrome?.close();
  await site?.close();
  await gw?.close();
});
afterEach(async () => {
  await context?.close();
  context = undefined;
});

async function openTab(options: Parameters<TestBrowser['context']>[0] = {}): Promise<Page> {
  context = await chrome.context(options);
  return context.newPage();
}
const lastReturn = () => site.returns[site.returns.length - 1]!;

/** How many different images the characters make, drawn one by one in the font of `selector`. */
function distinctDrawings(page: Page, selector: string, characters: string[]): Promise<number> {
  return page.evaluate(`(() => {
    const family = getComputedStyle(document.querySelector(${JSON.stringify(selector)})).fontFamily;
    const images = ${JSON.stringify(characters)}.map((character) => {
      const canvas = document.createElement('canvas');
      canvas.width = 64;
      canvas.height = 64;
      const context = canvas.getContext('2d');
      context.font = '48px ' + family;
      context.fillText(character, 4, 52);
      return canvas.toDataURL();
    });
    return new Set(images).size;
  })()`);
}

describe('a direct payment’s 3-D Secure challenge', () => {
  it.each([
    ['1234', '1', '0000:Success', 'challenge: authenticated (eci 05)'],
    ['0000', '0', '2007:3-D Secure authentication failed', 'challenge: failed'],
  ])('code %s: the shopper lands on return_url with order_status %s', async (code, status, info, threeds) => {
    const body = cardPayment(shop.ids, { card: '4000000000003220', return_url: `${site.url}/return`, challenge_window_size: '01' });
    const answer = await shop.post('/v1/authorise', body);
    expect(answer.body.order_status).toBe('2');
    const page = await openTab({ phone: true });
    await page.goto(answer.body.redirect_url);
    expect((await page.locator('.challenge').boundingBox())?.width).toBe(250);
    await page.getByLabel('One-time code sent to your phone').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${site.url}/return?**`);
    expect(await page.locator('#outcome').textContent()).toBe('Signature verified');
    expect(lastReturn().fields).toMatchObject({ order_no: body.order_no, order_status: status, result_info: info, threeds_result: threeds });
  });
});

describe('an APM payment’s issuer page', () => {
  async function startApm(method = 'sandbox_redirect', overrides: Record<string, unknown> = {}) {
    const answer = await shop.post('/v1/authorise', {
      ...shop.ids,
      payment_method: method,
      order_no: orderNo('APM'),
      currency: 'EUR',
      amount: '18.00',
      return_url: `${site.url}/return`,
      ...overrides,
    });
    expect(answer.body.order_status).toBe('2');
    return answer.body as Record<string, string>;
  }

  it('approve: the shopper returns with the payment captured', async () => {
    const payment = await startApm('sandbox_bank', { bank_code: 'SBX001' });
    const page = await openTab();
    await page.goto(payment.issuer_url!);
    expect(await page.locator('h1').textContent()).toBe('Approve the payment at Sandbox Bank');
    await page.getByRole('button', { name: 'Approve payment' }).click();
    await page.waitForURL(`${site.url}/return?**`);
    expect(lastReturn()).toMatchObject({ verified: true, fields: { transaction_id: payment.transaction_id, order_status: '1', payment_method: 'sandbox_bank' } });
  });

  it('abandon: the shopper returns with 2009 and the payment failed', async () => {
    const payment = await startApm();
    const page = await openTab({ phone: true });
    await page.goto(payment.issuer_url!);
    await page.getByRole('button', { name: 'Cancel and return to the store' }).click();
    await page.waitForURL(`${site.url}/return?**`);
    expect(lastReturn()).toMatchObject({ verified: true, fields: { transaction_id: payment.transaction_id, order_status: '0', result_info: '2009:Shopper abandoned or let the payment expire' } });
    const [row] = await gw.database.query<{ status: string }>('SELECT status FROM payments WHERE id = $1', [payment.transaction_id]);
    expect(row?.status).toBe('failed');
  });
});

describe('a page restored by Back from the browser’s back-forward cache', () => {
  let cachingChrome: TestBrowser;
  beforeAll(async () => {
    cachingChrome = await launchBrowser({ backForwardCache: true });
  });
  afterAll(() => cachingChrome?.close());

  it('sends its data-submit-once form again: the first sending no longer blocks it', async () => {
    const answer = await shop.post('/v1/authorise', { ...shop.ids, payment_method: 'sandbox_redirect', order_no: orderNo('BF'), currency: 'EUR', amount: '18.00', return_url: `${site.url}/return` });
    const issuerUrl = answer.body.issuer_url as string;
    context = await cachingChrome.context();
    const page = await context.newPage();
    // Chromium keeps no page served with `Cache-Control: no-store` (as ours are) in its cache,
    // where Safari does: the issuer page is served here without it, so that Chromium keeps it.
    await page.route(issuerUrl, async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers() };
      delete headers['cache-control'];
      await route.fulfill({ response, headers });
    });
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.url());
    });
    await page.goto(issuerUrl);
    await page.evaluate('window.keptInMemory = true');
    await page.getByRole('button', { name: 'Cancel and return to the store' }).click();
    await page.waitForURL(`${site.url}/return?**`);
    expect(posts).toHaveLength(1);
    await page.goBack({ waitUntil: 'commit' });
    await page.waitForURL(issuerUrl, { waitUntil: 'commit' }); // a page restored from memory fires no load event
    // The same page, from memory (its script state kept), not loaded again.
    await expect.poll(() => page.evaluate('window.keptInMemory === true')).toBe(true);
    expect(await page.getByRole('button', { name: 'Approve' }).getAttribute('aria-disabled')).toBeNull();
    await page.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => posts.length).toBe(2);
  });
});

describe('nothing the merchant sends runs as script', () => {
  it('shows script-like text in every echoed field as text, in the hand-off and the hosted page', async () => {
    const payload = `"><img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>`;
    const page = await openTab();
    let dialogs = 0;
    page.on('dialog', (dialog) => {
      dialogs += 1;
      void dialog.dismiss();
    });
    const body = {
      ...shop.ids,
      order_no: orderNo('XSS'),
      currency: 'USD',
      amount: '3.00',
      return_url: `${site.url}/return`,
      note: payload,
      first_name: payload.slice(0, 64),
      billing_address: payload,
      custom: payload,
      items: `${payload.slice(0, 60)}#,#x#,#3.00#,#1`,
      cart_items: [{ basic_item_data: { name: payload } }],
    };
    // The hand-off page, relayed by the merchant's site (no CSP there: only escaping protects it),
    // held before it posts (a 204 keeps the browser on it) so its own document can be inspected.
    let held = true;
    let posts = 0;
    await page.route(`${gw.url}/v1/checkout`, (route) => {
      posts += 1;
      return held ? route.fulfill({ status: 204 }) : route.continue();
    });
    await page.goto(await site.startCheckout(body), { waitUntil: 'commit' });
    await expect.poll(() => posts).toBe(1);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('input[name="note"]').inputValue()).toBe(payload);
    expect(await page.locator('img').count()).toBe(0);
    held = false;
    await page.evaluate("document.getElementById('handoff').submit()");
    await page.waitForURL(`${gw.url}/checkout/**`);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('.line-name').first().textContent()).toBe(payload.slice(0, 60));
    expect(await page.locator('img').count()).toBe(0);
    expect(dialogs).toBe(0);
  });
});

describe('the page in the shopper’s language, on a phone', () => {
  it('speaks Chinese when browser_lang says so, with the amount in the shopper’s format', async () => {
    const page = await openTab({ phone: true, locale: 'zh-CN' });
    await page.goto(await site.startCheckout({ ...shop.ids, order_no: orderNo('ZH'), currency: 'CNY', amount: '128.00', return_url: `${site.url}/return`, browser_lang: 'zh-CN' }));
    await page.waitForURL(`${gw.url}/checkout/**`);
    expect(await page.getByRole('button', { name: /^支付/ }).textContent()).toBe('支付 ¥128.00');
    expect(await page.getByLabel('卡号').count()).toBe(1);
    // Drawn as glyphs, not boxes: without a font for Chinese every character is the same box.
    expect(await distinctDrawings(page, 'body', ['支', '付', '卡', '号'])).toBe(4);
    // Usable on a phone: nothing wider than the screen, touch targets at least 44 px high.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect((await page.getByRole('button', { name: /^支付/ }).boundingBox())!.height).toBeGreaterThanOrEqual(44);
    expect((await page.getByLabel('卡号').boundingBox())!.height).toBeGreaterThanOrEqual(44);
  });
});
