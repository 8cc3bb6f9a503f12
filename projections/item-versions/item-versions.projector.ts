import { sql } from 'kysely';
import { jsonbMerge } from '../../src/kernel/db/database.ts';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import { ITEM_VERSION_EVENT_TYPES, type ItemVersionEvent } from '../../src/contracts/items/item-versions.events.ts';

/** Named versions of items, with the number of main's revisions each was snapshotted at. */
export const itemVersionsProjector = defineProjector<ItemVersionEvent>({
  name: 'item-versions',
  version: 1,
  mode: 'inline',
  tables: ['item_versions'],
  handles: ITEM_VERSION_EVENT_TYPES,
  createTables: async (db, t) => {
    await sql`
      create table ${sql.table(t('item_versions'))} (
        site_id text not null,
        collection text not null,
        item_id text not null,
        key text not null,
        name text not null,
        data jsonb not null,
        base integer not null,
        created_at timestamptz not null,
        created_by text not null,
        updated_at timestamptz not null,
        primary key (site_id, collection, item_id, key)
      )`.execute(db);
  },
  apply: async (trx, e) => {
    const d = e.data;
    switch (e.type) {
      case 'ItemVersionCreated':
        await trx
          .insertInto('item_versions')
          .values({
            site_id: e.siteId,
            collection: d.collection,
            item_id: d.id,
            key: d.key,
            name: e.data.name,
            data: JSON.stringify(e.data.data),
            base: e.data.base,
            created_at: d.at,
            created_by: d.by,
            updated_at: d.at,
          })
          .onConflict((oc) => oc.doNothing())
          .execute();
        return;
      case 'ItemVersionUpdated':
        await trx
          .updateTable('item_versions')
          .set((eb) => ({
            name: e.data.name ?? eb.ref('name'),
            data: jsonbMerge(eb.ref('data'), e.data.changes ?? {}),
            updated_at: d.at,
          }))
          .where('site_id', '=', e.siteId)
          .where('collection', '=', d.collection)
          .where('item_id', '=', d.id)
          .where('key', '=', d.key)
          .execute();
        return;
      case 'ItemVersionDeleted':
        await trx
          .deleteFrom('item_versions')
          .where('site_id', '=', e.siteId)
          .where('collection', '=', d.collection)
          .where('item_id', '=', d.id)
          .where('key', '=', d.key)
          .execute();
        return;
    }
  },
});
