// Writes the screenshots in docs/screenshots/: each shopper page at phone (390×844) and desktop
// (1280×800) size. Not a test (the PNGs are committed, not compared); run it when a page changes:
//   node test/e2e/screenshots.ts
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { orderNo } from '../support/fixtures.ts';
import { launchBrowser, startLiveGateway, startMerchantSite } from '../support/browser.ts';

const OUT = new URL('../../docs/screenshots/', import.meta.url);
mkdirSync(OUT, { recursive: true });

const gw = await startLiveGateway({ env: { LOG_LEVEL: 'warn' } });
const shop = await gw.merchant({ name: 'Lojas Aurora' });
const chrome = await launchBrowser();
const site = await startMerchantSite(gw.url, shop.secret);

const order = () => ({
  ...shop.ids,
  order_no: orderNo('ORD').slice(0, 16),
  currency: 'USD',
  amount: '42.50',
  items: 'Ceramic mug#,#MUG-1#,#12.50#,#2#;#Green tea, 100 g#,#TEA-9#,#17.50#,#1',
  item_total: '42.50',
  return_url: `${site.url}/return`,
  cancel_url: `${site.url}/cancel`,
});

async function shoot(name: string, visit: (page: Page) => Promise<void>, options: { javaScript?: boolean } = {}) {
  for (const phone of [true, false]) {
    const context = await chrome.context({ phone, ...options });
    const page = await context.newPage();
    await visit(page);
    await page.screenshot({ path: new URL(`${name}-${phone ? 'phone' : 'desktop'}.png`, OUT).pathname, fullPage: phone });
    await context.close();
  }
}

async function hostedPage(page: Page) {
  await page.goto(await site.startCheckout(order()));
  await page.waitForURL(`${gw.url}/checkout/**`);
}

async function fill(page: Page, card: string) {
  await page.getByLabel('Name on card').fill('Ana Lima');
  await page.getByLabel('Card number').pressSequentially(card);
  await page.getByLabel('Expiry date').pressSequentially('1230');
  await page.getByLabel('Security code').fill('123');
}

await shoot(
  'handoff-nojs',
  async (page) => {
    await page.goto(await site.startCheckout(order()));
  },
  { javaScript: false },
);

await shoot('hosted-page', async (page) => {
  await hostedPage(page);
  await page.getByLabel('Name on card').fill('Ana Lima');
  await page.getByLabel('Card number').pressSequentially('4111111111111111');
});

await shoot('declined', async (page) => {
  await hostedPage(page);
  await fill(page, '4000000000000002');
  await page.getByRole('button', { name: /^Pay / }).click();
  await page.locator('#form-errors p').first().waitFor();
});

await shoot('acs-challenge', async (page) => {
  await hostedPage(page);
  await fill(page, '4000000000003220');
  await page.getByRole('button', { name: /^Pay / }).click();
  await page.waitForURL(`${gw.url}/sandbox/acs/**`);
});

await shoot('apm-issuer', async (page) => {
  const answer = await shop.post('/v1/authorise', {
    ...shop.ids,
    payment_method: 'sandbox_voucher',
    order_no: orderNo('APM').slice(0, 16),
    currency: 'BRL',
    amount: '89.90',
    billing_country: 'BR',
    return_url: `${site.url}/return`,
    person: { document_type: 'CPF', document_number: '529.982.247-25', email: 'ana@example.com' },
  });
  await page.goto(answer.body.issuer_url);
});

await chrome.close();
await site.close();
await gw.close();
process.stdout.write(`screenshots written to ${OUT.pathname}\n`);
