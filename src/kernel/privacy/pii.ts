import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { asSystem } from '../tenancy/site.ts';
import type { Db } from '../db/database.ts';
import { defineError } from '../http/errors.ts';

/** Personal data as stored in an event: `pii:<base64(iv | ciphertext | tag)>`, sealed with the subject's key. */
export type Sealed = string;
const PREFIX = 'pii:';

/**
 * An erased subject's row keeps no key but this mark (zero bytes), so that no key is ever made for them again: a
 * write that raced their erasure cannot seal their data under a fresh key that would then stay readable.
 */
const ERASED = Buffer.alloc(0);

/** Sealing for a subject whose key was destroyed for good (an erased person): their data is no longer taken. */
export const SubjectErased = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'this person was erased: nothing more is recorded about them',
  () => ({ extensions: { reason: 'erased' } }),
);

async function subjectKey(db: Db, subjectId: string, create: boolean): Promise<Buffer | null> {
  // Subjects are accounts, which are instance-wide: their keys are reached only under `_system`.
  return asSystem(db, async (db) => {
    if (create) {
      // The primary key decides between this and a concurrent erasure: whichever commits first, the other sees it.
      await sql`insert into subject_keys (subject_id, key) values (${subjectId}, ${randomBytes(32)})
              on conflict (subject_id) do nothing`.execute(db);
    }
    const r = await sql<{ key: Buffer }>`select key from subject_keys where subject_id = ${subjectId}`.execute(db);
    const key = r.rows[0]?.key ?? null;
    if (key?.length === 0) {
      if (create) throw new SubjectErased();
      return null;
    }
    return key;
  });
}

/** Seals values for one subject (crypto-shredding, DESIGN §3); its key is created on first use, never after erasure. */
export async function seal(db: Db, subjectId: string, value: string): Promise<Sealed> {
  let key = await subjectKey(db, subjectId, true);
  // An erasure that was cut short (key deleted, no mark yet) or a shred (not for good) between the two statements.
  key ??= await subjectKey(db, subjectId, true);
  if (!key) throw new SubjectErased();
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([c.update(value, 'utf8'), c.final()]);
  return PREFIX + Buffer.concat([iv, body, c.getAuthTag()]).toString('base64');
}

/** Opens a sealed value; null once the subject's key was destroyed (erased). */
export async function unseal(db: Db, subjectId: string, sealed: Sealed | null): Promise<string | null> {
  if (sealed === null) return null;
  if (!sealed.startsWith(PREFIX)) throw new Error('not a sealed value');
  const key = await subjectKey(db, subjectId, false);
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
 * Erasure of a person: their key is destroyed and replaced by the mark that no key may be made for them again.
 * Idempotent; answers once the mark is there (a key created concurrently before the mark is destroyed with it).
 */
export async function shredForGood(db: Db, subjectId: string): Promise<void> {
  for (;;) {
    await asSystem(db, async (db) => {
      await sql`delete from subject_keys where subject_id = ${subjectId} and length(key) > 0`.execute(db);
      await sql`insert into subject_keys (subject_id, key) values (${subjectId}, ${ERASED})
                on conflict (subject_id) do nothing`.execute(db);
    });
    const r = await asSystem(db, (db) =>
      sql<{ n: number }>`select length(key)::int as n from subject_keys where subject_id = ${subjectId}`.execute(db),
    );
    if (r.rows[0]?.n === 0) return;
  }
}

/** A fingerprint of the subject's key (the proof of an erasure names the key it destroyed), or null without one. */
export async function subjectKeyFingerprint(db: Db, subjectId: string): Promise<string | null> {
  const key = await subjectKey(db, subjectId, false);
  return key ? createHash('sha256').update(key).digest('hex').slice(0, 32) : null;
}

/**
 * Opens values sealed for one subject, with one read of their key: the sealed value in clear, or null when it is
 * not theirs (sealed for someone else), not sealed, or their key is gone. For exports that meet many sealed values.
 */
export async function subjectOpener(db: Db, subjectId: string): Promise<(value: string) => string | null> {
  const key = await subjectKey(db, subjectId, false);
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
