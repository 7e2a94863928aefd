import { describe, expect, it } from 'vitest';
import { Vault } from '../../src/app/vault.ts';

const k = (byte: number) => Buffer.alloc(32, byte);

describe('vault', () => {
  it('seals with the first key and opens with any configured key', () => {
    const old = new Vault([{ id: 'k1', key: k(1) }]);
    const sealed = old.seal('4111111111111111', 'TK1');
    expect(sealed.keyId).toBe('k1');
    expect(sealed.ciphertext).not.toContain('4111');
    const rotated = new Vault([{ id: 'k2', key: k(2) }, { id: 'k1', key: k(1) }]);
    expect(rotated.open(sealed, 'TK1')).toBe('4111111111111111');
    expect(rotated.seal('x', 'TK2').keyId).toBe('k2');
  });

  it('refuses a ciphertext moved to another row', () => {
    const vault = new Vault([{ id: 'k1', key: k(1) }]);
    const sealed = vault.seal('4111111111111111', 'TK1');
    expect(() => vault.open(sealed, 'TK2')).toThrow();
  });

  it('keeps fingerprints stable across vault key rotation when a fingerprint key is set', () => {
    const a = new Vault([{ id: 'k1', key: k(1) }], k(9));
    const b = new Vault([{ id: 'k2', key: k(2) }], k(9));
    expect(a.fingerprint('4111111111111111')).toBe(b.fingerprint('4111111111111111'));
    expect(a.fingerprint('4111111111111111')).not.toBe(a.fingerprint('4111111111111112'));
  });
});
