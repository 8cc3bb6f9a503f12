import { sql, type Transaction } from 'kysely';
import type { DB } from '../../src/kernel/db/database.ts';
import type { StoredEvent } from '../../src/kernel/es/event.ts';
import { defineProjector, type TableName } from '../../src/kernel/es/projector.ts';
import type { SchemaEvent } from '../../src/features/schema/schema.events.ts';
import { bumpChanges, createCountTable } from './item-counts.ts';
import { INDEX_EVENT_TYPES, applyIndexEvent, createIndexTable, nameUniqueViolation } from './item-indexes.ts';
import { createItemIndexFunction } from './item-index-ddl.ts';
import { ITEM_EVENT_TYPES, type ItemEvent } from '../../src/features/items/item.events.ts';

/** Items as JSONB documents with their audit and soft-delete columns; queries compile to SQL over them. */
export const itemDocumentsProjector = defineProjector({
  name: 'item-documents',
  version: 4,
  mode: 'inline',
  tables: ['item_documents', 'item_field_indexes', 'item_collection_changes'],
  handles: [...ITEM_EVENT_TYPES, ...INDEX_EVENT_TYPES],
  prepare: createItemIndexFunction,
  createTables: async (db, t) => {
    const table = t('item_documents');
    await sql`
      create table ${sql.table(table)} (
        site_id text not null,
        collection text not null,
        id text not null,
        data jsonb not null,
        version integer not null,
        created_at timestamptz not null,
        created_by text not null,
        updated_at timestamptz not null,
        updated_by text not null,
        deleted_at timestamptz,
        deleted_by text,
        primary key (site_id, collection, id)
      )`.execute(db);
    await sql`create index ${sql.raw(`${table}_listing`)} on ${sql.table(table)} (site_id, collection, created_at, id) where deleted_at is null`.execute(
      db,
    );
    // Statistics on the status value (filtered by nearly every delivery query): without them the planner guesses
    // 0.5 % of rows match `status = 'published'` and picks a plan that sorts thousands of rows instead of walking an
    // index in order (measured: 20 ms against 0.2 ms over 20 000 articles).
    await sql`create statistics ${sql.raw(`${table}_status`)} on ((data ->> 'status')) from ${sql.table(table)}`.execute(
      db,
    );
    await createIndexTable(db, t);
    await createCountTable(db, t);
  },
  apply: async (trx, stored, t) => {
    if ((INDEX_EVENT_TYPES as readonly string[]).includes(stored.type))
      return applyIndexEvent(trx, stored.siteId, stored as unknown as SchemaEvent, t);
    const e = stored as unknown as ItemEvent;
    try {
      await applyItemEvent(trx, stored, t);
    } catch (err) {
      const d = e.data as { collection: string; values?: object; changes?: object };
      const fields = Object.keys(d.values ?? d.changes ?? {});
      throw nameUniqueViolation(err, t, stored.siteId, d.collection, fields);
    }
  },
});

async function applyItemEvent(trx: Transaction<DB>, stored: StoredEvent, t: TableName): Promise<void> {
  const e = stored as unknown as ItemEvent;
  const table = sql.table(t('item_documents'));
  const key = sql`site_id = ${stored.siteId} and collection = ${e.data.collection} and id = ${e.data.id} and version < ${stored.streamVersion}`;
  const d = e.data;
  await bumpChanges(trx, t, stored.siteId, d.collection);
  switch (e.type) {
    case 'ItemCreated':
      await sql`
          insert into ${table} (site_id, collection, id, data, version, created_at, created_by, updated_at, updated_by)
          values (${stored.siteId}, ${d.collection}, ${d.id}, ${JSON.stringify(e.data.values)}, ${stored.streamVersion}, ${d.at}, ${d.by}, ${d.at}, ${d.by})
          on conflict (site_id, collection, id) do update set data = excluded.data, version = excluded.version,
            created_at = excluded.created_at, created_by = excluded.created_by, updated_at = excluded.updated_at,
            updated_by = excluded.updated_by, deleted_at = null, deleted_by = null
          where ${table}.version < excluded.version`.execute(trx);
      return;
    case 'ItemUpdated':
      await sql`update ${table} set data = data || ${JSON.stringify(e.data.changes)}::jsonb, version = ${stored.streamVersion},
                  updated_at = ${d.at}, updated_by = ${d.by} where ${key}`.execute(trx);
      return;
    case 'ItemReplaced':
      await sql`update ${table} set data = ${JSON.stringify(e.data.values)}::jsonb, version = ${stored.streamVersion},
                  updated_at = ${d.at}, updated_by = ${d.by} where ${key}`.execute(trx);
      return;
    case 'ItemReverted':
    case 'ItemVersionPromoted':
      await sql`update ${table} set data = ${JSON.stringify(e.data.values)}::jsonb, version = ${stored.streamVersion},
                  updated_at = ${d.at}, updated_by = ${d.by} where ${key}`.execute(trx);
      return;
    case 'ItemRestored':
      await sql`update ${table} set deleted_at = null, deleted_by = null, version = ${stored.streamVersion},
                  updated_at = ${d.at}, updated_by = ${d.by} where ${key}`.execute(trx);
      return;
    case 'ItemRewrapped':
      await sql`update ${table} set data = data || ${JSON.stringify(e.data.changes)}::jsonb, version = ${stored.streamVersion}
                  where ${key}`.execute(trx);
      return;
    case 'ItemPurged':
      await sql`delete from ${table} where site_id = ${stored.siteId} and collection = ${d.collection} and id = ${d.id}`.execute(
        trx,
      );
      return;
    case 'ItemDeleted':
      await sql`update ${table} set deleted_at = ${d.at}, deleted_by = ${d.by}, version = ${stored.streamVersion} where ${key}`.execute(
        trx,
      );
      return;
  }
}
