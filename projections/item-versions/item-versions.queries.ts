import { sql } from 'kysely';
import type { Db } from '../../src/kernel/db/database.ts';
import type { ItemValues } from '../../src/contracts/items/item.events.ts';

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
