import { sql, type CompiledQuery, type Transaction } from 'kysely';
import { jsonbMerge, type DB } from '../../src/kernel/db/database.ts';
import { later } from '../../src/kernel/db/later.ts';
import { defineProjector, type StoredEventOf, type TableName } from '../../src/kernel/es/projector.ts';
import type { SchemaEvent } from '../../src/contracts/schema/schema.events.ts';
import { bumpChanges, createCountTable } from './item-counts.ts';
import { INDEX_EVENT_TYPES, applyIndexEvent, createIndexTable, nameUniqueViolation } from './item-indexes.ts';
import { createItemIndexFunction } from './item-index-ddl.ts';
import { ITEM_EVENT_TYPES, type ItemEvent } from '../../src/contracts/items/item.events.ts';

/** The schema events that change the per-field indexes. */
type IndexEvent = Extract<SchemaEvent, { type: (typeof INDEX_EVENT_TYPES)[number] }>;

/** Items as JSONB documents with their audit and soft-delete columns; queries compile to SQL over them. */
export const itemDocumentsProjector = defineProjector<ItemEvent | IndexEvent>({
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
  apply: async (trx, e, t) => {
    if (
      e.type === 'FieldCreated' ||
      e.type === 'FieldUpdated' ||
      e.type === 'FieldTypeChanged' ||
      e.type === 'FieldDeleted'
    )
      return applyIndexEvent(trx, e.siteId, e, t);
    const d = e.data;
    const fields = Object.keys('values' in d ? d.values : 'changes' in d ? d.changes : {});
    // A unique field's value taken is this write's own answer, wherever the error surfaces (see `later`).
    const named = (err: Error) => nameUniqueViolation(err, t, e.siteId, d.collection, fields) as Error;
    try {
      await applyItemEvent(trx, e, t, named);
    } catch (err) {
      throw named(err as Error);
    }
  },
});

/** The document's writes go with the transaction's next statement (`later`): an append costs fewer round trips. */
async function applyItemEvent(
  trx: Transaction<DB>,
  e: StoredEventOf<ItemEvent>,
  t: TableName,
  named: (err: Error) => Error,
): Promise<void> {
  const d = e.data;
  await bumpChanges(trx, t, e.siteId, d.collection);
  const run = (q: { compile(): CompiledQuery }) => later(trx, q, named);
  // An event older than the row (a replay over a newer state) changes nothing.
  const current = trx
    .updateTable('item_documents')
    .where('site_id', '=', e.siteId)
    .where('collection', '=', d.collection)
    .where('id', '=', d.id)
    .where('version', '<', e.streamVersion);
  const changed = { version: e.streamVersion, updated_at: d.at, updated_by: d.by };
  switch (e.type) {
    case 'ItemCreated':
      await run(
        trx
          .insertInto('item_documents')
          .values({
            site_id: e.siteId,
            collection: d.collection,
            id: d.id,
            data: JSON.stringify(e.data.values),
            version: e.streamVersion,
            created_at: d.at,
            created_by: d.by,
            updated_at: d.at,
            updated_by: d.by,
          })
          .onConflict((oc) =>
            oc
              .columns(['site_id', 'collection', 'id'])
              .doUpdateSet((eb) => ({
                data: eb.ref('excluded.data'),
                version: eb.ref('excluded.version'),
                created_at: eb.ref('excluded.created_at'),
                created_by: eb.ref('excluded.created_by'),
                updated_at: eb.ref('excluded.updated_at'),
                updated_by: eb.ref('excluded.updated_by'),
                deleted_at: null,
                deleted_by: null,
              }))
              .whereRef('item_documents.version', '<', 'excluded.version'),
          ),
      );
      return;
    case 'ItemUpdated':
      await run(current.set((eb) => ({ ...changed, data: jsonbMerge(eb.ref('data'), e.data.changes) })));
      return;
    case 'ItemReplaced':
    case 'ItemReverted':
    case 'ItemVersionPromoted':
      await run(current.set({ ...changed, data: JSON.stringify(e.data.values) }));
      return;
    case 'ItemRestored':
      await run(current.set({ ...changed, deleted_at: null, deleted_by: null }));
      return;
    case 'ItemRewrapped':
      await run(current.set((eb) => ({ version: e.streamVersion, data: jsonbMerge(eb.ref('data'), e.data.changes) })));
      return;
    case 'ItemPurged':
      await run(
        trx
          .deleteFrom('item_documents')
          .where('site_id', '=', e.siteId)
          .where('collection', '=', d.collection)
          .where('id', '=', d.id),
      );
      return;
    case 'ItemDeleted':
      await run(current.set({ deleted_at: d.at, deleted_by: d.by, version: e.streamVersion }));
      return;
  }
}
