// The portal's sign-in in Chromium: an owner enrols a second factor at the first sign-in and gives
// a code at the next; a member locked after repeated failures is refused even the right password;
// a viewer is refused the members page; signing out ends the session.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { launchBrowser, startLiveGateway, type LiveGateway, type TestBrowser } from '../support/browser.ts';
import { createMember, nextCode, signInBrowser } from '../support/portal.ts';

let gw: LiveGateway;
let chrome: TestBrowser;
let merchantId: string;
let context: BrowserContext | undefined;

beforeAll(async () => {
  gw = await startLiveGateway();
  merchantId = (await gw.merchant({ name: 'Lojas Aurora' })).credentials.merchant_id;
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
  return context.newPage();
}

describe('portal sign-in in a browser', () => {
  it('makes an owner enrol TOTP at the first sign-in (a QR code of the setup link), then asks for a code', async () => {
    const owner = await createMember(gw, merchantId, 'owner');
    const page = await openTab();
    const refusedByPolicy: string[] = [];
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) refusedByPolicy.push(message.text());
    });
    await page.goto(`${gw.url}/portal/sign-in`);
    await page.getByLabel('E-mail').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${gw.url}/portal/enrol`);
    // The QR code is inline SVG made from the very link shown as text, which carries the key shown.
    const qr = page.getByRole('img', { name: 'QR code of the setup link for your authenticator app' });
    await expect(qr.isVisible()).resolves.toBe(true);
    await expect(qr.evaluate((node) => node.tagName.toLowerCase())).resolves.toBe('svg');
    const uri = await page.locator('#totp-uri').textContent();
    await expect(qr.getAttribute('data-qr-text')).resolves.toBe(uri);
    owner.totpSecret = (await page.locator('#totp-secret').innerText()).replace(/\s/g, '');
    expect(new URL(uri!).searchParams.get('secret')).toBe(owner.totpSecret);
    await page.getByLabel('Code from the app').fill(nextCode(owner));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('link', { name: 'Continue' }).click();
    await page.waitForURL(`${gw.url}/portal/transactions`);
    expect(refusedByPolicy).toEqual([]);
    await expect(page.getByRole('heading', { name: 'Transactions' }).isVisible()).resolves.toBe(true);
    await expect(page.locator('.portal-who').innerText()).resolves.toContain('Lojas Aurora');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${gw.url}/portal/sign-in`);

    await page.getByLabel('E-mail').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${gw.url}/portal/second-factor`);
    await page.getByLabel('Code').fill('123456');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.locator('#form-error').innerText()).resolves.toContain('not right');
    await page.getByLabel('Code').fill(nextCode(owner));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${gw.url}/portal/transactions`);
  });

  it('locks a member after five failed passwords, even against the right one', async () => {
    const member = await createMember(gw, merchantId, 'operator');
    const page = await openTab(true);
    await page.goto(`${gw.url}/portal/sign-in`);
    for (let i = 0; i < 5; i++) {
      await page.getByLabel('E-mail').fill(member.email);
      await page.getByLabel('Password').fill(`wrong password ${i}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.locator('#form-error').innerText()).resolves.toContain('not right');
    }
    await page.getByLabel('Password').fill(member.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.locator('#form-error').innerText()).resolves.toContain('locked for 15 minutes');
    expect(page.url()).toBe(`${gw.url}/portal/sign-in`);
  });

  it('refuses a viewer the members page', async () => {
    const viewer = await createMember(gw, merchantId, 'viewer');
    const page = await openTab();
    await signInBrowser(page, gw.url, viewer);
    await expect(page.getByRole('link', { name: 'Members' }).count()).resolves.toBe(0);
    const answer = await page.goto(`${gw.url}/portal/members`);
    expect(answer!.status()).toBe(403);
    await expect(page.locator('.alert').innerText()).resolves.toContain('does not allow');
  });
});
