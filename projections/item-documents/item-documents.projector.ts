import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import { ITEM_EVENT_TYPES, type ItemEvent } from '../../src/features/items/item.events.ts';

/** Items as JSONB documents with their audit and soft-delete columns; queries compile to SQL over them. */
export const itemDocumentsProjector = defineProjector({
  name: 'item-documents',
  version: 1,
  mode: 'inline',
  tables: ['item_documents'],
  handles: ITEM_EVENT_TYPES,
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
  },
  apply: async (trx, stored, t) => {
    const e = stored as unknown as ItemEvent;
    const table = sql.table(t('item_documents'));
    const key = sql`site_id = ${stored.siteId} and collection = ${e.data.collection} and id = ${e.data.id} and version < ${stored.streamVersion}`;
    const d = e.data;
    switch (e.type) {
      case 'ItemCreated':
        await sql`
          insert into ${table} (site_id, collection, id, data, version, created_at, created_by, updated_at, updated_by)
          values (${stored.siteId}, ${d.collection}, ${d.id}, ${JSON.stringify(e.data.values)}, ${stored.streamVersion}, ${d.at}, ${d.by}, ${d.at}, ${d.by})
          on conflict do nothing`.execute(trx);
        return;
      case 'ItemUpdated':
        await sql`update ${table} set data = data || ${JSON.stringify(e.data.changes)}::jsonb, version = ${stored.streamVersion},
                  updated_at = ${d.at}, updated_by = ${d.by} where ${key}`.execute(trx);
        return;
      case 'ItemReplaced':
        await sql`update ${table} set data = ${JSON.stringify(e.data.values)}::jsonb, version = ${stored.streamVersion},
                  updated_at = ${d.at}, updated_by = ${d.by} where ${key}`.execute(trx);
        return;
      case 'ItemDeleted':
        await sql`update ${table} set deleted_at = ${d.at}, deleted_by = ${d.by}, version = ${stored.streamVersion} where ${key}`.execute(
          trx,
        );
        return;
    }
  },
});
