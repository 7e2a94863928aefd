// Writes the portal's screenshots in docs/portal/: each page at phone (390×844) and desktop
// (1280×800) size. Not a test (the PNGs are committed, not compared); run it when a page changes:
//   node test/e2e/portal-screenshots.ts [page …]   (only the pages named, e.g. `reports settings`)
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { launchBrowser, startLiveGateway } from '../support/browser.ts';
import { pay, refund } from '../support/lifecycle.ts';
import { createMember, signInBrowser, type TestMember } from '../support/portal.ts';

const OUT = new URL('../../docs/portal/', import.meta.url);
mkdirSync(OUT, { recursive: true });

const gw = await startLiveGateway({ env: { LOG_LEVEL: 'warn' } });
const shop = await gw.merchant({ name: 'Lojas Aurora', feeBps: 150 });
const merchantId = shop.credentials.merchant_id;
// A few days of business: approvals, declines, a review, a refund.
const sold = await pay(shop, { amount: '249.90', shopper_email: 'maria@example.com' });
for (const [amount, card] of [['35.00', '4111111111111111'], ['12.50', '5555555555554444'], ['89.00', '4000000000000002'], ['19.99', '4000000000009995'], ['54.00', '4000000000004954']] as const) {
  await pay(shop, { amount, card });
}
await pay(shop, { currency: 'EUR', amount: '120.00' });
await refund(shop, sold, '49.90', { refund_reason: 'one item returned' });
const chrome = await launchBrowser();
const owner = await createMember(gw, merchantId, 'owner', { email: 'ana@lojas-aurora.example' });
await createMember(gw, merchantId, 'admin', { email: 'bruno@lojas-aurora.example' });
await createMember(gw, merchantId, 'operator', { email: 'carla@lojas-aurora.example' });
await createMember(gw, merchantId, 'viewer', { email: 'davi@lojas-aurora.example' });

const only = process.argv.slice(2);

async function shoot(name: string, visit: (page: Page) => Promise<void>, member?: TestMember) {
  if (only.length > 0 && !only.includes(name)) return;
  for (const phone of [true, false]) {
    const context = await chrome.context({ phone });
    const page = await context.newPage();
    if (member) await signInBrowser(page, gw.url, member);
    await visit(page);
    await page.screenshot({ path: new URL(`${name}-${phone ? 'phone' : 'desktop'}.png`, OUT).pathname, fullPage: phone });
    await context.close();
  }
}

await shoot('sign-in', async (page) => {
  await page.goto(`${gw.url}/portal/sign-in`);
});
// The owner enrols on the first sign-in; later sign-ins ask for a code.
await shoot(
  'transactions',
  async (page) => {
    await page.goto(`${gw.url}/portal/transactions`);
  },
  owner,
);
await shoot('second-factor', async (page) => {
  await page.goto(`${gw.url}/portal/sign-in`);
  await page.getByLabel('E-mail').fill(owner.email);
  await page.getByLabel('Password').fill(owner.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${gw.url}/portal/second-factor`);
});
await shoot('members', async (page) => void (await page.goto(`${gw.url}/portal/members`)), owner);
await shoot('audit', async (page) => void (await page.goto(`${gw.url}/portal/audit`)), owner);
await shoot('transaction', async (page) => void (await page.goto(`${gw.url}/portal/transactions/${sold.transaction_id}`)), owner);
await shoot('balances', async (page) => void (await page.goto(`${gw.url}/portal/balances`)), owner);
await shoot('reports', async (page) => void (await page.goto(`${gw.url}/portal/reports?currency=USD`)), owner);
await shoot('settings', async (page) => void (await page.goto(`${gw.url}/portal/settings`)), owner);

await chrome.close();
await gw.close();
process.stdout.write(`screenshots written to ${OUT.pathname}\n`);
