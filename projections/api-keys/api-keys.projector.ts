import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import { API_KEY_EVENT_TYPES, type ApiKeyEvent } from '../../src/contracts/api-keys/api-key.events.ts';

/**
 * API keys per site, written in the append transaction: a key works the moment its creation answers and stops
 * the moment its revocation does. `last_used_at` is not projected: the authenticator writes it directly.
 */
export const apiKeysProjector = defineProjector<ApiKeyEvent>({
  name: 'api-keys',
  version: 1,
  mode: 'inline',
  tables: ['api_keys'],
  handles: API_KEY_EVENT_TYPES,
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
  apply: async (trx, e) => {
    switch (e.type) {
      case 'ApiKeyCreated': {
        const d = e.data;
        await trx
          .insertInto('api_keys')
          .values({
            site_id: d.siteId,
            key_id: d.keyId,
            name: d.name,
            prefix: d.prefix,
            role: d.role,
            publishable: d.publishable,
            allowed_origins: d.allowedOrigins ? JSON.stringify(d.allowedOrigins) : null,
            secret_hash: d.secretHash,
            expires_at: d.expiresAt,
            created_by: d.createdBy,
            created_at: d.at,
          })
          .onConflict((oc) => oc.column('key_id').doNothing())
          .execute();
        return;
      }
      case 'ApiKeyRevoked':
        await trx
          .updateTable('api_keys')
          .set({ revoked_at: e.data.at })
          .where('key_id', '=', e.data.keyId)
          .where('site_id', '=', e.data.siteId)
          .where('revoked_at', 'is', null)
          .execute();
        return;
    }
  },
});
