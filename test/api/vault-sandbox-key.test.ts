// A sandbox database sealed with the built-in key (no ACQUIRO_VAULT_KEYS) keeps working when the
// operator sets keys of their own, and `acquiro vault reseal` moves it to them: the built-in key's
// bytes are nowhere an operator could list them from. Live mode never opens with it. A reseal
// that meets a key the configuration lacks is refused, naming it, before it reseals anything.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Vault } from '../../src/app/vault.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { signedClient } from '../support/client.ts';
import { cardPayment } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let own: Gateway | undefined;
beforeAll(async () => {
  gw = await startTestGateway(); // sandbox, no ACQUIRO_VAULT_KEYS: the built-in key seals
});
afterAll(async () => {
  await own?.server.app.close();
  await gw?.close();
});

describe('a sandbox database given ACQUIRO_VAULT_KEYS of its own', () => {
  it('still opens what the built-in key sealed, and reseals it with the new key', async () => {
    const shop = await gw.merchant();
    const stored = await shop.post('/v1/authorise', cardPayment(shop.ids, { token_flag: '1' }));
    expect(stored.body.token_id).not.toBe('');

    const k1 = { id: 'k1', key: randomBytes(32) };
    own = await createGateway({ config: { ...gw.config, vaultKeys: [k1] }, database: gw.database });
    // Every request of an existing merchant was a 500: its secret key could not be opened.
    const client = signedClient(own.server.app, shop.credentials);
    const paid = await client.post('/v1/authorise', cardPayment(client.ids, { token_id: stored.body.token_id, card: undefined, expiration_month: undefined, expiration_year: undefined, security_code: undefined }));
    expect([paid.status, paid.body.result_info]).toEqual([200, '0000:Success']);

    const resealed = await runCommand(['vault', 'reseal', '--json'], own.deps);
    expect(resealed.exitCode).toBe(0);
    expect(JSON.parse(resealed.stdout)).toMatchObject({ vault_key: 'k1', tokens: 1 });
    const [left] = await gw.database.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM account_keys WHERE vault_key_id = 'sandbox') + (SELECT count(*) FROM card_tokens WHERE vault_key_id = 'sandbox') AS n`,
    );
    expect(Number(left!.n)).toBe(0);

    // A key the configuration lacks is refused before anything is resealed, naming it: exit 78, not
    // an unexpected failure (70) halfway through.
    const k2 = { id: 'k2', key: randomBytes(32) };
    const lacking = await runCommand(['vault', 'reseal'], { ...own.deps, vault: new Vault([k2]) });
    expect([lacking.exitCode, lacking.stdout, lacking.stderr]).toEqual([
      78,
      '',
      'error: ACQUIRO_VAULT_KEYS does not hold vault key k1, which sealed rows of this database: list it after the active key and run `acquiro vault reseal` again; nothing was resealed\n',
    ]);
    const [stillK1] = await gw.database.query<{ n: number }>(`SELECT count(*) AS n FROM account_keys WHERE vault_key_id = 'k2'`);
    expect(Number(stillK1!.n)).toBe(0);

    // Live mode never takes the built-in key, which is not secret.
    const sealed = new Vault([]).seal('sk_test_x', 'row');
    expect(() => Vault.fromConfig({ ...gw.config, mode: 'live', vaultKeys: [k1] }).open(sealed, 'row')).toThrow(/vault key sandbox is not configured/);
    expect(Vault.fromConfig({ ...gw.config, vaultKeys: [k1] }).open(sealed, 'row')).toBe('sk_test_x');
  });
});
