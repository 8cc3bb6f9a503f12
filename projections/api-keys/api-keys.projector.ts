import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import type { ApiKeyEvent } from '../../src/features/api-keys/api-key.events.ts';

/**
 * API keys per site, written in the append transaction: a key works the moment its creation answers and stops
 * the moment its revocation does. `last_used_at` is not projected: the authenticator writes it directly.
 */
export const apiKeysProjector = defineProjector({
  name: 'api-keys',
  version: 1,
  mode: 'inline',
  tables: ['api_keys'],
  handles: ['ApiKeyCreated', 'ApiKeyRevoked'],
  createTables: async (db, t) => {
    await sql`
      create table ${sql.table(t('api_keys'))} (
        site_id text not null,
        key_id text primary key,
        name text not null,
        prefix text not null,
        role text not null,
        publishable boolean not null,
        allowed_origins jsonb,
        secret_hash text not null,
        expires_at timestamptz,
        created_by text not null,
        created_at timestamptz not null,
        revoked_at timestamptz,
        last_used_at timestamptz
      )`.execute(db);
    await sql`create index ${sql.raw(`${t('api_keys')}_site`)} on ${sql.table(t('api_keys'))} (site_id, created_at desc)`.execute(
      db,
    );
  },
  apply: async (trx, stored, t) => {
    const e = stored as unknown as ApiKeyEvent;
    const table = sql.table(t('api_keys'));
    if (e.type === 'ApiKeyCreated') {
      const d = e.data;
      await sql`
        insert into ${table} (site_id, key_id, name, prefix, role, publishable, allowed_origins, secret_hash,
                              expires_at, created_by, created_at)
        values (${d.siteId}, ${d.keyId}, ${d.name}, ${d.prefix}, ${d.role}, ${d.publishable},
                ${d.allowedOrigins ? JSON.stringify(d.allowedOrigins) : null}::jsonb, ${d.secretHash},
                ${d.expiresAt}, ${d.createdBy}, ${d.at})
        on conflict (key_id) do nothing`.execute(trx);
    } else {
      await sql`update ${table} set revoked_at = ${e.data.at}
                where key_id = ${e.data.keyId} and site_id = ${e.data.siteId} and revoked_at is null`.execute(trx);
    }
  },
});
