import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every API key starts with this; the authenticator claims any token that does. */
export const API_KEY_PREFIX = 'svck_';
/** Publishable (browser-safe, read-only, origin-locked) keys. */
export const PUBLISHABLE_PREFIX = 'svck_pub_';
/** How many leading characters of a key are kept and shown to recognise it. */
const SHOWN = 12;
const ID = /^[A-Za-z0-9]{1,64}$/;
const SECRET = /^[A-Za-z0-9_-]{43}$/;

export interface NewApiKey {
  /** The plaintext: `svck_<id>_<secret>` or `svck_pub_<id>_<secret>`, shown once. */
  key: string;
  prefix: string;
  secretHash: string;
}

export interface ParsedApiKey {
  id: string;
  secret: string;
  publishable: boolean;
}

/**
 * The secret is 32 random bytes: with that much entropy a plain SHA-256 cannot be brute-forced, so no slow
 * password hash is needed (and every request can afford the check).
 */
export function generateApiKey(id: string, publishable: boolean): NewApiKey {
  const secret = randomBytes(32).toString('base64url');
  const key = `${publishable ? PUBLISHABLE_PREFIX : API_KEY_PREFIX}${id}_${secret}`;
  return { key, prefix: key.slice(0, SHOWN), secretHash: hashSecret(secret) };
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Splits a presented key; null when it is not one of our key shapes. Ids never contain `_`, secrets may. */
export function parseApiKey(token: string): ParsedApiKey | null {
  const publishable = token.startsWith(PUBLISHABLE_PREFIX);
  if (!publishable && !token.startsWith(API_KEY_PREFIX)) return null;
  const rest = token.slice(publishable ? PUBLISHABLE_PREFIX.length : API_KEY_PREFIX.length);
  const cut = rest.indexOf('_');
  if (cut < 0) return null;
  const id = rest.slice(0, cut);
  const secret = rest.slice(cut + 1);
  return ID.test(id) && SECRET.test(secret) ? { id, secret, publishable } : null;
}

/** Compares in constant time, so response timing tells nothing about how much of a guess was right. */
export function secretMatches(secret: string, secretHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(secretHash, 'hex');
  return stored.length === presented.length && timingSafeEqual(presented, stored);
}
