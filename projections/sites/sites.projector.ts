import { sql } from 'kysely';
import { jsonbMerge } from '../../src/kernel/db/database.ts';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import { SITE_EVENT_TYPES, type SiteEvent } from '../../src/contracts/sites/site.events.ts';

/** Sites read model: one row per site, written in the append transaction (a deleted site's row goes with the kernel's cascade). */
export const sitesProjector = defineProjector<SiteEvent>({
  name: 'sites',
  version: 1,
  mode: 'inline',
  tables: ['sites'],
  handles: SITE_EVENT_TYPES,
  createTables: async (db, t) => {
    await sql`
      create table ${sql.table(t('sites'))} (
        site_id text primary key,
        name text not null,
        settings jsonb not null default '{}',
        created_by text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        version integer not null
      )`.execute(db);
  },
  apply: async (trx, e) => {
    if (e.type === 'SiteCreated') {
      const d = e.data;
      await trx
        .insertInto('sites')
        .values({
          site_id: d.siteId,
          name: d.name,
          settings: JSON.stringify(d.settings),
          created_by: d.createdBy,
          created_at: d.at,
          updated_at: d.at,
          version: e.streamVersion,
        })
        .onConflict((oc) => oc.column('site_id').doNothing())
        .execute();
    } else if (e.type === 'SiteUpdated') {
      const d = e.data;
      await trx
        .updateTable('sites')
        .set((eb) => ({
          name: d.name ?? eb.ref('name'),
          settings: jsonbMerge(eb.ref('settings'), d.settings ?? {}),
          updated_at: d.at,
          version: e.streamVersion,
        }))
        .where('site_id', '=', d.siteId)
        .where('version', '<', e.streamVersion)
        .execute();
    }
  },
});
