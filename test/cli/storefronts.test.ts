// acquiro storefronts: the sites allowed to frame an account's hosted payment page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());

describe('acquiro storefronts', () => {
  it('adds, lists and removes the sites that may frame the page, refusing what is not a site', async () => {
    const shop = await gw.merchant();
    const ids = ['--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id];
    const run = (...argv: string[]) => runCommand([...argv, ...ids], gw.gateway.deps);
    expect((await run('storefronts', 'add', '--domain', 'https://Shop.example/')).stdout).toBe('added https://shop.example\n');
    await run('storefronts', 'add', '--domain', '*.shop.example');
    await run('storefronts', 'add', '--domain', 'https://shop.example');
    const listed = await run('storefronts', 'list', '--json');
    expect(JSON.parse(listed.stdout)).toEqual({ account_id: shop.ids.account_id, storefront_domains: ['*.shop.example', 'https://shop.example'] });
    const bad = await run('storefronts', 'add', '--domain', "https://x.example; script-src 'unsafe-inline'");
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('is not a site');
    await run('storefronts', 'remove', '--domain', '*.shop.example');
    expect((await run('storefronts', 'list')).stdout).toBe('https://shop.example\n');
    const other = await runCommand(['storefronts', 'list', '--merchant-id', shop.ids.merchant_id, '--account-id', 'A999999'], gw.gateway.deps);
    expect(other.exitCode).toBe(1);
  });

  // It printed "removed shop.example" for a site that was not on the list (added as
  // https://shop.example, a different source), and the site the operator meant to stop could frame
  // the page still.
  it('says so when the site to remove is not on the list, and lists what stays', async () => {
    const shop = await gw.merchant();
    const ids = ['--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id];
    const run = (...argv: string[]) => runCommand([...argv, ...ids], gw.gateway.deps);
    await run('storefronts', 'add', '--domain', 'https://shop.example');
    const text = await run('storefronts', 'remove', '--domain', 'shop.example');
    expect([text.exitCode, text.stdout]).toEqual([0, 'shop.example was not on the list: https://shop.example may frame the page\n']);
    const json = await run('storefronts', 'remove', '--domain', 'shop.example', '--json');
    expect(JSON.parse(json.stdout)).toEqual({ account_id: shop.ids.account_id, removed: false, storefront_domains: ['https://shop.example'] });
    const done = await run('storefronts', 'remove', '--domain', 'https://shop.example', '--json');
    expect(JSON.parse(done.stdout)).toEqual({ account_id: shop.ids.account_id, removed: true, storefront_domains: [] });
  });

  it('refuses a host longer than DNS allows (253 characters, 63 a label), as the site it cannot be', async () => {
    const shop = await gw.merchant();
    const ids = ['--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id];
    const add = (domain: string) => runCommand(['storefronts', 'add', '--domain', domain, ...ids], gw.gateway.deps);
    const longest = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    expect(longest).toHaveLength(253);
    expect(await add(`https://${longest}:8443`)).toMatchObject({ exitCode: 0, stdout: `added https://${longest}:8443\n` });
    for (const domain of [`${longest}d`, `${'a'.repeat(64)}.example`, `https://${'a.'.repeat(1500)}example`]) {
      const refused = await add(domain);
      expect([refused.exitCode, refused.stdout]).toEqual([2, '']);
      expect(refused.stderr).toBe(`error: --domain ${domain} is not a site such as https://shop.example, shop.example or *.example.com\n`);
    }
    const listed = JSON.parse((await runCommand(['storefronts', 'list', '--json', ...ids], gw.gateway.deps)).stdout);
    expect(listed.storefront_domains).toEqual([`https://${longest}:8443`]);
  });

  it('tells every process to drop its cached account at each change, as the portal does', async () => {
    const shop = await gw.merchant();
    const ids = ['--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id];
    const version = async () => (await gw.database.query<{ version: string }>(`SELECT version::text FROM cache_versions WHERE name = 'accounts'`))[0]!.version;
    const before = Number(await version());
    expect((await runCommand(['storefronts', 'add', '--domain', 'https://cached.example', ...ids], gw.gateway.deps)).exitCode).toBe(0);
    expect(Number(await version())).toBe(before + 1);
    expect((await runCommand(['storefronts', 'remove', '--domain', 'https://cached.example', ...ids], gw.gateway.deps)).exitCode).toBe(0);
    expect(Number(await version())).toBe(before + 2);
  });
});
