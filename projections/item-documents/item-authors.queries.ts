import { sql } from 'kysely';
import type { Db } from '../../src/kernel/db/database.ts';
import { DELETED_COLUMNS, ITEM_COLUMNS, toItemRecord, type ItemRecord, type ItemRow } from './item-record.ts';

/** Where a page of a person's items ended: the last item's collection and id. */
export interface ItemCursor {
  collection: string;
  id: string;
}

/**
 * A page of the items a user created on the site (soft-deleted ones too, with `deleted_at`), in (collection, id)
 * order after `after`: the items part of a personal-data export. The values are as stored.
 */
export async function itemsCreatedBy(
  db: Db,
  site: string,
  userId: string,
  after: ItemCursor | null,
  limit: number,
): Promise<{ collection: string; record: ItemRecord }[]> {
  const r = await sql<ItemRow & { collection: string }>`
    select a0.collection, ${ITEM_COLUMNS}${DELETED_COLUMNS} from item_documents a0
    where a0.site_id = ${site} and a0.created_by = ${userId}
      ${after ? sql`and (a0.collection, a0.id) > (${after.collection}, ${after.id})` : sql``}
    order by a0.collection, a0.id limit ${limit}`.execute(db);
  return r.rows.map((row) => ({ collection: row.collection, record: toItemRecord(row) }));
}
