import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { unwrapKey, wrapKey } from '../crypto/key-wrap.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { asSystem } from '../tenancy/site.ts';
import type { Db } from '../db/database.ts';

/** Personal data as stored in an event: `pii:<base64(iv | ciphertext | tag)>`, sealed with the subject's key. */
export type Sealed = string;
const PREFIX = 'pii:';

/** A row of `subject_keys`: the key in clear (`key_id` null, no instance key configured) or wrapped under `key_id`. */
export interface StoredSubjectKey {
  key: Buffer;
  key_id: string | null;
}

/** What binds a wrapped subject key to its subject: swapped into another subject's row it does not open. */
export const subjectKeyAad = (subjectId: string): string => `subject_keys:${subjectId}`;

/** The subject key to store: wrapped under the active instance key when one is configured, else in clear. */
export function storedSubjectKey(ring: Keyring, subjectId: string, key: Buffer): StoredSubjectKey {
  if (!ring.activeKeyId) return { key, key_id: null };
  const { keyId, wrapped } = wrapKey(ring, key, subjectKeyAad(subjectId));
  return { key: wrapped, key_id: keyId };
}

/** The subject key itself; throws when it is wrapped under a key that is not configured (never "erased"). */
export function openSubjectKey(ring: Keyring, subjectId: string, row: StoredSubjectKey): Buffer {
  if (row.key_id === null) return row.key;
  return unwrapKey(ring, { keyId: row.key_id, wrapped: row.key }, subjectKeyAad(subjectId));
}

/**
 * The subject's key, read from the database at every call: nothing is cached, so a key destroyed by an erasure
 * opens nothing from the next call on, in this process and every other.
 */
async function subjectKey(db: Db, ring: Keyring, subjectId: string, create: boolean): Promise<Buffer | null> {
  // Subjects are accounts, which are instance-wide: their keys are reached only under `_system`.
  const row = await asSystem(db, async (db) => {
    if (create) {
      const fresh = storedSubjectKey(ring, subjectId, randomBytes(32));
      await sql`insert into subject_keys (subject_id, key, key_id) values (${subjectId}, ${fresh.key}, ${fresh.key_id})
              on conflict (subject_id) do nothing`.execute(db);
    }
    const r = await sql<StoredSubjectKey>`
      select key, key_id from subject_keys where subject_id = ${subjectId}`.execute(db);
    return r.rows[0];
  });
  return row ? openSubjectKey(ring, subjectId, row) : null;
}

/**
 * Seals values for one subject (crypto-shredding, DESIGN §3); its key is created on first use, stored wrapped under
 * the ring's active key when one is configured.
 */
export async function seal(db: Db, ring: Keyring, subjectId: string, value: string): Promise<Sealed> {
  const key = (await subjectKey(db, ring, subjectId, true))!;
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([c.update(value, 'utf8'), c.final()]);
  return PREFIX + Buffer.concat([iv, body, c.getAuthTag()]).toString('base64');
}

/** Opens a sealed value; null once the subject's key was destroyed (erased). */
export async function unseal(db: Db, ring: Keyring, subjectId: string, sealed: Sealed | null): Promise<string | null> {
  if (sealed === null) return null;
  if (!sealed.startsWith(PREFIX)) throw new Error('not a sealed value');
  const key = await subjectKey(db, ring, subjectId, false);
  if (!key) return null;
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
  const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  d.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]).toString('utf8');
}

/** Erasure: the subject's sealed data in the log becomes unreadable for good. */
export async function shred(db: Db, subjectId: string): Promise<void> {
  await asSystem(db, (db) => sql`delete from subject_keys where subject_id = ${subjectId}`.execute(db));
}

/**
 * A fingerprint of the subject's key (the proof of an erasure names the key it destroyed), or null without one: of
 * the key itself, so wrapping or rewrapping it under an instance key does not change it.
 */
export async function subjectKeyFingerprint(db: Db, ring: Keyring, subjectId: string): Promise<string | null> {
  const key = await subjectKey(db, ring, subjectId, false);
  return key ? createHash('sha256').update(key).digest('hex').slice(0, 32) : null;
}

/**
 * Opens values sealed for one subject, with one read of their key: the sealed value in clear, or null when it is
 * not theirs (sealed for someone else), not sealed, or their key is gone. For exports that meet many sealed values.
 */
export async function subjectOpener(
  db: Db,
  ring: Keyring,
  subjectId: string,
): Promise<(value: string) => string | null> {
  const key = await subjectKey(db, ring, subjectId, false);
  return (value) => {
    if (!key || !value.startsWith(PREFIX)) return null;
    const raw = Buffer.from(value.slice(PREFIX.length), 'base64');
    if (raw.length < 28) return null;
    try {
      const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      d.setAuthTag(raw.subarray(raw.length - 16));
      return Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]).toString('utf8');
    } catch {
      // Another subject's key sealed it: the tag does not verify under this one.
      return null;
    }
  };
}
