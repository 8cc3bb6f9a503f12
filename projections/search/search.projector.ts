import { sql, type Transaction } from 'kysely';
import type { DB } from '../../src/kernel/db/database.ts';
import { later } from '../../src/kernel/db/site-scoped.ts';
import { MAX_INDEXED_CHARS, exactVector, searchVector } from '../../src/kernel/db/text-search.ts';
import { defineProjector, type StoredEventOf, type TableName } from '../../src/kernel/es/projector.ts';
import { isSearchable, type FieldDef } from '../../src/features/schema/schema.types.ts';
import type { ItemEvent } from '../../src/features/items/item.events.ts';
import type { SchemaEvent } from '../../src/features/schema/schema.events.ts';
import { listFields } from '../schema/index.ts';
import { searchDocument, searchableFields, type SearchSchema } from './search-document.ts';

const ITEM_TYPES = [
  'ItemCreated',
  'ItemUpdated',
  'ItemReplaced',
  'ItemReverted',
  'ItemVersionPromoted',
  'ItemPurged',
] as const;
const SCHEMA_TYPES = ['FieldCreated', 'FieldUpdated', 'FieldTypeChanged', 'FieldDeleted', 'CollectionDeleted'] as const;
type IndexedItemEvent = Extract<ItemEvent, { type: (typeof ITEM_TYPES)[number] }>;
type IndexedSchemaEvent = Extract<SchemaEvent, { type: (typeof SCHEMA_TYPES)[number] }>;

// The control characters `searchText` replaces, for the same cleaning in SQL.
const CONTROLS = '[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f]';

/**
 * The full-text index: one row per (item, searchable field) holding the field's text, its accent-insensitive
 * vector (`tsv`) and its vector as written (`tsv_exact`), both computed by PostgreSQL from the text. A soft-deleted
 * item keeps its rows (queries join item_documents, which knows it is deleted); a purge removes them. Items are
 * indexed by the schema as the schema read model has it, so a rebuild indexes by today's schema.
 */
export const searchProjector = defineProjector<IndexedItemEvent | IndexedSchemaEvent>({
  name: 'search',
  version: 1,
  mode: 'inline',
  tables: ['search_fields'],
  handles: [...ITEM_TYPES, ...SCHEMA_TYPES],
  createTables: async (db, t) => {
    const table = t('search_fields');
    const text = sql.ref('text');
    await sql`
      create table ${sql.table(table)} (
        site_id text not null,
        collection text not null,
        item_id text not null,
        field text not null,
        text text not null,
        weight text not null,
        version integer not null,
        tsv tsvector generated always as (${searchVector(text)}) stored,
        tsv_exact tsvector generated always as (${exactVector(text)}) stored,
        primary key (site_id, collection, item_id, field)
      )`.execute(db);
    await sql`create index ${sql.raw(`${table}_tsv`)} on ${sql.table(table)} using gin (tsv)`.execute(db);
    await sql`create index ${sql.raw(`${table}_tsv_exact`)} on ${sql.table(table)} using gin (tsv_exact)`.execute(db);
  },
  apply: async (trx, e, t) => {
    switch (e.type) {
      case 'FieldCreated':
        return rederive(trx, e.siteId, e.data.collection, e.data.field.field, t);
      case 'FieldTypeChanged':
        return rederive(trx, e.siteId, e.data.collection, e.data.field, t);
      case 'FieldUpdated':
        if (e.data.changes.searchable !== undefined || e.data.changes.encrypted !== undefined)
          return rederive(trx, e.siteId, e.data.collection, e.data.field, t);
        return reweigh(trx, e.siteId, e.data.collection, await schemaOf(trx, e.siteId, e.data.collection));
      case 'FieldDeleted':
        await rows(trx, e.siteId, e.data.collection).where('field', '=', e.data.field).execute();
        return reweigh(trx, e.siteId, e.data.collection, await schemaOf(trx, e.siteId, e.data.collection));
      case 'CollectionDeleted':
        await rows(trx, e.siteId, e.data.name).execute();
        return;
      default:
        return applyItemEvent(trx, e);
    }
  },
});

const rows = (trx: Transaction<DB>, siteId: string, collection: string) =>
  trx.deleteFrom('search_fields').where('site_id', '=', siteId).where('collection', '=', collection);

/** The collection's fields as the schema read model has them (in the append's transaction: after this change). */
async function schemaOf(trx: Transaction<DB>, siteId: string, collection: string): Promise<SearchSchema> {
  const defs: FieldDef[] = await listFields(trx, siteId, collection);
  return { fields: new Map([[collection, new Map(defs.map((f) => [f.field, f]))]]) };
}

async function applyItemEvent(trx: Transaction<DB>, e: StoredEventOf<IndexedItemEvent>): Promise<void> {
  const d = e.data;
  const item = rows(trx, e.siteId, d.collection).where('item_id', '=', d.id).where('version', '<', e.streamVersion);
  if (e.type === 'ItemPurged') return later(trx, rows(trx, e.siteId, d.collection).where('item_id', '=', d.id));
  const schema = await schemaOf(trx, e.siteId, d.collection);
  const values = e.type === 'ItemUpdated' ? e.data.changes : e.data.values;
  const doc = searchDocument(schema, d.collection, { ...values, id: d.id });
  // A replacement drops every field it leaves empty; an update only the fields it names.
  const touched = searchableFields(schema, d.collection)
    .map((f) => f.field)
    .filter((f) => e.type !== 'ItemUpdated' || Object.hasOwn(values, f));
  const kept = new Set(doc.fields.map((f) => f.field));
  const emptied = touched.filter((f) => !kept.has(f));
  if (emptied.length) await later(trx, item.where('field', 'in', emptied));
  if (!doc.fields.length) return;
  await later(
    trx,
    trx
      .insertInto('search_fields')
      .values(
        doc.fields.map((f) => ({
          site_id: e.siteId,
          collection: d.collection,
          item_id: d.id,
          field: f.field,
          text: f.text,
          weight: f.weight,
          version: e.streamVersion,
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(['site_id', 'collection', 'item_id', 'field'])
          .doUpdateSet((eb) => ({
            text: eb.ref('excluded.text'),
            weight: eb.ref('excluded.weight'),
            version: eb.ref('excluded.version'),
          }))
          .whereRef('search_fields.version', '<', 'excluded.version'),
      ),
  );
}

/**
 * A field's rows derived again from the items' documents (its `searchable` turned on or off, its type changed, a
 * field of that name created again), cleaned as `searchText` cleans values; then the collection's weights.
 */
async function rederive(trx: Transaction<DB>, siteId: string, collection: string, field: string, t: TableName) {
  await rows(trx, siteId, collection).where('field', '=', field).execute();
  const schema = await schemaOf(trx, siteId, collection);
  const def = schema.fields.get(collection)?.get(field);
  if (def && isSearchable(def)) {
    const weight = searchableFields(schema, collection).find((f) => f.field === field)?.weight ?? 'B';
    await sql`
      insert into ${sql.table(t('search_fields'))} (site_id, collection, item_id, field, text, weight, version)
      select d.site_id, d.collection, d.id, ${field}, x.text, ${weight}, d.version
      from item_documents d
      cross join lateral (
        select left(regexp_replace(normalize(v.raw, NFC), ${CONTROLS}, ' ', 'g'), ${MAX_INDEXED_CHARS}) as text
        from (select case jsonb_typeof(d.data -> ${field})
                when 'string' then d.data ->> ${field}
                when 'array' then (select string_agg(e #>> '{}', ' ') from jsonb_array_elements(d.data -> ${field}) e
                                   where jsonb_typeof(e) = 'string')
              end as raw) v
      ) x
      where d.site_id = ${siteId} and d.collection = ${collection} and btrim(x.text) <> ''`.execute(trx);
  }
  await reweigh(trx, siteId, collection, schema);
}

/** The collection's rows take the weights its fields have now (the title field may have changed). */
async function reweigh(trx: Transaction<DB>, siteId: string, collection: string, schema: SearchSchema) {
  const title = searchableFields(schema, collection).find((f) => f.weight === 'A')?.field ?? null;
  await trx
    .updateTable('search_fields')
    .set({ weight: sql<string>`case when field = ${title} then 'A' else 'B' end` })
    .where('site_id', '=', siteId)
    .where('collection', '=', collection)
    .where(sql<boolean>`weight <> case when field = ${title} then 'A' else 'B' end`)
    .execute();
}
