import { pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

const PERIOD = 30;
const ISSUER = 'Content service';
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const ITERATIONS = 10_000;

const totp = (secret: string, label = 'user') =>
  new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secret) });

/** A new 160-bit seed, base32. */
export const newSeed = (): string => new Secret({ size: 20 }).base32;

export const otpauthUrl = (secret: string, account: string): string => totp(secret, account).toString();

/** The time step of a valid code (the current one, or one step either side), or null. */
export function codeStep(secret: string, code: string, nowMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totp(secret).validate({ token: code, timestamp: nowMs, window: 1 });
  return delta === null ? null : Math.floor(nowMs / 1000 / PERIOD) + delta;
}

/** The code of a time (tests and tools). */
export const codeAt = (secret: string, nowMs: number): string => totp(secret).generate({ timestamp: nowMs });

/** Eight single-use recovery codes, `XXXXX-XXXXX` (50 bits each). */
export function newRecoveryCodes(n = 8): string[] {
  return Array.from({ length: n }, () => {
    const bytes = randomBytes(10);
    const chars = [...bytes].map((b) => ALPHABET.charAt(b % ALPHABET.length)).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

const normalise = (code: string) =>
  code
    .trim()
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '');

/** A one-way PBKDF2-SHA256 hash with its own salt: `pbkdf2$<iterations>$<salt>$<hash>`. */
export function hashRecoveryCode(code: string): string {
  const salt = randomBytes(16);
  const hash = pbkdf2Sync(normalise(code), salt, ITERATIONS, 32, 'sha256');
  return `pbkdf2$${ITERATIONS}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** The index of the unspent hash this code matches (compared in constant time), or -1. */
export function findRecoveryCode(hashes: (string | null)[], code: string): number {
  const plain = normalise(code);
  let found = -1;
  hashes.forEach((h, i) => {
    if (!h) return;
    const [, iterations, salt, hash] = h.split('$') as [string, string, string, string];
    const expected = Buffer.from(hash, 'base64');
    const got = pbkdf2Sync(plain, Buffer.from(salt, 'base64'), Number(iterations), expected.length, 'sha256');
    if (timingSafeEqual(got, expected) && found < 0) found = i;
  });
  return found;
}
