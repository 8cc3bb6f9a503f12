import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';

/**
 * Per-site activity (event count, last change), kept by an async worker: a dashboard figure that
 * may lag the log by a moment and costs the write path nothing.
 */
export const siteActivityProjector = defineProjector({
  name: 'site-activity',
  version: 1,
  mode: 'async',
  tables: ['site_activity'],
  handles: '*',
  createTables: async (db, t) => {
    await sql`
      create table ${sql.table(t('site_activity'))} (
        site_id text primary key,
        event_count bigint not null,
        last_event_at timestamptz not null
      )`.execute(db);
  },
  apply: async (trx, e, t) => {
    await sql`
      insert into ${sql.table(t('site_activity'))} as a (site_id, event_count, last_event_at)
      values (${e.siteId}, 1, ${e.createdAt})
      on conflict (site_id) do update set event_count = a.event_count + 1, last_event_at = greatest(a.last_event_at, excluded.last_event_at)`.execute(
      trx,
    );
  },
});

export async function siteActivity(
  db: import('../../src/kernel/db/database.ts').Db,
  siteId: string,
): Promise<{ eventCount: number; lastEventAt: string | null }> {
  const r = await sql<{ event_count: string; last_event_at: Date }>`
    select event_count, last_event_at from site_activity where site_id = ${siteId}`.execute(db);
  const row = r.rows[0];
  return {
    eventCount: Number(row?.event_count ?? 0),
    lastEventAt: row ? new Date(row.last_event_at).toISOString() : null,
  };
}
