import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import { unseal } from '../../src/kernel/privacy/pii.ts';
import type { SessionEvent } from '../../src/features/auth/session.events.ts';

/** Login sessions (refresh-token families) per user, for session lists and revocation checks. */
export const sessionsProjector = defineProjector({
  name: 'sessions',
  version: 1,
  mode: 'inline',
  tables: ['sessions'],
  handles: ['SessionStarted', 'SessionRefreshed', 'SessionRevoked'],
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
  apply: async (trx, stored, t) => {
    const e = stored as unknown as SessionEvent;
    const table = sql.table(t('sessions'));
    switch (e.type) {
      case 'SessionStarted': {
        const d = e.data;
        await sql`
          insert into ${table} (session_id, user_id, amr, user_agent, ip, created_at, last_used_at, expires_at)
          values (${d.sessionId}, ${d.userId}, ${JSON.stringify(d.amr)}::jsonb, ${await unseal(trx, d.userId, d.userAgent)},
                  ${await unseal(trx, d.userId, d.ip)}, ${d.at}, ${d.at}, ${d.expiresAt})
          on conflict (session_id) do nothing`.execute(trx);
        return;
      }
      case 'SessionRefreshed':
        await sql`update ${table} set generation = ${e.data.generation}, last_used_at = ${e.data.at}
                  where session_id = ${e.data.sessionId}`.execute(trx);
        return;
      case 'SessionRevoked':
        await sql`update ${table} set revoked_at = ${e.data.at}, revoke_reason = ${e.data.reason}
                  where session_id = ${e.data.sessionId} and revoked_at is null`.execute(trx);
        return;
    }
  },
});
