// The portal's money pages in Chromium: every search filter (one browser session), a refund and a
// cancel from the transaction's page (seen in the API's query answer and the ledger), a refund
// above the threshold whose form key survives the password step and whose form sent again refunds
// nothing more, the CSV export, a key rotation showing the new secret once, a viewer refused, and
// another merchant's transaction, subscription and payout answered "not found" with nothing changed.
import { readFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import type { SignedClient } from '../support/client.ts';
import { launchBrowser, startLiveGateway, type LiveGateway, type TestBrowser } from '../support/browser.ts';
import { freshCard } from '../support/fixtures.ts';
import { allowQueriesFrom, booksOf, pay, type Txn } from '../support/lifecycle.ts';
import { payoutBody, topUp } from '../support/payouts.ts';
import { anyFormKey, createMember, nextCode, signInBrowser, staleReauth } from '../support/portal.ts';
import { subscribe, subscribing, subscriptionOf } from '../support/subscriptions.ts';

let gw: LiveGateway;
let chrome: TestBrowser;
let shop: SignedClient;
let context: BrowserContext | undefined;

beforeAll(async () => {
  gw = await startLiveGateway();
  shop = await gw.merchant({ name: 'Lojas Aurora' });
  await allowQueriesFrom(gw, [shop]);
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

/** The not-found page's words, as for an id that does not exist. */
const NOT_FOUND = /no such|not found|\bno (account|subscription|payout|transaction)\b/i;

/** A script for the page: posts a form as the browser would, from the portal's own origin. */
function postForm(action: string, fields: Record<string, string>): string {
  return `(() => {
    const form = document.createElement('form');
    form.method = 'post';
    form.action = ${JSON.stringify(action)};
    for (const [name, value] of Object.entries(${JSON.stringify(fields)})) {
      const input = document.createElement('input');
      input.type = 'hidden';
      input.name = name;
      input.value = value;
      form.append(input);
    }
    document.body.append(form);
    form.submit();
  })()`;
}

async function queried(client: SignedClient, transactionId: string): Promise<Record<string, string>> {
  const answer = await client.post('/v1/retrievalTrans', { ...client.ids, transaction_id: transactionId });
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
    expect(await queried(shop, sold.transaction_id)).toMatchObject({ refunded_amount: '25.00' });
    expect((await booksOf(gw, sold.transaction_id)).processor_receivable).toBe(5500);

    await page.goto(`${gw.url}/portal/transactions/${held.transaction_id}`);
    await page.getByRole('button', { name: 'Cancel payment' }).click();
    await page.waitForURL(/done=cancel&outcome=succeeded/);
    expect(await queried(shop, held.transaction_id)).toMatchObject({ payment_status: '4000' });
    expect(await booksOf(gw, held.transaction_id)).toEqual({});
  });

  it('keeps a refund form’s key through the password step, and the form sent again refunds nothing more', async () => {
    const sold = await pay(shop, { amount: '900.00' });
    const operator = await createMember(gw, shop.ids.merchant_id, 'operator');
    const page = await openTab();
    await signInBrowser(page, gw.url, operator);
    await staleReauth(gw, operator);
    const path = `/portal/transactions/${sold.transaction_id}/refund`;
    await page.goto(`${gw.url}/portal/transactions/${sold.transaction_id}`);
    const formKey = page.locator(`form[action="${path}"] input[name="form_key"]`);
    const key = await formKey.inputValue();
    expect(key).toMatch(/^[A-Za-z0-9_-]{22,}$/);

    await page.getByLabel(/^Amount \(USD\), up to/).fill('600.00');
    await page.getByRole('button', { name: 'Refund' }).click();
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await expect(page.locator('input[name="form_key"]').inputValue()).resolves.toBe(key);
    await page.getByLabel('Password').fill(operator.password);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL(/done=refund&outcome=succeeded/);

    // The browser sends the confirmed form again (its answer lost): answered as the first, nothing refunded.
    await page.goto(`${gw.url}/portal/account`);
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    await page.evaluate(postForm(path, { _csrf: csrf, refund_amount: '600.00', form_key: key, _reauth_password: operator.password }));
    await page.waitForURL(`${gw.url}/portal/transactions/${sold.transaction_id}?done=refund&outcome=succeeded`);
    expect(await queried(shop, sold.transaction_id)).toMatchObject({ refunded_amount: '600.00' });

    // The page shown after it is a new render: a new key, and a second refund made on purpose.
    await page.goto(`${gw.url}/portal/transactions/${sold.transaction_id}`);
    await expect(formKey.inputValue()).resolves.not.toBe(key);
    await page.getByLabel(/^Amount \(USD\), up to/).fill('100.00');
    await page.getByRole('button', { name: 'Refund' }).click();
    await page.waitForURL(/done=refund&outcome=succeeded/);
    expect(await queried(shop, sold.transaction_id)).toMatchObject({ refunded_amount: '700.00' });
    const [refunds] = await gw.database.query<{ n: number }>('SELECT count(*)::int AS n FROM refunds WHERE payment_id = $1', [sold.transaction_id]);
    expect(refunds!.n).toBe(2);
    expect((await booksOf(gw, sold.transaction_id)).processor_receivable).toBe(20000);
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

  it('filters by each field of the search form', async () => {
    // A merchant of its own, so each filter's answer is known exactly.
    const filtered = await gw.merchant({ name: 'Filtros' });
    const usd = await pay(filtered, { amount: '12.34', shopper_email: 'Ann@Shop.example' });
    const eur = await pay(filtered, { currency: 'EUR', amount: '99.00', card: '5555555555554444' });
    const declined = await pay(filtered, { card: '4000000000000002', amount: '5.00' });
    await pay(filtered, { amount: '40.00', card: freshCard() });
    const apm = await filtered.post('/v1/authorise', { ...filtered.ids, payment_method: 'sandbox_redirect', order_no: `APM-${Date.now()}`, currency: 'EUR', amount: '18.00', return_url: 'https://shop.example/return' });
    expect(apm.body.order_status).toBe('2');
    const [{ day }] = (await gw.database.query<{ day: string }>(`SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM payments WHERE id = $1`, [usd.transaction_id])) as [{ day: string }];
    const viewer = await createMember(gw, filtered.ids.merchant_id, 'viewer');
    const page = await openTab(true);
    await signInBrowser(page, gw.url, viewer);
    type Fill = Record<string, string>;
    const cases: [string, Fill, Fill, () => string[]][] = [
      ['order number', { 'Order number': eur.order_no }, {}, () => [eur.transaction_id]],
      ['transaction id', { 'Transaction id': usd.transaction_id }, {}, () => [usd.transaction_id]],
      ['status', {}, { Status: 'failed' }, () => [declined.transaction_id]],
      ['date range (today)', { From: day, To: day, Currency: 'EUR', 'Card last four': '4444' }, {}, () => [eur.transaction_id]],
      ['date range (the past)', { From: '2020-01-01', To: '2020-01-02' }, {}, () => []],
      ['amount', { Currency: 'USD', 'Amount from': '10.01', 'Amount to': '20' }, {}, () => [usd.transaction_id]],
      ['card last four', { 'Card last four': '4444' }, {}, () => [eur.transaction_id]],
      ['shopper e-mail', { 'Shopper e-mail': 'ANN@shop.example' }, {}, () => [usd.transaction_id]],
      ['currency', { Currency: 'eur', 'Amount from': '90' }, {}, () => [eur.transaction_id]],
      ['payment method', {}, { 'Payment method': 'sandbox_redirect' }, () => [apm.body.transaction_id as string]],
    ];
    const shown = async () =>
      page.locator('table.data tbody a[href^="/portal/transactions/"]').evaluateAll((links) => links.map((link) => decodeURIComponent(link.getAttribute('href')!.split('/').pop()!)));
    for (const [name, fields, choices, expected] of cases) {
      await page.goto(`${gw.url}/portal/transactions`);
      for (const [label, value] of Object.entries(fields)) await page.getByLabel(label, { exact: true }).fill(value);
      for (const [label, value] of Object.entries(choices)) await page.getByLabel(label, { exact: true }).selectOption(value);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/\?/);
      expect(await shown(), name).toEqual(expected());
    }
  });

  it("answers another merchant's transaction, subscription and payout as not found, and their actions change nothing", async () => {
    const theirs = await gw.merchant({ name: 'Outra Loja' });
    await topUp(gw, theirs, 'USD', '500.00');
    const sold: Txn = await pay(theirs, { amount: '30.00' });
    const held: Txn = await pay(theirs, { card: '4000000000004954', amount: '15.00' });
    const { recurringId } = await subscribe(theirs, subscribing(theirs));
    const payday = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
    const payout = await theirs.post('/v1/payout', payoutBody(theirs, { payment_date: payday }));
    const payoutId = payout.body.transaction_id as string;
    const [payoutRow] = await gw.database.query<{ status: string }>('SELECT status FROM payouts WHERE id = $1', [payoutId]);
    expect(payoutRow).toBeDefined();
    const before = { sold: await queried(theirs, sold.transaction_id), held: await queried(theirs, held.transaction_id) };

    const admin = await createMember(gw, shop.ids.merchant_id, 'admin');
    const page = await openTab();
    await signInBrowser(page, gw.url, admin);
    const pages = [
      `/portal/transactions/${sold.transaction_id}`,
      `/portal/subscriptions/${theirs.ids.account_id}/${recurringId}`,
      `/portal/subscriptions/${shop.ids.account_id}/${recurringId}`,
      `/portal/payouts/${theirs.ids.account_id}/${payoutId}`,
      `/portal/payouts/${shop.ids.account_id}/${payoutId}`,
    ];
    for (const path of pages) {
      const answer = await page.goto(`${gw.url}${path}`);
      expect(answer!.status(), path).toBe(404);
      // Worded as for an id that does not exist: nothing says the other merchant's row is there.
      await expect(page.locator('main').innerText()).resolves.toMatch(NOT_FOUND);
    }
    // The actions posted from the browser with a good CSRF token of the member's own session.
    const actions: [string, Record<string, string>][] = [
      [`/portal/transactions/${sold.transaction_id}/refund`, { refund_amount: '30.00', form_key: anyFormKey() }],
      [`/portal/transactions/${held.transaction_id}/cancel`, { form_key: anyFormKey() }],
      [`/portal/transactions/${held.transaction_id}/capture`, { form_key: anyFormKey() }],
      [`/portal/transactions/${held.transaction_id}/review`, { decision: 'approve', form_key: anyFormKey() }],
      [`/portal/subscriptions/${theirs.ids.account_id}/${recurringId}/cancel`, {}],
      [`/portal/payouts/${theirs.ids.account_id}/${payoutId}/cancel`, {}],
    ];
    for (const [path, fields] of actions) {
      await page.goto(`${gw.url}/portal/account`);
      const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
      const answered = page.waitForResponse((response) => response.url().endsWith(path) && response.request().method() === 'POST');
      await page.evaluate(postForm(path, { _csrf: csrf, ...fields }));
      const response = await answered;
      // The answer's page is loaded before the next navigation starts.
      await page.waitForURL(`${gw.url}${path}`);
      expect(response.status(), path).toBe(404);
      await expect(page.locator('main').innerText()).resolves.toMatch(NOT_FOUND);
    }
    expect(await queried(theirs, sold.transaction_id)).toEqual(before.sold);
    expect(await queried(theirs, held.transaction_id)).toEqual(before.held);
    expect((await booksOf(gw, sold.transaction_id)).processor_receivable).toBe(3000);
    expect((await subscriptionOf(gw.gateway.deps, recurringId)).status).toBe('Active');
    expect(await gw.database.query<{ status: string }>('SELECT status FROM payouts WHERE id = $1', [payoutId])).toEqual([payoutRow]);
  });
});
