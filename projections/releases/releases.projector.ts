import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import { RELEASE_EVENT_TYPES, type ReleaseEvent } from '../../src/features/releases/release.events.ts';
import { evolveRelease, initialReleaseState, type ReleaseState } from '../../src/features/releases/release.events.ts';

/** Releases of each site as their streams fold them, for lists and the scheduler's due query. */
export const releasesProjector = defineProjector({
  name: 'releases',
  version: 1,
  mode: 'inline',
  tables: ['releases'],
  handles: RELEASE_EVENT_TYPES,
  createTables: async (db, t) => {
    const table = t('releases');
    await sql`
      create table ${sql.table(table)} (
        site_id text not null,
        release_id text not null,
        state jsonb not null,
        status text not null,
        publish_at timestamptz,
        publishing boolean not null default false,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        deleted_at timestamptz,
        primary key (site_id, release_id)
      )`.execute(db);
    await sql`create index ${sql.raw(`${table}_due`)} on ${sql.table(table)} (publish_at)
              where deleted_at is null and (status = 'scheduled' or publishing)`.execute(db);
  },
  apply: async (trx, stored, t) => {
    const e = stored as unknown as ReleaseEvent;
    const table = sql.table(t('releases'));
    const row = await sql<{ state: ReleaseState }>`select state from ${table}
      where site_id = ${stored.siteId} and release_id = ${e.data.releaseId}`.execute(trx);
    const state = evolveRelease(row.rows[0]?.state ?? initialReleaseState(), e);
    if (!state.exists) return;
    const at = e.data.at;
    await sql`
      insert into ${table} (site_id, release_id, state, status, publish_at, publishing, created_at, updated_at, deleted_at)
      values (${stored.siteId}, ${e.data.releaseId}, ${JSON.stringify(state)}::jsonb, ${state.status}, ${state.publishAt},
              ${state.publishing !== null}, ${at}, ${at}, ${state.deleted ? at : null})
      on conflict (site_id, release_id) do update set state = excluded.state, status = excluded.status,
        publish_at = excluded.publish_at, publishing = excluded.publishing, updated_at = excluded.updated_at,
        deleted_at = excluded.deleted_at`.execute(trx);
  },
});
