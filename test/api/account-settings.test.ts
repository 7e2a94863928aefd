// `acquiro accounts settings show|set`: an account's rate limit and capture mode, changed after
// its creation and checked as creation checks them. That a running gateway applies the change
// from the next request is test/cli/account-settings.test.ts's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import type { SignedClient } from '../support/client.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());

const acquiro = (...argv: string[]) => runCommand(argv, gw.gateway.deps);
const ids = (client: SignedClient) => ['--merchant-id', client.ids.merchant_id, '--account-id', client.ids.account_id];
const stored = async (client: SignedClient) =>
  (await gw.database.query<{ capture_mode: string; rate_limit_per_second: number | null }>(`SELECT capture_mode, rate_limit_per_second FROM accounts WHERE id = $1`, [client.ids.account_id]))[0];

describe('acquiro accounts settings', () => {
  it('shows the settings, changes what is given and leaves the rest, and goes back to the default rate limit', async () => {
    const shop = await gw.merchant({ captureMode: 'auto' });
    const account = shop.ids.account_id;
    expect((await acquiro('accounts', 'settings', 'show', ...ids(shop))).stdout).toBe(`account ${account}: capture auto, rate limit the gateway's default (ACQUIRO_RATE_LIMIT)\n`);

    const limited = await acquiro('accounts', 'settings', 'set', ...ids(shop), '--rate-limit', '25');
    expect([limited.exitCode, limited.stdout, limited.stderr]).toEqual([0, `account ${account}: capture auto, rate limit 25 requests per second\n`, '']);
    const manual = await acquiro('accounts', 'settings', 'set', ...ids(shop), '--capture-mode', 'manual', '--json');
    expect(JSON.parse(manual.stdout)).toEqual({ account_id: account, capture_mode: 'manual', rate_limit_per_second: 25 });
    expect(await stored(shop)).toEqual({ capture_mode: 'manual', rate_limit_per_second: 25 });

    const both = await acquiro('accounts', 'settings', 'set', ...ids(shop), '--rate-limit', 'default', '--capture-mode', 'auto', '--json');
    expect(both.stderr).toBe('');
    expect(JSON.parse(both.stdout)).toEqual({ account_id: account, capture_mode: 'auto', rate_limit_per_second: null });
    expect(JSON.parse((await acquiro('accounts', 'settings', 'show', ...ids(shop), '--json')).stdout)).toEqual({ account_id: account, capture_mode: 'auto', rate_limit_per_second: null });
  });

  it.each([
    [['--rate-limit', '0'], 'error: --rate-limit must be a whole number from 1 to 9999999, or default\n'],
    [['--rate-limit', '10000000'], 'error: --rate-limit must be a whole number from 1 to 9999999, or default\n'],
    [['--rate-limit', '2.5'], 'error: --rate-limit must be a whole number from 1 to 9999999, or default\n'],
    [['--capture-mode', 'later'], "error: option '--capture-mode <mode>' argument 'later' is invalid. Allowed choices are auto, manual.\n"],
  ])('refuses set %o, naming the option, exit 2, nothing changed', async (args, stderr) => {
    const shop = await gw.merchant({ captureMode: 'manual' });
    await acquiro('accounts', 'settings', 'set', ...ids(shop), '--rate-limit', '40');
    const run = await acquiro('accounts', 'settings', 'set', ...ids(shop), ...args, '--capture-mode', 'auto');
    // With a good --capture-mode beside the bad value (or before it): nothing of either is stored.
    expect([run.exitCode, run.stdout, run.stderr]).toEqual([2, '', stderr]);
    expect(await stored(shop)).toEqual({ capture_mode: 'manual', rate_limit_per_second: 40 });
  });

  it('refuses set without a setting, exit 2, and an account of another merchant or the platform, exit 1', async () => {
    const [mine, theirs] = [await gw.merchant(), await gw.merchant()];
    const none = await acquiro('accounts', 'settings', 'set', ...ids(mine));
    expect([none.exitCode, none.stdout, none.stderr]).toEqual([2, '', 'error: give --rate-limit, --capture-mode or both\n']);
    const other = await acquiro('accounts', 'settings', 'set', '--merchant-id', mine.ids.merchant_id, '--account-id', theirs.ids.account_id, '--rate-limit', '5');
    expect([other.exitCode, other.stdout, other.stderr]).toEqual([1, '', `error: no account ${theirs.ids.account_id} under merchant ${mine.ids.merchant_id}\n`]);
    const platform = await acquiro('accounts', 'settings', 'set', '--merchant-id', 'platform', '--account-id', 'platform', '--capture-mode', 'manual');
    expect([platform.exitCode, platform.stdout, platform.stderr]).toEqual([1, '', 'error: no account platform under merchant platform\n']);
    expect(await stored(theirs)).toEqual({ capture_mode: 'auto', rate_limit_per_second: null });
  });
});
