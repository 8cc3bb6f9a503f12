import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import {
  RELEASE_EVENT_TYPES,
  evolveRelease,
  initialReleaseState,
  type ReleaseEvent,
} from '../../src/contracts/releases/release.events.ts';

/** Releases of each site as their streams fold them, for lists and the scheduler's due query. */
export const releasesProjector = defineProjector<ReleaseEvent>({
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
  apply: async (trx, e) => {
    const row = await trx
      .selectFrom('releases')
      .select('state')
      .where('site_id', '=', e.siteId)
      .where('release_id', '=', e.data.releaseId)
      .executeTakeFirst();
    const state = evolveRelease(row?.state ?? initialReleaseState(), e);
    if (!state.exists) return;
    const at = e.data.at;
    await trx
      .insertInto('releases')
      .values({
        site_id: e.siteId,
        release_id: e.data.releaseId,
        state: JSON.stringify(state),
        status: state.status,
        publish_at: state.publishAt,
        publishing: state.publishing !== null,
        created_at: at,
        updated_at: at,
        deleted_at: state.deleted ? at : null,
      })
      .onConflict((oc) =>
        oc.columns(['site_id', 'release_id']).doUpdateSet((eb) => ({
          state: eb.ref('excluded.state'),
          status: eb.ref('excluded.status'),
          publish_at: eb.ref('excluded.publish_at'),
          publishing: eb.ref('excluded.publishing'),
          // The scheduler's requests and their refusals change no attribute of the release a client sees.
          updated_at:
            e.type === 'ReleasePublishRequested' || e.type === 'ReleasePublishRefused'
              ? eb.ref('releases.updated_at')
              : eb.ref('excluded.updated_at'),
          deleted_at: eb.ref('excluded.deleted_at'),
        })),
      )
      .execute();
  },
});
