import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import { unseal } from '../../src/platform/privacy/pii.ts';
import type { SessionEvent } from '../../src/contracts/auth/session.events.ts';
import type { UserErased } from '../../src/contracts/auth/user.events.ts';

/** Login sessions (refresh-token families) per user, for session lists and revocation checks. */
export const sessionsProjector = defineProjector<SessionEvent | UserErased>({
  name: 'sessions',
  version: 1,
  mode: 'inline',
  tables: ['sessions'],
  handles: ['SessionStarted', 'SessionRefreshed', 'SessionRevoked', 'UserErased'],
  createTables: async (db, t) => {
    await sql`
      create table ${sql.table(t('sessions'))} (
        site_id text not null default '_system',
        session_id text primary key,
        user_id text not null,
        amr jsonb not null,
        user_agent text,
        ip text,
        generation integer not null default 0,
        created_at timestamptz not null,
        last_used_at timestamptz not null,
        expires_at timestamptz not null,
        revoked_at timestamptz,
        revoke_reason text
      )`.execute(db);
    await sql`create index ${sql.raw(`${t('sessions')}_user`)} on ${sql.table(t('sessions'))} (user_id, created_at desc)`.execute(
      db,
    );
  },
  instanceWide: true,
  apply: async (trx, e, _t, { keyring }) => {
    switch (e.type) {
      case 'SessionStarted': {
        const d = e.data;
        await trx
          .insertInto('sessions')
          .values({
            session_id: d.sessionId,
            user_id: d.userId,
            amr: JSON.stringify(d.amr),
            user_agent: await unseal(trx, keyring, d.userId, d.userAgent),
            ip: await unseal(trx, keyring, d.userId, d.ip),
            created_at: d.at,
            last_used_at: d.at,
            expires_at: d.expiresAt,
          })
          .onConflict((oc) => oc.column('session_id').doNothing())
          .execute();
        return;
      }
      case 'SessionRefreshed':
        await trx
          .updateTable('sessions')
          .set({ generation: e.data.generation, last_used_at: e.data.at })
          .where('session_id', '=', e.data.sessionId)
          .execute();
        return;
      case 'SessionRevoked':
        await trx
          .updateTable('sessions')
          .set({ revoked_at: e.data.at, revoke_reason: e.data.reason })
          .where('session_id', '=', e.data.sessionId)
          .where('revoked_at', 'is', null)
          .execute();
        return;
      case 'UserErased':
        // The address and the browser were opened from the person's sealed values: they go with the key.
        await trx
          .updateTable('sessions')
          .set({ ip: null, user_agent: null })
          .where('user_id', '=', e.data.userId)
          .execute();
        return;
    }
  },
});
