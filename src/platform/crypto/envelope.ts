import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Keyring } from '../../kernel/crypto/keyring.ts';

const IV = 12;
const TAG = 16;
const ENVELOPE = /^([a-z0-9]{1,32}):([A-Za-z0-9+/]+={0,2})$/;

/** Whether a stored value is an envelope, and under which key. */
export function envelopeKeyId(value: unknown): string | null {
  return typeof value === 'string' ? (ENVELOPE.exec(value)?.[1] ?? null) : null;
}

/**
 * AES-256-GCM under the active key: `<keyId>:<base64(iv ‖ ciphertext ‖ tag)>`. `aad` binds the ciphertext to its
 * place (site, collection, item, field): moved anywhere else it no longer opens.
 */
export function sealValue(ring: Keyring, plaintext: string, aad: string, keyId = ring.activeKeyId): string {
  const key = keyId ? ring.keys.get(keyId) : undefined;
  if (!keyId || !key) throw new Error('no encryption key');
  const iv = randomBytes(IV);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${keyId}:${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64')}`;
}

/** The plaintext, or null when the key is not configured, or the envelope was tampered with or moved. */
export function openValue(ring: Keyring, envelope: string, aad: string): string | null {
  const m = ENVELOPE.exec(envelope);
  const key = m ? ring.keys.get(m[1]!) : undefined;
  if (!m || !key) return null;
  const raw = Buffer.from(m[2]!, 'base64');
  if (raw.length < IV + TAG) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(raw.subarray(raw.length - TAG));
    return Buffer.concat([decipher.update(raw.subarray(IV, raw.length - TAG)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
