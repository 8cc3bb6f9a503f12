import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import { PAGE_EVENT_TYPES, type PageEvent } from '../../src/contracts/pages/page.events.ts';

/** Pages of each site: one row per live page, written in the append transaction (read-your-writes). */
export const pagesProjector = defineProjector<PageEvent>({
  name: 'pages',
  version: 1,
  mode: 'inline',
  tables: ['pages'],
  handles: PAGE_EVENT_TYPES,
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
  apply: async (trx, e) => {
    const v = e.streamVersion;
    switch (e.type) {
      case 'PageCreated': {
        const d = e.data;
        await trx
          .insertInto('pages')
          .values({
            site_id: e.siteId,
            id: d.pageId,
            slug: d.slug,
            title: d.title,
            status: d.status,
            layout_config: JSON.stringify(d.layoutConfig),
            version: v,
            created_at: d.at,
            created_by: d.by,
            updated_at: d.at,
            updated_by: d.by,
          })
          .onConflict((oc) => oc.columns(['site_id', 'id']).doNothing())
          .execute();
        return;
      }
      case 'PageUpdated': {
        const c = e.data.changes;
        await trx
          .updateTable('pages')
          .set((eb) => ({
            slug: c.slug ?? eb.ref('slug'),
            title: c.title ?? eb.ref('title'),
            status: c.status ?? eb.ref('status'),
            layout_config: 'layoutConfig' in c ? JSON.stringify(c.layoutConfig ?? null) : eb.ref('layout_config'),
            version: v,
            updated_at: e.data.at,
            updated_by: e.data.by,
          }))
          .where('site_id', '=', e.siteId)
          .where('id', '=', e.data.pageId)
          .where('version', '<', v)
          .execute();
        return;
      }
      case 'PageDeleted':
        await trx.deleteFrom('pages').where('site_id', '=', e.siteId).where('id', '=', e.data.pageId).execute();
        return;
    }
  },
});
