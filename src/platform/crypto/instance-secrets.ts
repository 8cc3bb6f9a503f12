import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../kernel/db/database.ts';
import { envelopeKeyId, openValue, sealValue } from './envelope.ts';
import type { Keyring } from '../../kernel/crypto/keyring.ts';

/** How a secret sits in `instance_settings`: in clear, or sealed with an encryption key. */
type Stored = string | { sealed: string };

const place = (key: string) => `instance_settings:${key}`;

export interface InstanceSecret {
  value: string;
  /** Made now (first start, or the sealed one could no longer be opened). */
  created: boolean;
  /** The stored one was sealed under a key that is no longer configured, and was replaced. */
  replaced: boolean;
}

/**
 * A secret the service makes once and keeps in the database. `seal: true` (the JWT signing key): stored sealed with
 * the active encryption key when one is configured, so a database dump holds no usable signing key; a secret in
 * clear from an earlier start, or sealed under another configured key, is sealed anew under the active one. A
 * sealed secret whose key is gone is replaced by a fresh one (every token and session then ends; the caller logs
 * it). Secrets whose loss would cost more than a logout (the address hash key: uniqueness) are not sealed.
 */
export async function instanceSecret(
  db: Kysely<DB>,
  key: string,
  ring: Keyring,
  opts: { seal: boolean },
): Promise<InstanceSecret> {
  const wrap = (v: string): Stored => (opts.seal && ring.activeKeyId ? { sealed: sealValue(ring, v, place(key)) } : v);
  const store = (v: string) =>
    db
      .updateTable('instance_settings')
      .set({ value: JSON.stringify(wrap(v)) as never })
      .where('key', '=', key)
      .execute();
  const fresh = randomBytes(48).toString('base64url');
  const inserted = await sql<{ key: string }>`
    insert into instance_settings (key, value) values (${key}, ${JSON.stringify(wrap(fresh))}::jsonb)
    on conflict (key) do nothing returning key`.execute(db);
  if (inserted.rows.length) return { value: fresh, created: true, replaced: false };
  const row = await db.selectFrom('instance_settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  const stored = row.value as Stored;
  if (typeof stored === 'string') {
    if (opts.seal && ring.activeKeyId) await store(stored);
    return { value: stored, created: false, replaced: false };
  }
  const value = openValue(ring, stored.sealed, place(key));
  if (value === null) {
    await store(fresh);
    return { value: fresh, created: true, replaced: true };
  }
  if (envelopeKeyId(stored.sealed) !== ring.activeKeyId) await store(value);
  return { value, created: false, replaced: false };
}
