// Staff credentials: passwords hashed with scrypt (node:crypto), random tokens kept as their
// SHA-256 only (session cookies, one-time links), recovery codes, and TOTP (RFC 6238, otpauth).
import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

// N is 2 to the configured cost (ACQUIRO_PASSWORD_COST, src/config.ts: 15 by default, at most
// 17), r=8, p=1. Stored with the hash, so a changed cost only affects new hashes: a password is
// checked with the parameters it was hashed with.
const SCRYPT = { r: 8, p: 1 } as const;
// scrypt needs 128·N·r bytes: 128 MiB at N=2^17.
const MAX_MEMORY = 256 * 1024 * 1024;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64url; N is 2^cost. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(16);
  const N = 2 ** cost;
  const key = await derive(password, salt, { N, ...SCRYPT, maxmem: MAX_MEMORY });
  return ['scrypt', N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function passwordMatches(stored: string, password: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p), maxmem: MAX_MEMORY });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Hashed when the e-mail is unknown, so an unknown address takes as long as a known one (whose hash has the cost configured). */
export function dummyHash(cost: number): string {
  return `scrypt$${2 ** cost}$${SCRYPT.r}$${SCRYPT.p}$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;
}

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 200;

/** Why a new password is refused, or undefined. Length is what counts (NIST 800-63B). */
export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `a password has at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `a password has at most ${MAX_PASSWORD_LENGTH} characters`;
  return undefined;
}

/** A random token (256 bits) for a cookie or a link. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored of a token: its SHA-256. A stolen table holds no usable cookie or link. */
export function tokenId(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Longer than any token newToken makes (43 characters): a client's text past it is no token of ours, and is not hashed. */
const LONGEST_TOKEN = 100;

/** The id of a token a client sent (a cookie's, a link's), or undefined for none or text that cannot be one. */
export function sentTokenId(token: string | undefined): string | undefined {
  return token && token.length <= LONGEST_TOKEN ? tokenId(token) : undefined;
}

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** Ten codes of 16 characters (about 79 bits each), shown once as xxxx-xxxx-xxxx-xxxx. */
export function newRecoveryCodes(count = 10): string[] {
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(16);
    const chars = [...bytes].map((byte) => RECOVERY_ALPHABET[byte % RECOVERY_ALPHABET.length]).join('');
    return chars.match(/.{4}/g)!.join('-');
  });
}

/** The stored form of a recovery code: typed in any case, with or without dashes and spaces. */
export function recoveryCodeHash(code: string): string {
  return tokenId(`recovery:${code.toLowerCase().replace(/[\s-]/g, '')}`);
}

export const TOTP_PERIOD_SECONDS = 30;

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, label = 'member'): TOTP {
  return new TOTP({ issuer: 'Acquiro', label, secret: Secret.fromBase32(secret), digits: 6, period: TOTP_PERIOD_SECONDS });
}

/** The otpauth:// URI an authenticator app reads (typed in, or from a QR code). */
export function totpUri(secret: string, email: string): string {
  return totp(secret, email).toString();
}

/** The current code (tests and the sandbox's own checks). */
export function totpCode(secret: string, at: Date): string {
  return totp(secret).generate({ timestamp: at.getTime() });
}

/**
 * The time step of a good code (one step of drift either way allowed), or undefined. A code at or
 * before `lastStep` was already used: refused, so an observed code cannot be replayed.
 */
export function totpStep(secret: string, code: string, at: Date, lastStep: number | null): number | undefined {
  const token = code.replace(/\s/g, '');
  if (!/^[0-9]{6}$/.test(token)) return undefined;
  const delta = totp(secret).validate({ token, timestamp: at.getTime(), window: 1 });
  if (delta === null) return undefined;
  const step = Math.floor(at.getTime() / 1000 / TOTP_PERIOD_SECONDS) + delta;
  return lastStep !== null && step <= lastStep ? undefined : step;
}
