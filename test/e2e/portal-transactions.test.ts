// The portal's money pages in Chromium: a search filter, a refund and a cancel from the
// transaction's page (seen in the API's query answer and the ledger), the CSV export, a key
// rotation showing the new secret once, and a viewer refused.
import { readFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { runCommand } from '../../src/cli/commands.ts';
import type { SignedClient } from '../support/client.ts';
import { launchBrowser, startLiveGateway, type LiveGateway, type TestBrowser } from '../support/browser.ts';
import { booksOf, pay } from '../support/lifecycle.ts';
import { createMember, nextCode, signInBrowser } from '../support/portal.ts';

let gw: LiveGateway;
let chrome: TestBrowser;
let shop: SignedClient;
let context: BrowserContext | undefined;

beforeAll(async () => {
  gw = await startLiveGateway();
  shop = await gw.merchant({ name: 'Lojas Aurora' });
  const ips = await runCommand(['ips', 'add', '--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id, '--cidr', '127.0.0.1'], gw.gateway.deps);
  expect(ips.exitCode).toBe(0);
  chrome = await launchBrowser();
});
afterAll(async () => {
  await chrome?.close();
  await gw?.close();
});
afterEach(async () => {
  await context?.close();
  context = undefined;
});

async function openTab(phone = false): Promise<Page> {
  context = await chrome.context({ phone });
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  return page;
}

async function queried(transactionId: string): Promise<Record<string, string>> {
  const answer = await shop.post('/v1/retrievalTrans', { ...shop.ids, transaction_id: transactionId });
  return answer.body.orders_list[0];
}

describe('portal transactions in a browser', () => {
  it('filters by order number, refunds part of a payment and cancels a held one', async () => {
    const sold = await pay(shop, { amount: '80.00' });
    const held = await pay(shop, { card: '4000000000004954', amount: '15.00' });
    await pay(shop, { amount: '3.00' });
    const operator = await createMember(gw, shop.ids.merchant_id, 'operator');
    const page = await openTab(true);
    await signInBrowser(page, gw.url, operator);

    await page.getByLabel('Order number').fill(sold.order_no);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/order_no=/);
    await expect(page.locator('table.data tbody tr').count()).resolves.toBe(1);
    await page.getByRole('link', { name: sold.transaction_id }).click();
    await page.waitForURL(`${gw.url}/portal/transactions/${sold.transaction_id}`);

    await page.getByLabel(/^Amount \(USD\), up to/).fill('25.00');
    await page.getByLabel('Reason (optional)').fill('one item returned');
    await page.getByRole('button', { name: 'Refund' }).click();
    await page.waitForURL(/done=refund&outcome=succeeded/);
    await expect(page.getByRole('status').innerText()).resolves.toContain('The refund is done.');
    expect(await queried(sold.transaction_id)).toMatchObject({ refunded_amount: '25.00' });
    expect((await booksOf(gw, sold.transaction_id)).processor_receivable).toBe(5500);

    await page.goto(`${gw.url}/portal/transactions/${held.transaction_id}`);
    await page.getByRole('button', { name: 'Cancel payment' }).click();
    await page.waitForURL(/done=cancel&outcome=succeeded/);
    expect(await queried(held.transaction_id)).toMatchObject({ payment_status: '4000' });
    expect(await booksOf(gw, held.transaction_id)).toEqual({});
  });

  it('exports the search as CSV with formulas neutralised', async () => {
    const formula = await pay(shop, { order_no: `=1+2-${Date.now()}` });
    const viewer = await createMember(gw, shop.ids.merchant_id, 'viewer');
    const page = await openTab();
    await signInBrowser(page, gw.url, viewer);
    await page.getByLabel('Transaction id').fill(formula.transaction_id);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/transaction_id=/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    const text = await readFile((await download.path())!, 'utf8');
    expect(text.split('\r\n')).toHaveLength(3);
    expect(text).toContain(`"'${formula.order_no}"`);
  });

  it('refuses a viewer the actions and the settings', async () => {
    const txn = await pay(shop);
    const viewer = await createMember(gw, shop.ids.merchant_id, 'viewer');
    const page = await openTab(true);
    await signInBrowser(page, gw.url, viewer);
    await page.goto(`${gw.url}/portal/transactions/${txn.transaction_id}`);
    await expect(page.getByRole('button', { name: 'Refund' }).count()).resolves.toBe(0);
    const answer = await page.goto(`${gw.url}/portal/settings`);
    expect(answer!.status()).toBe(403);
    await expect(page.getByRole('alert').innerText()).resolves.toContain('your role does not allow this page');
  });

  it('rotates the secret key: shown once, and it signs requests at once', async () => {
    const admin = await createMember(gw, shop.ids.merchant_id, 'admin');
    const page = await openTab();
    await signInBrowser(page, gw.url, admin);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Rotate the secret key' }).click();
    await page.waitForURL(/rotate-key$/);
    // Rotating asks for the password and code again unless the member confirmed them minutes ago.
    if (await page.getByRole('heading', { name: 'Confirm it is you' }).count()) {
      await page.getByLabel('Password').fill(admin.password);
      await page.getByLabel('Authenticator code').fill(nextCode(admin));
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.waitForLoadState();
    }
    const secret = (await page.locator('#new-secret').innerText()).trim();
    expect(secret).toMatch(/^sk_/);
    const answer = await shop.post('/v1/retrievalTrans', { ...shop.ids, order_no: 'none' }, { secret });
    expect(answer.status).toBe(200);
    expect(answer.body.orders_list).toEqual([expect.objectContaining({ order_no: 'none', query_result: '0' })]);
    await page.goto(`${gw.url}/portal/settings`);
    await expect(page.content()).resolves.not.toContain(secret);
  });
});
