import { createHash, createHmac } from 'node:crypto';

const normal = (email: string) => email.trim().toLowerCase();

/**
 * Keyed names for email addresses (claim streams, setup's claim, limiter keys): HMAC-SHA256 under the instance's
 * `email_hash_key`, so a name in the log or in Redis cannot be tested against a list of addresses without that key,
 * and stays meaningless after erasure. The key is its own instance secret, never the JWT secret: rotating the JWT
 * secret must not move every claim (uniqueness would break).
 */
export class AddressHasher {
  constructor(private readonly key: string) {}

  /** The keyed hash of an address (trimmed, lower-cased), hex. */
  hash(email: string): string {
    return createHmac('sha256', this.key).update(normal(email)).digest('hex');
  }
}

/** The unkeyed SHA-256 that named claim streams before the keyed hash: older logs hold claims under it. */
export const legacyAddressHash = (email: string) => createHash('sha256').update(normal(email)).digest('hex');
