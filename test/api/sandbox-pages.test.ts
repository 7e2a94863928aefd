// The sandbox's issuer pages (3-D Secure challenge, APM provider) belong to the shopper's
// session, as a real issuer's would: without the session token of the URL the shopper was sent
// to, a visit or a post finds "not found" and changes nothing; a post from another site is
// refused. They speak the shopper's language, and keep developer notes out of the way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardPayment, orderNo } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';
import { refreshTarget, shopper, type PageAnswer, type Shopper } from '../support/shopper.ts';

let gw: TestGateway;
let shop: SignedClient;
let browser: Shopper;

beforeAll(async () => {
  gw = await startTestGateway();
  shop = await gw.merchant({ name: 'Tienda Sol' });
  browser = shopper(gw.gateway.server.app);
});
afterAll(() => gw?.close());

const statusOf = async (id: string) => (await gw.database.query<{ status: string }>('SELECT status FROM payments WHERE id = $1', [id]))[0]!.status;

async function challenged(overrides: Record<string, unknown> = {}) {
  const answer = await shop.post('/v1/authorise', cardPayment(shop.ids, { card: '4000000000003220', return_url: 'https://shop.example/3ds-return', ...overrides }));
  expect(answer.body.order_status).toBe('2');
  return { id: answer.body.transaction_id as string, url: answer.body.redirect_url as string };
}

async function apmStarted(overrides: Record<string, unknown> = {}) {
  const answer = await shop.post('/v1/authorise', {
    ...shop.ids,
    payment_method: 'sandbox_redirect',
    order_no: orderNo('APM'),
    currency: 'EUR',
    amount: '30.00',
    return_url: 'https://shop.example/apm-return',
    ...overrides,
  });
  expect(answer.body.order_status).toBe('2');
  return { id: answer.body.transaction_id as string, url: answer.body.issuer_url as string };
}

/** Hands back nothing: no redirect, and neither the merchant's return URL nor any gateway page URL in the body. */
function handsBackNothing(answer: PageAnswer) {
  expect(answer.location).toBeUndefined();
  expect(answer.body).not.toContain('shop.example');
  expect(answer.body).not.toMatch(/\/checkout\/CS/);
}

describe.each([
  ['3-D Secure challenge', 'acs', challenged, { code: '1234', action: 'verify' }, 'requires_authentication'],
  ['APM provider page', 'apm', apmStarted, { action: 'approve' }, 'requires_redirect'],
] as const)('the sandbox %s', (_name, kind, start, approval, waiting) => {
  it('opens only with the session token of the URL the shopper was given', async () => {
    const payment = await start();
    expect(payment.url).toMatch(new RegExp(`/sandbox/${kind}/${payment.id}/[A-Za-z0-9_-]{32}$`));
    expect((await browser.get(payment.url)).status).toBe(200);
    // The token with its last character changed (to another one, whatever it was).
    const altered = `${payment.url.slice(0, -1)}${payment.url.endsWith('x') ? 'y' : 'x'}`;
    for (const url of [`/sandbox/${kind}/${payment.id}`, `/sandbox/${kind}/${payment.id}/${'A'.repeat(32)}`, altered]) {
      const page = await browser.get(url);
      expect(page.status).toBe(404);
      expect(page.body).toContain('Payment page not found');
    }
  });

  it('refuses a third party’s post (no token, a wrong one) and hands back nothing', async () => {
    const payment = await start();
    const attempts: PageAnswer[] = [
      await browser.post(`/sandbox/${kind}/${payment.id}`, approval),
      await browser.post(`/sandbox/${kind}/${payment.id}`, { ...approval, session: 'A'.repeat(32) }),
      await browser.post(`/sandbox/${kind}/${payment.id}`, { ...approval, session: '' }),
    ];
    for (const attempt of attempts) {
      expect(attempt.status).toBe(404);
      handsBackNothing(attempt);
    }
    expect(await statusOf(payment.id)).toBe(waiting);
  });

  it('refuses a cross-site post even with the token (CSRF), and the shopper can still answer', async () => {
    const payment = await start();
    const form = (await browser.form(payment.url))!;
    expect(form.fields.map(([name]) => name)).toEqual(['session']);
    const fields: [string, string][] = [...form.fields, ...Object.entries(approval)];
    const forgeries: Record<string, string>[] = [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'null', 'sec-fetch-site': 'cross-site' }];
    for (const headers of forgeries) {
      const forged = await browser.post(form.action, fields, headers);
      expect(forged.status).toBe(403);
      handsBackNothing(forged);
    }
    expect(await statusOf(payment.id)).toBe(waiting);
    // As Chromium posts the page's own form (its no-referrer policy makes the Origin "null").
    const own = await browser.post(form.action, fields, { origin: 'null', 'sec-fetch-site': 'same-origin' });
    expect(own.status).toBe(303);
    expect(own.location).toMatch(/^https:\/\/shop\.example\//);
  });

  it('answers a URL with text the database cannot take with a page, never a 500', async () => {
    const payment = await start();
    for (const url of [`/sandbox/${kind}/T%00/${'A'.repeat(32)}`, `/sandbox/${kind}/${payment.id}%00/${'A'.repeat(32)}`, `/checkout/CS%00/x`]) {
      const page = await browser.get(url);
      expect(page.status, url).toBe(400);
      expect(page.body, url).toContain('<html lang="en">');
    }
    expect(gw.logs.text).not.toContain('page failed');
    expect(await statusOf(payment.id)).toBe(waiting);
  });

  it('keeps the session token out of the log lines', async () => {
    const payment = await start();
    const token = payment.url.split('/').pop()!;
    expect((await browser.get(payment.url)).status).toBe(200);
    expect(gw.logs.text).toContain(payment.id);
    expect(gw.logs.text).not.toContain(token);
  });

  it('speaks the shopper’s language, with developer notes in a closed sandbox note', async () => {
    const order = orderNo('LANG');
    const spanish = await start({ browser_lang: 'es-ES', order_no: order });
    const page = await browser.get(spanish.url);
    expect(page.body).toContain('<html lang="es">');
    expect(page.body).toMatch(kind === 'acs' ? /Confirme que es usted/ : /Apruebe el pago/);
    expect(page.body).toMatch(/30,00\s€|10,00\sUS\$|10,00\s\$/);
    const chinese = await browser.get((await start()).url, { 'accept-language': 'zh-CN,zh;q=0.9' });
    expect(chinese.body).toContain('<html lang="zh-Hans">');
    expect(chinese.body).toMatch(kind === 'acs' ? /确认是您本人/ : /批准付款/);
    // The developer's text is only inside the closed note. The page's random values (the payment
    // id, the session token, the order number) may hold "1234" and are taken out first.
    const randomValues = [spanish.id, spanish.url.split('/').pop()!, order];
    const outsideNote = randomValues.reduce((text, value) => text.replaceAll(value, ''), page.body.replace(/<details class="sandbox-hint">[^]*?<\/details>/, ''));
    expect(outsideNote).not.toMatch(/Window|passes|1234|Choose the outcome/);
    expect(page.body).toMatch(/<details class="sandbox-hint"><summary>Entorno de pruebas<\/summary>/);
  });
});

describe('the sandbox 3-D Secure challenge in Chinese', () => {
  it('takes the code typed in full-width digits, as a Chinese input method types them', async () => {
    const payment = await challenged({ browser_lang: 'zh-CN' });
    const form = (await browser.form(payment.url))!;
    const answer = await browser.post(form.action, [...form.fields, ['code', '１２３４'], ['action', 'verify']]);
    expect(answer.status).toBe(303);
    expect(await statusOf(payment.id)).toBe('captured');
  });
});

describe('the challenge of a hosted-page payment', () => {
  it('gives a third party neither the payment nor the hosted page’s URL', async () => {
    const handOff = await shop.post('/v1/checkout', { ...shop.ids, order_no: orderNo('CO'), currency: 'USD', amount: '12.00', return_url: 'https://shop.example/r' });
    const pageUrl = (await browser.handOff(handOff.raw)).location!;
    await browser.post(`${pageUrl}/pay`, { holder_name: 'Ana Lima', card_number: '4000000000003220', expiry: '12/30', security_code: '123' });
    const acsUrl = refreshTarget(await browser.get(pageUrl))!;
    const id = /\/sandbox\/acs\/(T[0-9A-Z]{26})\//.exec(acsUrl)![1]!;
    const stolen = await browser.post(`/sandbox/acs/${id}`, { code: '1234', action: 'verify' });
    expect(stolen.status).toBe(404);
    handsBackNothing(stolen);
    expect(stolen.body).not.toContain(new URL(pageUrl).pathname);
    expect(await statusOf(id)).toBe('requires_authentication');
    const own = await browser.answer(acsUrl, { code: '1234', action: 'verify' });
    expect(own.location).toBe(pageUrl);
  });
});
