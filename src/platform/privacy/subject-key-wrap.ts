import { sql, type Kysely } from 'kysely';
import type { DB } from '../../kernel/db/database.ts';
import { keyVariable } from '../crypto/key-wrap.ts';
import type { Keyring } from '../../kernel/crypto/keyring.ts';
import { withSystem } from '../../kernel/tenancy/site.ts';
import { openSubjectKey, storedSubjectKey, type StoredSubjectKey } from './pii.ts';

const BATCH = 500;

/** The subject keys that were stored under another form at the start: in clear, or under a non-active key. */
export interface SubjectKeyWrapping {
  wrapped: number;
  rewrapped: number;
}

/**
 * Refuses to go on when subject keys are wrapped under an instance key that is not configured, or under an id whose
 * configured key is not the one they were wrapped with (one key per id is tried): their personal data would not
 * open, and must never pass for erased. The message names each variable and how many subjects need it.
 */
export async function checkSubjectKeyIds(db: Kysely<DB>, ring: Keyring): Promise<void> {
  const { counts, samples } = await withSystem(db, async (trx) => ({
    counts: await sql<{ key_id: string; n: number }>`
      select key_id, count(*)::int as n from subject_keys where key_id is not null group by key_id
      order by key_id`.execute(trx),
    samples: await sql<StoredSubjectKey & { subject_id: string }>`
      select distinct on (key_id) key_id, subject_id, key from subject_keys where key_id is not null
      order by key_id, subject_id`.execute(trx),
  }));
  const subjects = (n: number) => `the personal-data keys of ${n} subject${n === 1 ? '' : 's'}`;
  const needs: string[] = [];
  for (const { key_id, n } of counts.rows) {
    const name = keyVariable(key_id);
    const sample = samples.rows.find((r) => r.key_id === key_id);
    if (!ring.keys.has(key_id))
      needs.push(`set ${name} (or ${name}_FILE): ${subjects(n)} are wrapped under encryption key ${key_id}`);
    else if (sample && !opens(ring, sample))
      needs.push(`${name} is not the key ${subjects(n)} were wrapped with (encryption key ${key_id})`);
  }
  if (needs.length > 0)
    throw new Error(`cannot start: ${needs.join('; ')}. Without that key their personal data cannot be opened`);
}

function opens(ring: Keyring, row: StoredSubjectKey & { subject_id: string }): boolean {
  try {
    openSubjectKey(ring, row.subject_id, row);
    return true;
  } catch {
    return false;
  }
}

/**
 * At start, with an active instance key: wraps the subject keys kept in clear and rewraps those under another
 * configured key (rotation), a batch per transaction. Rows are taken `for update skip locked` and only rows not yet
 * under the active key are read, so a second process starting at once takes other rows, and a run cut short is
 * finished by the next start. Without an active key nothing changes (keys stay in clear).
 */
export async function wrapSubjectKeys(
  db: Kysely<DB>,
  ring: Keyring,
  opts: { batch?: number } = {},
): Promise<SubjectKeyWrapping> {
  await checkSubjectKeyIds(db, ring);
  const active = ring.activeKeyId;
  const done: SubjectKeyWrapping = { wrapped: 0, rewrapped: 0 };
  if (!active) return done;
  let after = '';
  for (;;) {
    const last = await withSystem(db, async (trx) => {
      const r = await sql<StoredSubjectKey & { subject_id: string }>`
        select subject_id, key, key_id from subject_keys
        where subject_id > ${after} and key_id is distinct from ${active}
          and not (key_id is null and length(key) = 0) -- an erased subject's mark stays what it is
        order by subject_id limit ${opts.batch ?? BATCH} for update skip locked`.execute(trx);
      if (r.rows.length === 0) return null;
      const values = r.rows.map((row) => {
        const next = storedSubjectKey(ring, row.subject_id, openSubjectKey(ring, row.subject_id, row));
        if (row.key_id === null) done.wrapped++;
        else done.rewrapped++;
        return sql`(${row.subject_id}::text, ${next.key}::bytea, ${next.key_id}::text)`;
      });
      await sql`
        update subject_keys s set key = v.key, key_id = v.key_id
        from (values ${sql.join(values)}) as v (subject_id, key, key_id)
        where s.subject_id = v.subject_id`.execute(trx);
      return r.rows.at(-1)!.subject_id;
    });
    if (last === null) return done;
    after = last;
  }
}
