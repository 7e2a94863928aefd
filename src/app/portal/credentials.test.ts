// Password hashes: the cost a gateway is configured with (ACQUIRO_PASSWORD_COST) is stored in each
// hash, and a password is checked with the cost its hash was made with.
import { describe, expect, it } from 'vitest';
import { DEFAULT_PASSWORD_COST } from '../../config.ts';
import { dummyHash, hashPassword, passwordMatches } from './credentials.ts';

describe('password hashes', () => {
  it("are scrypt at N=2^15, r=8, p=1 by default, in scrypt$N$r$p$salt$hash", async () => {
    const hash = await hashPassword('correct horse battery staple', DEFAULT_PASSWORD_COST);
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await passwordMatches(hash, 'correct horse battery staple')).toBe(true);
    expect(await passwordMatches(hash, 'correct horse battery stapler')).toBe(false);
  });

  it('are checked with the cost they were made with, whatever the cost is now', async () => {
    const cheap = await hashPassword('correct horse battery staple', 10);
    expect(cheap).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await passwordMatches(cheap, 'correct horse battery staple')).toBe(true);
    expect(await passwordMatches(cheap, 'Correct horse battery staple')).toBe(false);
  });

  it('of an unknown address cost what a known one costs, and match nothing', async () => {
    expect(dummyHash(DEFAULT_PASSWORD_COST)).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(dummyHash(10)).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await passwordMatches(dummyHash(10), '')).toBe(false);
  });
});
