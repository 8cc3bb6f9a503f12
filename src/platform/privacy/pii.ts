import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { unwrapKey, wrapKey } from '../crypto/key-wrap.ts';
import type { Keyring } from '../../kernel/crypto/keyring.ts';
import { asSystem, withSystem } from '../../kernel/tenancy/site.ts';
import type { Db, DB } from '../../kernel/db/database.ts';
import { defineError } from '../../kernel/http/errors.ts';

/** Personal data as stored in an event: `pii:<base64(iv | ciphertext | tag)>`, sealed with the subject's key. */
export type Sealed = string;
const PREFIX = 'pii:';

/**
 * An erased subject's row keeps no key but this mark (zero bytes, never wrapped), so that no key is ever made for
 * them again: a write that raced their erasure cannot seal their data under a fresh key that would then stay readable.
 */
const ERASED = Buffer.alloc(0);

/** Sealing for a subject whose key was destroyed for good (an erased person): their data is no longer taken. */
export const SubjectErased = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'this person was erased: nothing more is recorded about them',
  () => ({ extensions: { reason: 'erased' } }),
);

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

/** Whether a stored row is the erased mark. */
const isErasedMark = (row: StoredSubjectKey) => row.key_id === null && row.key.length === 0;

/**
 * The subject's key, read from the database at every call: nothing is cached, so a key destroyed by an erasure
 * opens nothing from the next call on, in this process and every other. Creating one for an erased subject throws.
 */
async function subjectKey(db: Db, ring: Keyring, subjectId: string, create: boolean): Promise<Buffer | null> {
  // Subjects are accounts, which are instance-wide: their keys are reached only under `_system`.
  const row = await asSystem(db, async (db) => {
    if (create) {
      // The primary key decides between this and a concurrent erasure: whichever commits first, the other sees it.
      const fresh = storedSubjectKey(ring, subjectId, randomBytes(32));
      await sql`insert into subject_keys (subject_id, key, key_id) values (${subjectId}, ${fresh.key}, ${fresh.key_id})
              on conflict (subject_id) do nothing`.execute(db);
    }
    const r = await sql<StoredSubjectKey>`
      select key, key_id from subject_keys where subject_id = ${subjectId}`.execute(db);
    return r.rows[0];
  });
  if (!row) return null;
  if (isErasedMark(row)) {
    if (create) throw new SubjectErased();
    return null;
  }
  return openSubjectKey(ring, subjectId, row);
}

/**
 * Seals values for one subject (crypto-shredding, DESIGN §3); its key is created on first use (stored wrapped under
 * the ring's active key when one is configured), never after erasure.
 */
export async function seal(db: Db, ring: Keyring, subjectId: string, value: string): Promise<Sealed> {
  let key = await subjectKey(db, ring, subjectId, true);
  // An erasure that was cut short (key deleted, no mark yet) or a shred (not for good) between the two statements.
  key ??= await subjectKey(db, ring, subjectId, true);
  if (!key) throw new SubjectErased();
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
  try {
    return Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]).toString('utf8');
  } catch {
    // Sealed under a key of theirs that was destroyed since (a later one was made after a shred that was not for
    // good): as unreadable as the destroyed key's values are.
    return null;
  }
}

/** Erasure: the subject's sealed data in the log becomes unreadable for good. */
export async function shred(db: Db, subjectId: string): Promise<void> {
  await asSystem(db, (db) => sql`delete from subject_keys where subject_id = ${subjectId}`.execute(db));
}

/**
 * Erasure of a person: their key is destroyed and replaced by the mark that no key may be made for them again.
 * Idempotent; a key created concurrently before the mark is destroyed with it.
 */
export async function shredForGood(db: Db, subjectId: string): Promise<void> {
  // The key's deletion and the mark commit together. As two statements on a pooled connection (each its own
  // transaction there) a seal between them made a fresh key, under which values sealed with the old one no longer
  // opened while the erasure went on. A seal that got in first (the person had no key yet) is undone by the loop.
  const erase = async (db: Db) => {
    await sql`delete from subject_keys where subject_id = ${subjectId} and length(key) > 0`.execute(db);
    await sql`insert into subject_keys (subject_id, key, key_id) values (${subjectId}, ${ERASED}, null)
              on conflict (subject_id) do nothing`.execute(db);
  };
  for (;;) {
    if (db.isTransaction) await asSystem(db, erase);
    else await withSystem(db as Kysely<DB>, erase);
    const r = await asSystem(db, (db) =>
      sql<{ n: number }>`select length(key)::int as n from subject_keys where subject_id = ${subjectId}`.execute(db),
    );
    if (r.rows[0]?.n === 0) return;
  }
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

/**
 * Personal values in content (a `personal` field of a collection with a subject): sealed with the subject's key and
 * bound to their place (`aad`: site, collection, item, field), as `personal:<base64url(subject id)>:<base64>`, so a
 * reader finds the subject without the schema and a value moved elsewhere no longer opens.
 */
const PERSONAL = /^personal:([A-Za-z0-9_-]{1,600}):([A-Za-z0-9+/]+={0,2})$/;

/** The subject a stored personal value was sealed for, or null when the value is not one. */
export function personalSubject(value: unknown): string | null {
  const m = typeof value === 'string' ? PERSONAL.exec(value) : null;
  return m ? Buffer.from(m[1]!, 'base64url').toString('utf8') : null;
}

/**
 * The keys of several subjects in one statement (created for those that have none when `create`); an erased
 * subject has none, and none is created for them.
 */
export async function subjectKeys(
  db: Db,
  ring: Keyring,
  subjectIds: string[],
  create: boolean,
): Promise<Map<string, Buffer>> {
  const ids = [...new Set(subjectIds)];
  if (!ids.length) return new Map();
  const rows = await asSystem(db, async (db) => {
    if (create) {
      const fresh = ids.map((id) => {
        const k = storedSubjectKey(ring, id, randomBytes(32));
        return sql`(${id}, ${k.key}, ${k.key_id})`;
      });
      await sql`insert into subject_keys (subject_id, key, key_id) values ${sql.join(fresh)}
                on conflict (subject_id) do nothing`.execute(db);
    }
    const r = await sql<StoredSubjectKey & { subject_id: string }>`
      select subject_id, key, key_id from subject_keys where subject_id = any(${ids}::text[])`.execute(db);
    return r.rows;
  });
  // An erased subject's row holds the mark: no key, and none is made again.
  return new Map(
    rows.filter((row) => !isErasedMark(row)).map((row) => [row.subject_id, openSubjectKey(ring, row.subject_id, row)]),
  );
}

/** Seals one personal value (its JSON) for a subject with that subject's key. */
export function sealPersonal(key: Buffer, subjectId: string, value: unknown, aad: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(aad));
  const body = Buffer.concat([c.update(JSON.stringify(value), 'utf8'), c.final()]);
  const subject = Buffer.from(subjectId, 'utf8').toString('base64url');
  return `personal:${subject}:${Buffer.concat([iv, body, c.getAuthTag()]).toString('base64')}`;
}

/** The value a personal value was sealed from; `undefined` when it cannot be opened (the key is gone, or it moved). */
export function openPersonal(key: Buffer | undefined, sealed: string, aad: string): unknown {
  const m = PERSONAL.exec(sealed);
  if (!key || !m) return undefined;
  const raw = Buffer.from(m[2]!, 'base64');
  if (raw.length < 28) return undefined;
  try {
    const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    d.setAAD(Buffer.from(aad));
    d.setAuthTag(raw.subarray(raw.length - 16));
    return JSON.parse(Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]).toString('utf8'));
  } catch {
    return undefined;
  }
}
