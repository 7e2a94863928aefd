// Vault keys rotate without downtime: a new key first in ACQUIRO_VAULT_KEYS seals new rows, old
// rows still open, and `acquiro vault reseal` moves them to the new key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Vault } from '../../src/app/vault.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { cardPayment } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

const key = (byte: number) => Buffer.alloc(32, byte).toString('base64');
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ env: { ACQUIRO_VAULT_KEYS: `k1:${key(1)}`, ACQUIRO_FINGERPRINT_KEY: key(9) } });
});
afterAll(() => gw?.close());

describe('vault key rotation', () => {
  it('keeps stored cards and secret keys usable across a rotation, then reseals them', async () => {
    const shop = await gw.merchant();
    const stored = await shop.post('/v1/authorise', cardPayment(shop.ids, { token_flag: '1' }));
    expect(stored.body.token_id).not.toBe('');

    // The operator puts k2 first and keeps k1 for reading.
    const rotated = new Vault(
      [{ id: 'k2', key: Buffer.from(key(2), 'base64') }, { id: 'k1', key: Buffer.from(key(1), 'base64') }],
      Buffer.from(key(9), 'base64'),
    );
    const deps = { ...gw.gateway.deps, vault: rotated };
    const result = await runCommand(['vault', 'reseal'], deps);
    expect(result.stdout).toMatch(/^resealed 1 stored cards and 1 secret keys with vault key k2/);
    const [token] = await gw.database.query<{ vault_key_id: string; pan_ciphertext: string }>('SELECT vault_key_id, pan_ciphertext FROM card_tokens WHERE id = $1', [stored.body.token_id]);
    expect(token?.vault_key_id).toBe('k2');

    // With k1 gone, everything still opens.
    const onlyK2 = new Vault([{ id: 'k2', key: Buffer.from(key(2), 'base64') }], Buffer.from(key(9), 'base64'));
    expect(onlyK2.open({ ciphertext: token!.pan_ciphertext, keyId: 'k2' }, stored.body.token_id)).toBe('4111111111111111');
    expect((await runCommand(['vault', 'reseal'], { ...deps, vault: onlyK2 })).stdout).toMatch(/^resealed 0 stored cards and 0 secret keys/);
  });
});
