// The hosted payment page in a real browser: hand-off, card form, refusal and retry, 3-D Secure
// on the page, no-JavaScript shoppers, the iFrame on allowed and other origins, and the shopper's
// landing on return_url with an outcome the merchant can verify (or, without return_url, on the
// gateway's own outcome page).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { orderNo } from '../support/fixtures.ts';
import { launchBrowser, startLiveGateway, startMerchantSite, type LiveGateway, type MerchantSite, type TestBrowser } from '../support/browser.ts';

let gw: LiveGateway;
let chrome: TestBrowser;
let site: MerchantSite;
let otherSite: MerchantSite;
let ids: { merchant_id: string; account_id: string };
let context: BrowserContext | undefined;
const problems: string[] = [];

beforeAll(async () => {
  gw = await startLiveGateway();
  const merchant = await gw.merchant({ name: 'Lojas Aurora' });
  ids = merchant.ids;
  chrome = await launchBrowser();
  site = await startMerchantSite(gw.url, merchant.secret);
  otherSite = await startMerchantSite(gw.url, merchant.secret);
  await gw.database.query('UPDATE accounts SET storefront_domains = $2 WHERE id = $1', [ids.account_id, [site.url]]);
  gw.gateway.server.directory.forget();
});
afterAll(async () => {
  await chrome?.close();
  await site?.close();
  await otherSite?.close();
  await gw?.close();
});
afterEach(async () => {
  await context?.close();
  context = undefined;
});

function order(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...ids,
    order_no: orderNo('E2E'),
    currency: 'USD',
    amount: '42.50',
    items: 'Ceramic mug#,#MUG-1#,#12.50#,#2#;#Green tea, 100 g#,#TEA-9#,#17.50#,#1',
    return_url: `${site.url}/return`,
    cancel_url: `${site.url}/cancel`,
    ...overrides,
  };
}

/** A page whose console errors and CSP violations are collected: there must be none. */
async function openTab(options: Parameters<TestBrowser['context']>[0] = {}): Promise<Page> {
  problems.length = 0;
  context = await chrome.context(options);
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
  });
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return page;
}

async function fillCard(page: Page, card: string, cvc = '123') {
  await page.getByLabel('Name on card').fill('Ana Lima');
  await page.getByLabel('Card number').pressSequentially(card);
  await page.getByLabel('Expiry date').pressSequentially('1230');
  await page.getByLabel('Security code').fill(cvc);
}

const lastReturn = () => site.returns[site.returns.length - 1]!;

describe('the hosted payment page in Chromium', () => {
  it('pays with an approved card and lands on return_url with a verifiable signed outcome', async () => {
    const body = order();
    const page = await openTab();
    await page.goto(await site.startCheckout(body));
    await page.waitForURL(`${gw.url}/checkout/**`);
    await expect.poll(() => page.title()).toBe('Payment to Lojas Aurora');
    expect(await page.locator('#order-total').textContent()).toBe('$42.50');
    expect(await page.locator('.line-name').allTextContents()).toEqual(['Ceramic mug', 'Green tea, 100 g']);
    await fillCard(page, '4111111111111111');
    expect(await page.getByLabel('Card number').inputValue()).toBe('4111 1111 1111 1111');
    expect(await page.locator('#card-brand').textContent()).toBe('Visa');
    expect(await page.getByLabel('Expiry date').inputValue()).toBe('12 / 30');
    await page.getByRole('button', { name: 'Pay $42.50' }).click();
    await page.waitForURL(`${site.url}/return?**`);
    expect(await page.locator('#outcome').textContent()).toBe('Signature verified');
    expect(lastReturn()).toMatchObject({ path: '/return', verified: true, fields: { order_no: body.order_no, order_status: '1', result_info: '0000:Success', amount: '42.50' } });
    const [row] = await gw.database.query<{ status: string }>('SELECT status FROM payments WHERE order_no = $1', [body.order_no]);
    expect(row?.status).toBe('captured');
    expect(problems).toEqual([]);
  });

  it('checks the card as the shopper types, and names the problems without submitting', async () => {
    const page = await openTab();
    await page.goto(await site.startCheckout(order()));
    await page.waitForURL(`${gw.url}/checkout/**`);
    await page.getByLabel('Card number').pressSequentially('4111111111111112');
    await expect.poll(() => page.locator('#card_number-error').textContent()).toBe('Enter a valid card number.');
    expect(await page.getByLabel('Card number').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Card number').fill('');
    await page.getByLabel('Card number').pressSequentially('378282246310005');
    expect(await page.locator('#card-brand').textContent()).toBe('American Express');
    expect(await page.getByLabel('Card number').inputValue()).toBe('3782 822463 10005');
    await page.getByLabel('Expiry date').pressSequentially('0120');
    await expect.poll(() => page.locator('#expiry-error').textContent()).toBe('This card has expired.');
    await page.getByLabel('Security code').fill('123');
    await page.getByRole('button', { name: /^Pay / }).click();
    expect(await page.locator('#form-errors').textContent()).toBe('Please correct the fields marked below.');
    expect(await page.locator('#security_code-error').textContent()).toBe('Enter the 4-digit security code.');
    expect(await page.locator('#holder_name-error').textContent()).toBe('Enter the name as it appears on the card.');
    expect(await page.evaluate('document.activeElement.id')).toBe('holder_name');
    expect(page.url()).toMatch(/\/checkout\/CS[0-9A-Z]{26}\/[A-Za-z0-9_-]{43}$/);
    expect(problems).toEqual([]);
  });

  it('shows a declined card’s error, allows a retry, and sends the pay button once', async () => {
    const body = order();
    const page = await openTab({ phone: true });
    await page.goto(await site.startCheckout(body));
    await page.waitForURL(`${gw.url}/checkout/**`);
    await fillCard(page, '4000000000000002');
    await page.getByRole('button', { name: 'Pay $42.50' }).dblclick();
    await expect.poll(() => page.locator('#form-errors').textContent(), { timeout: 30_000 }).toBe('Your card was declined. Try another card or contact your bank.Attempts left: 4');
    const [session] = await gw.database.query<{ attempts: number }>(
      'SELECT s.attempts FROM checkout_sessions s JOIN payments p ON p.id = s.payment_id WHERE p.order_no = $1',
      [body.order_no],
    );
    expect(session?.attempts).toBe(1);
    await fillCard(page, '5555555555554444');
    await page.getByRole('button', { name: 'Pay $42.50' }).click();
    await page.waitForURL(`${site.url}/return?**`);
    expect(lastReturn()).toMatchObject({ verified: true, fields: { order_no: body.order_no, order_status: '1', card: '555555******4444' } });
    expect(problems).toEqual([]);
  });

  it('goes through a 3-D Secure challenge that passes, and one that fails then lets the shopper retry', async () => {
    const passing = order({ challenge_window_size: '03' });
    const page = await openTab();
    await page.goto(await site.startCheckout(passing));
    await page.waitForURL(`${gw.url}/checkout/**`);
    await fillCard(page, '4000000000003220');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL(`${gw.url}/sandbox/acs/**`);
    expect(await page.locator('.challenge').getAttribute('data-window')).toBe('03');
    expect((await page.locator('.challenge').boundingBox())?.width).toBe(500);
    await page.getByLabel('One-time code sent to your phone').fill('1234');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${site.url}/return?**`);
    expect(lastReturn()).toMatchObject({ verified: true, fields: { order_no: passing.order_no, order_status: '1', threeds_result: 'challenge: authenticated (eci 05)' } });

    const failing = order();
    await page.goto(await site.startCheckout(failing));
    await page.waitForURL(`${gw.url}/checkout/**`);
    await fillCard(page, '4000000000003220');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL(`${gw.url}/sandbox/acs/**`);
    await page.getByLabel('One-time code sent to your phone').fill('0000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${gw.url}/checkout/**`);
    expect(await page.locator('#form-errors').textContent()).toContain('Your bank could not verify the card (3-D Secure).');
    await fillCard(page, '4111111111111111');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL(`${site.url}/return?**`);
    expect(lastReturn()).toMatchObject({ verified: true, fields: { order_no: failing.order_no, order_status: '1' } });
    expect(problems).toEqual([]);
  });

  it('posts the hand-off once on a slow network: a tap on Continue while the post is on its way sends no second one', async () => {
    const page = await openTab();
    // The network is slow: each hand-off post reaches the gateway (which opens the session) at
    // once, but its answer comes back to the browser only 5 s later, past the 3 s after which the
    // page used to show its Continue button. A second post is refused 409 "already used".
    const posts: number[] = [];
    await page.route(`${gw.url}/v1/checkout`, async (route) => {
      const answer = await route.fetch({ maxRedirects: 0 });
      posts.push(answer.status());
      await new Promise((resolve) => setTimeout(resolve, 5000));
      await route.fulfill({ response: answer }).catch(() => undefined); // a navigation the browser gave up
    });
    // While a navigation is pending, Chromium answers no script evaluation (so no locator) until
    // the next page is in: the button's place is measured before handoff.js runs, held back
    // until then, and the tap is a plain mouse click there, as a shopper's finger would be.
    let releaseScript = () => {};
    const scriptHeld = new Promise<void>((resolve) => (releaseScript = resolve));
    await page.route(`${gw.url}/assets/handoff.js*`, async (route) => {
      await scriptHeld;
      await route.continue();
    });
    await page.goto(await site.startCheckout(order()), { waitUntil: 'commit' });
    const box = (await page.getByRole('button', { name: 'Continue' }).boundingBox())!;
    releaseScript();
    await expect.poll(() => posts.length).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 3500));
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await expect.poll(() => page.url(), { timeout: 15_000 }).not.toContain('/pay/');
    expect(posts).toEqual([303]);
    await page.waitForURL(`${gw.url}/checkout/**`);
    await expect.poll(() => page.title()).toBe('Payment to Lojas Aurora');
    expect(problems).toEqual([]);
  });

  it('works without JavaScript: the hand-off’s Continue button, and the server’s own checks', async () => {
    const body = order({ default_lang: 'es' });
    const page = await openTab({ javaScript: false });
    await page.goto(await site.startCheckout(body));
    expect(await page.title()).toBe('Cargando la página de pago…');
    await page.getByRole('button', { name: 'Continuar' }).click();
    await page.waitForURL(`${gw.url}/checkout/**`);
    await page.getByLabel('Nombre en la tarjeta').fill('Ana Lima');
    await page.getByLabel('Número de tarjeta').fill('4111 1111 1111 1112');
    await page.getByLabel('Fecha de caducidad').fill('12/30');
    await page.getByLabel('Código de seguridad').fill('123');
    await page.getByRole('button', { name: /^Pagar / }).click();
    expect(await page.locator('#card_number-error').textContent()).toBe('Introduzca un número de tarjeta válido.');
    expect(await page.getByLabel('Nombre en la tarjeta').inputValue()).toBe('Ana Lima');
    await page.getByLabel('Número de tarjeta').fill('4111 1111 1111 1111');
    await page.getByLabel('Fecha de caducidad').fill('12/30');
    await page.getByLabel('Código de seguridad').fill('123');
    await page.getByRole('button', { name: /^Pagar / }).click();
    await page.waitForURL(`${site.url}/return?**`);
    expect(lastReturn()).toMatchObject({ verified: true, fields: { order_no: body.order_no, order_status: '1' } });
  });

  it.each([true, false])('takes a card typed in full-width digits, as a Chinese input method types them (JavaScript: %s)', async (javaScript) => {
    const body = order({ browser_lang: 'zh-CN' });
    const page = await openTab({ javaScript });
    await page.goto(await site.startCheckout(body));
    if (!javaScript) await page.getByRole('button', { name: '继续' }).click();
    await page.waitForURL(`${gw.url}/checkout/**`);
    await page.getByLabel('持卡人姓名').fill('李娜');
    await page.getByLabel('卡号').fill('４１１１　１１１１　１１１１　１１１１');
    await page.getByLabel('有效期').fill('１２／３０');
    await page.getByLabel('安全码').fill('１２３');
    if (javaScript) expect(await page.getByLabel('卡号').inputValue()).toBe('4111 1111 1111 1111');
    await page.getByRole('button', { name: /^支付 / }).click();
    await page.waitForURL(`${site.url}/return?**`);
    expect(lastReturn()).toMatchObject({ verified: true, fields: { order_no: body.order_no, order_status: '1', card: '411111******1111' } });
    expect(problems).toEqual([]);
  });

  it('sends the shopper who cancels to cancel_url', async () => {
    const body = order();
    const page = await openTab();
    await page.goto(await site.startCheckout(body));
    await page.waitForURL(`${gw.url}/checkout/**`);
    await page.getByRole('button', { name: 'Cancel and return to the store' }).click();
    await page.waitForURL(`${site.url}/cancel?**`);
    expect(lastReturn()).toMatchObject({ path: '/cancel', verified: true, fields: { order_no: body.order_no, order_status: '0', result_info: '2009:Shopper abandoned or let the payment expire' } });
  });

  it('shows the outcome on the gateway’s own page, in the shopper’s language, when the merchant gave no return_url', async () => {
    const { return_url: _return, cancel_url: _cancel, ...body } = order({ browser_lang: 'es-ES' });
    const returnsBefore = site.returns.length;
    const page = await openTab();
    await page.goto(await site.startCheckout(body));
    await page.waitForURL(`${gw.url}/checkout/**`);
    const pageUrl = page.url();
    await page.getByLabel('Nombre en la tarjeta').fill('Ana Lima');
    await page.getByLabel('Número de tarjeta').pressSequentially('4111111111111111');
    await page.getByLabel('Fecha de caducidad').pressSequentially('1230');
    await page.getByLabel('Código de seguridad').fill('123');
    await page.getByRole('button', { name: /^Pagar / }).click();
    await expect.poll(() => page.title()).toBe('Pago realizado');
    expect(page.url()).toBe(pageUrl);
    expect(await page.locator('html').getAttribute('lang')).toBe('es');
    expect(await page.getByRole('status').locator('h1').textContent()).toBe('Pago realizado');
    expect(await page.locator('#outcome-order').textContent()).toBe(body.order_no);
    expect(await page.locator('#outcome-amount').textContent()).toBe(new Intl.NumberFormat('es-ES', { style: 'currency', currency: 'USD' }).format(42.5));
    expect(await page.getByText('Ya puede cerrar esta ventana.').isVisible()).toBe(true);
    expect(await page.locator('a, form').count()).toBe(0);
    expect(site.returns.length).toBe(returnsBefore);
    const [row] = await gw.database.query<{ status: string }>('SELECT status FROM payments WHERE order_no = $1', [body.order_no]);
    expect(row?.status).toBe('captured');
    expect(problems).toEqual([]);
  });

  it('runs inside the storefront’s iFrame on an allowed origin', async () => {
    const body = order();
    const page = await openTab();
    const url = await site.startCheckout(body);
    await page.goto(site.framePage(url.split('/').pop()!));
    const frame = page.frameLocator('#payframe');
    await fillCardIn(frame);
    await frame.getByRole('button', { name: 'Pay $42.50' }).click();
    await expect.poll(() => frame.locator('#outcome').textContent()).toBe('Signature verified');
    expect(lastReturn().fields.order_no).toBe(body.order_no);
    expect(problems).toEqual([]);
  });

  it('is refused inside a page of another origin', async () => {
    const body = order();
    const page = await openTab();
    const url = await otherSite.startCheckout(body);
    const refusals: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('frame-ancestors')) refusals.push(message.text());
    });
    await page.goto(otherSite.framePage(url.split('/').pop()!));
    await expect.poll(() => refusals.length).toBeGreaterThan(0);
    expect(refusals[0]).toContain(`Framing '${gw.url}/' violates the following Content Security Policy directive: "frame-ancestors ${site.url}"`);
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame())!;
    expect(await frame.locator('#card-form').count()).toBe(0);
    problems.length = 0; // the refusal itself is the console error this test expects
  });
});

async function fillCardIn(frame: ReturnType<Page['frameLocator']>) {
  await frame.getByLabel('Name on card').fill('Ana Lima');
  await frame.getByLabel('Card number').pressSequentially('4111111111111111');
  await frame.getByLabel('Expiry date').pressSequentially('1230');
  await frame.getByLabel('Security code').fill('123');
}
