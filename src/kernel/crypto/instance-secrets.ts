import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/database.ts';
import { openValue, sealValue } from './envelope.ts';
import type { Keyring } from './keyring.ts';

/** How a secret sits in `instance_settings`: in clear (no encryption key configured) or sealed. */
type Stored = string | { sealed: string };

const place = (key: string) => `instance_settings:${key}`;

/**
 * A secret the service makes once and keeps in the database (the JWT key when JWT_SECRET is unset, the address
 * hash key). With an encryption key configured it is stored sealed with it, and a secret stored in clear by an
 * earlier start is sealed now; a database dump then holds no usable signing key. A sealed secret whose key is
 * no longer configured stops the start with a message, rather than silently minting a new one (that would log
 * everybody out and, for the address key, lose uniqueness).
 */
export async function instanceSecret(
  db: Kysely<DB>,
  key: string,
  ring: Keyring,
): Promise<{ value: string; created: boolean }> {
  const fresh = randomBytes(48).toString('base64url');
  const seal = (v: string): Stored => (ring.activeKeyId ? { sealed: sealValue(ring, v, place(key)) } : v);
  const inserted = await sql<{ key: string }>`
    insert into instance_settings (key, value) values (${key}, ${JSON.stringify(seal(fresh))}::jsonb)
    on conflict (key) do nothing returning key`.execute(db);
  if (inserted.rows.length) return { value: fresh, created: true };
  const row = await db.selectFrom('instance_settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  const stored = row.value as Stored;
  if (typeof stored === 'string') {
    if (ring.activeKeyId)
      await db
        .updateTable('instance_settings')
        .set({ value: JSON.stringify(seal(stored)) as never })
        .where('key', '=', key)
        .execute();
    return { value: stored, created: false };
  }
  const value = openValue(ring, stored.sealed, place(key));
  if (value === null)
    throw new Error(
      `the stored ${key} is sealed with encryption key ${stored.sealed.split(':')[0]}, which is not configured`,
    );
  return { value, created: false };
}
