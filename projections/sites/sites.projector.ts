import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import type { SiteEvent } from '../../src/features/sites/site.events.ts';

/** Sites read model: one row per site, written in the append transaction. */
export const sitesProjector = defineProjector({
  name: 'sites',
  version: 1,
  mode: 'inline',
  tables: ['sites'],
  handles: ['SiteCreated', 'SiteUpdated'],
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
  apply: async (trx, stored, t) => {
    const e = stored as unknown as SiteEvent & { streamVersion: number };
    const table = sql.table(t('sites'));
    if (e.type === 'SiteCreated') {
      await sql`
        insert into ${table} (site_id, name, settings, created_by, created_at, updated_at, version)
        values (${e.data.siteId}, ${e.data.name}, ${JSON.stringify(e.data.settings)}, ${e.data.createdBy}, ${e.data.at}, ${e.data.at}, ${stored.streamVersion})
        on conflict (site_id) do nothing`.execute(trx);
    } else {
      await sql`
        update ${table} set
          name = coalesce(${e.data.name ?? null}, name),
          settings = settings || ${JSON.stringify(e.data.settings ?? {})}::jsonb,
          updated_at = ${e.data.at},
          version = ${stored.streamVersion}
        where site_id = ${e.data.siteId} and version < ${stored.streamVersion}`.execute(trx);
    }
  },
});
