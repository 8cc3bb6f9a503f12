import { sql } from 'kysely';
import { jsonbMerge, type Db } from '../../src/kernel/db/database.ts';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import { ITEM_VERSION_EVENT_TYPES, type ItemVersionEvent } from '../../src/features/items/item-versions.events.ts';
import type { ItemValues } from '../../src/features/items/item.events.ts';

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

export interface ItemVersionRecord {
  key: string;
  name: string;
  data: ItemValues;
  mainChanged: boolean;
  created_at: string;
  created_by: string;
  updated_at: string;
}

/** An item's versions (or one), each with `mainChanged`: main has more revisions than when it was snapshotted. */
export async function listItemVersions(
  db: Db,
  site: string,
  collection: string,
  id: string,
  key?: string,
): Promise<ItemVersionRecord[]> {
  const r = await sql<{
    key: string;
    name: string;
    data: ItemValues;
    main_changed: boolean;
    created_at: Date;
    created_by: string;
    updated_at: Date;
  }>`
    select v.key, v.name, v.data, v.created_at, v.created_by, v.updated_at,
           (select count(*) from item_revisions r
            where r.site_id = v.site_id and r.collection = v.collection and r.item_id = v.item_id) > v.base as main_changed
    from item_versions v
    where v.site_id = ${site} and v.collection = ${collection} and v.item_id = ${id} ${key ? sql`and v.key = ${key}` : sql``}
    order by v.created_at, v.key`.execute(db);
  return r.rows.map((x) => ({
    key: x.key,
    name: x.name,
    data: x.data,
    mainChanged: x.main_changed,
    created_at: new Date(x.created_at).toISOString(),
    created_by: x.created_by,
    updated_at: new Date(x.updated_at).toISOString(),
  }));
}

/** How many revisions main has: a new version's `base`. */
export async function revisionCount(db: Db, site: string, collection: string, id: string): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from item_revisions
    where site_id = ${site} and collection = ${collection} and item_id = ${id}`.execute(db);
  return r.rows[0]!.n;
}
