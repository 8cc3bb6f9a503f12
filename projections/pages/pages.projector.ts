import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import type { PageEvent } from '../../src/features/pages/page.events.ts';

/** Pages of each site: one row per live page, written in the append transaction (read-your-writes). */
export const pagesProjector = defineProjector({
  name: 'pages',
  version: 1,
  mode: 'inline',
  tables: ['pages'],
  handles: ['PageCreated', 'PageUpdated', 'PageDeleted'],
  createTables: async (db, t) => {
    const table = t('pages');
    await sql`
      create table ${sql.table(table)} (
        site_id text not null,
        id text not null,
        slug text not null,
        title text not null,
        status text not null,
        layout_config jsonb,
        version integer not null,
        created_at timestamptz not null,
        created_by text not null,
        updated_at timestamptz not null,
        updated_by text not null,
        primary key (site_id, id)
      )`.execute(db);
    // Delivery looks pages up by slug; uniqueness itself is guarded by the slug streams, not by this index.
    await sql`create index ${sql.raw(`${table}_slug`)} on ${sql.table(table)} (site_id, slug)`.execute(db);
    await sql`create index ${sql.raw(`${table}_listing`)} on ${sql.table(table)} (site_id, created_at, id)`.execute(db);
  },
  apply: async (trx, stored, t) => {
    const e = stored as unknown as PageEvent;
    const table = sql.table(t('pages'));
    const v = stored.streamVersion;
    switch (e.type) {
      case 'PageCreated': {
        const d = e.data;
        await sql`
          insert into ${table} (site_id, id, slug, title, status, layout_config, version, created_at, created_by, updated_at, updated_by)
          values (${stored.siteId}, ${d.pageId}, ${d.slug}, ${d.title}, ${d.status}, ${JSON.stringify(d.layoutConfig)}::jsonb,
                  ${v}, ${d.at}, ${d.by}, ${d.at}, ${d.by})
          on conflict (site_id, id) do nothing`.execute(trx);
        return;
      }
      case 'PageUpdated': {
        const c = e.data.changes;
        const layout = 'layoutConfig' in c ? sql`${JSON.stringify(c.layoutConfig ?? null)}::jsonb` : sql`layout_config`;
        await sql`
          update ${table} set slug = coalesce(${c.slug ?? null}, slug), title = coalesce(${c.title ?? null}, title),
            status = coalesce(${c.status ?? null}, status), layout_config = ${layout},
            version = ${v}, updated_at = ${e.data.at}, updated_by = ${e.data.by}
          where site_id = ${stored.siteId} and id = ${e.data.pageId} and version < ${v}`.execute(trx);
        return;
      }
      case 'PageDeleted':
        await sql`delete from ${table} where site_id = ${stored.siteId} and id = ${e.data.pageId}`.execute(trx);
        return;
    }
  },
});
