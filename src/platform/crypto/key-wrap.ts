import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Keyring } from '../../kernel/crypto/keyring.ts';

const IV = 12;
const TAG = 16;

/** A key as stored under an instance key: `wrapped` is iv ‖ ciphertext ‖ tag (AES-256-GCM), `keyId` the ring's id. */
export interface WrappedKey {
  keyId: string;
  wrapped: Buffer;
}

/** The environment variable that configures instance key `keyId` (spec "Encryption key rules"). */
export const keyVariable = (keyId: string): string =>
  keyId === 'v0' ? 'ENCRYPTION_KEY' : `ENCRYPTION_KEY_${keyId.toUpperCase()}`;

/** Wraps `key` under the ring's active key; `aad` binds it to its owner, so moved to another row it does not open. */
export function wrapKey(ring: Keyring, key: Buffer, aad: string): WrappedKey {
  const keyId = ring.activeKeyId;
  const kek = keyId ? ring.keys.get(keyId) : undefined;
  if (!keyId || !kek) throw new Error('no encryption key');
  const iv = randomBytes(IV);
  const cipher = createCipheriv('aes-256-gcm', kek, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(key), cipher.final()]);
  return { keyId, wrapped: Buffer.concat([iv, body, cipher.getAuthTag()]) };
}

/**
 * The key inside a wrapped one. Throws (never null: a key that does not open is not an erased one) when `keyId` is
 * not configured, or the bytes were altered or moved to another owner.
 */
export function unwrapKey(ring: Keyring, { keyId, wrapped }: WrappedKey, aad: string): Buffer {
  const kek = ring.keys.get(keyId);
  if (!kek) throw new Error(`a key is wrapped under encryption key ${keyId}: set ${keyVariable(keyId)}`);
  if (wrapped.length <= IV + TAG) throw new Error(`a wrapped key under ${keyId} is too short`);
  const decipher = createDecipheriv('aes-256-gcm', kek, wrapped.subarray(0, IV));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(wrapped.subarray(wrapped.length - TAG));
  try {
    return Buffer.concat([decipher.update(wrapped.subarray(IV, wrapped.length - TAG)), decipher.final()]);
  } catch {
    throw new Error(`a key wrapped under encryption key ${keyId} does not open: altered, or not this owner's`);
  }
}
