import { sql } from 'kysely';
import type { DomainEvent } from '../../src/kernel/es/event.ts';
import { defineProjector } from '../../src/kernel/es/projector.ts';

/**
 * Per-site activity (event count, last change), kept by an async worker: a dashboard figure that
 * may lag the log by a moment and costs the write path nothing.
 */
export const siteActivityProjector = defineProjector<DomainEvent>({
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
  apply: async (trx, e) => {
    await trx
      .insertInto('site_activity')
      .values({ site_id: e.siteId, event_count: 1, last_event_at: e.createdAt })
      .onConflict((oc) =>
        oc.column('site_id').doUpdateSet((eb) => ({
          event_count: eb('site_activity.event_count', '+', 1),
          last_event_at: eb.fn<Date>('greatest', ['site_activity.last_event_at', 'excluded.last_event_at']),
        })),
      )
      .execute();
  },
});
