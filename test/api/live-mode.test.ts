// Each account's connector and its sealed credentials (`acquiro accounts connector`), and live
// mode's honesty: no live merchant on the sandbox simulator, no start on data it cannot decrypt,
// and no 500 for a configuration problem (an account whose connector this process lacks).
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import { createGateway } from '../../src/gateway.ts';
import { signedClient } from '../support/client.ts';
import { cardPayment } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { tempDir } from '../support/temp.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());

const acquiro = (...argv: string[]) => runCommand(argv, gw.gateway.deps);
const live = () => ({ ...gw.gateway.deps, config: { ...gw.gateway.deps.config, mode: 'live' as const } });
/** The uid (and gid) of `nobody` on Linux: a user that is neither root nor the one running the tests. */
const NOBODY = 65534;
const file = (content: string) => {
  const path = join(tempDir('acquiro-creds-'), 'credentials.json');
  writeFileSync(path, content, { mode: 0o600 });
  return path;
};

describe('acquiro accounts connector', () => {
  it('stores the credentials sealed, shows only their names, and refuses an unknown connector', async () => {
    const shop = await gw.merchant();
    const ids = ['--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id];
    const set = await acquiro('accounts', 'connector', 'set', ...ids, '--connector', 'simulator', '--credentials-file', file('{"api_key":"ak_live_secret_123","region":"eu"}'));
    expect([set.exitCode, set.stdout]).toEqual([0, `account ${shop.ids.account_id}: connector simulator, credentials api_key, region\n`]);
    const [row] = await gw.database.query<{ connector_credentials: string }>(`SELECT connector_credentials FROM accounts WHERE id = $1`, [shop.ids.account_id]);
    expect(row!.connector_credentials).not.toContain('ak_live_secret_123');
    expect(JSON.parse((await acquiro('accounts', 'connector', 'show', ...ids, '--json')).stdout)).toEqual({
      account_id: shop.ids.account_id,
      connector: 'simulator',
      credentials: ['api_key', 'region'],
    });

    const unknown = await acquiro('accounts', 'connector', 'set', ...ids, '--connector', 'acme');
    expect([unknown.exitCode, unknown.stderr]).toEqual([1, 'error: no connector acme is registered in sandbox mode\n']);
    const bad = await acquiro('accounts', 'connector', 'set', ...ids, '--connector', 'simulator', '--credentials-file', file('["x"]'));
    expect(bad.stderr).toMatch(/must hold one JSON object whose values are text/);

    // `-`: from standard input (a secret manager's pipe), as src/cli/main.ts hands on a file it read.
    const piped = await runCommand(['accounts', 'connector', 'set', ...ids, '--connector', 'simulator', '--credentials-file', '-', '--json'], gw.gateway.deps, {
      stdin: async () => '{"api_key":"ak_live_piped_456"}\n',
    });
    expect([piped.exitCode, JSON.parse(piped.stdout)]).toEqual([0, { account_id: shop.ids.account_id, connector: 'simulator', credentials: ['api_key'], dropped_credentials: [] }]);
    const notJson = await runCommand(['accounts', 'connector', 'set', ...ids, '--connector', 'simulator', '--credentials-file', '-'], gw.gateway.deps, { stdin: async () => 'api_key=x' });
    expect([notJson.exitCode, notJson.stderr]).toEqual([2, 'error: --credentials-file on standard input is not a readable JSON file\n']);
  });

  it.each([0o644, 0o640, 0o604, 0o620, 0o602])('refuses a credentials file its group or others may read or write (mode %o), naming it and chmod 600, nothing stored', async (mode) => {
    const shop = await gw.merchant();
    const ids = ['--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id];
    const shared = file('{"api_key":"ak_live_shared_1"}');
    chmodSync(shared, mode);
    const refused = await acquiro('accounts', 'connector', 'set', ...ids, '--connector', 'simulator', '--credentials-file', shared);
    const shown = `0${mode.toString(8)}`;
    expect([refused.exitCode, refused.stdout, refused.stderr]).toEqual([
      2,
      '',
      `error: --credentials-file ${shared} can be read or written by its group or others (mode ${shown}): run chmod 600 ${shared} (or give the credentials on standard input with --credentials-file -)\n`,
    ]);
    expect(JSON.parse((await acquiro('accounts', 'connector', 'show', ...ids, '--json')).stdout).credentials).toEqual([]);

    // The owner's alone (600, or 400): taken.
    chmodSync(shared, 0o400);
    const taken = await acquiro('accounts', 'connector', 'set', ...ids, '--connector', 'simulator', '--credentials-file', shared, '--json');
    expect([taken.exitCode, JSON.parse(taken.stdout).credentials]).toEqual([0, ['api_key']]);
  });

  // The tests run as root: the file is handed to `nobody`, who could rewrite it at will (mode 0600 notwithstanding).
  it.runIf(process.platform !== 'win32')("refuses a credentials file another user owns, naming it, its owner's uid and chown, nothing stored; the runner's own is taken", async () => {
    const shop = await gw.merchant();
    const ids = ['--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id];
    const theirs = file('{"api_key":"ak_live_theirs_1"}');
    chownSync(theirs, NOBODY, NOBODY);
    const refused = await acquiro('accounts', 'connector', 'set', ...ids, '--connector', 'simulator', '--credentials-file', theirs);
    const me = process.getuid!();
    expect([refused.exitCode, refused.stdout, refused.stderr]).toEqual([
      2,
      '',
      `error: --credentials-file ${theirs} is owned by another user (uid ${NOBODY}), who can rewrite it: run chown ${me} ${theirs} (or give the credentials on standard input with --credentials-file -)\n`,
    ]);
    expect(JSON.parse((await acquiro('accounts', 'connector', 'show', ...ids, '--json')).stdout).credentials).toEqual([]);

    // Back to the user running the command: taken.
    chownSync(theirs, me, process.getgid!());
    const taken = await acquiro('accounts', 'connector', 'set', ...ids, '--connector', 'simulator', '--credentials-file', theirs, '--json');
    expect([taken.exitCode, taken.stderr, JSON.parse(taken.stdout).credentials]).toEqual([0, '', ['api_key']]);
  });

  it('creates no merchant or account on a connector this mode has not registered', async () => {
    // A typo (`--connector acmee`) made an account every payment of which was declined 2008.
    const merchants = async () => JSON.parse((await acquiro('merchants', 'list', '--json')).stdout) as unknown[];
    const before = await merchants();
    const merchant = await acquiro('merchants', 'create', '--name', 'Acme shop', '--connector', 'acme', '--json');
    expect([merchant.exitCode, merchant.stdout, merchant.stderr]).toEqual([1, '', 'error: no connector acme is registered in sandbox mode\n']);
    const shop = await gw.merchant();
    const account = await acquiro('accounts', 'create', '--merchant-id', shop.ids.merchant_id, '--connector', 'acme', '--json');
    expect([account.exitCode, account.stdout, account.stderr]).toEqual([1, '', 'error: no connector acme is registered in sandbox mode\n']);
    const after = await merchants();
    expect(after.length).toBe(before.length + 1); // the shop made here, and nothing else
  });
});

describe('live mode', () => {
  const simulatorRefusal =
    'error: live mode: the sandbox simulator cannot process live payments; name the connector of your acquirer (--connector NAME), registered for live mode\n';

  it('refuses to put a merchant on the sandbox simulator', async () => {
    expect(await runCommand(['merchants', 'create', '--name', 'Live shop'], live())).toMatchObject({ exitCode: 1, stderr: simulatorRefusal });
    const shop = await gw.merchant();
    const ids = ['--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id];
    expect(await runCommand(['accounts', 'connector', 'set', ...ids, '--connector', 'simulator'], live())).toMatchObject({ exitCode: 1, stderr: simulatorRefusal });
    expect(await runCommand(['balance', 'topup', ...ids, '--currency', 'USD', '--amount', '1.00'], live())).toMatchObject({ exitCode: 1 });
  });

  it('refuses to start on a database whose sealed data its vault keys cannot open, saying what to do', async () => {
    await gw.merchant(); // a secret key sealed with the sandbox's vault key
    const config = { ...gw.config, mode: 'live' as const, vaultKeys: [{ id: 'k-new', key: randomBytes(32) }] };
    await expect(createGateway({ config, database: gw.database })).rejects.toThrow(
      /the database holds data sealed with vault key \S+, which ACQUIRO_VAULT_KEYS cannot open: start with the keys this database was sealed with/,
    );
  });

  it('answers a payment of an account whose connector it lacks without a 500', async () => {
    const shop = await gw.merchant(); // on the simulator, which a live process does not have
    const gateway = await createGateway({ config: { ...gw.config, mode: 'live' }, database: gw.database });
    try {
      const client = signedClient(gateway.server.app, shop.credentials);
      const answer = await client.post('/v1/authorise', cardPayment(client.ids));
      expect(answer.status).toBe(200);
      expect(answer.body.result_info).toBe('2008:Declined: processor error');
    } finally {
      await gateway.server.app.close();
    }
  });
});
