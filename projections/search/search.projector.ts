import { sql, type Transaction } from 'kysely';
import type { DB } from '../../src/kernel/db/database.ts';
import { later } from '../../src/kernel/db/later.ts';
import { MAX_INDEXED_CHARS, exactVector, searchVector } from '../../src/platform/db/text-search.ts';
import { defineProjector, type StoredEventOf, type TableName } from '../../src/kernel/es/projector.ts';
import { isSearchable, type FieldDef } from '../../src/contracts/schema/schema.types.ts';
import type { ItemEvent } from '../../src/contracts/items/item.events.ts';
import type { SchemaEvent } from '../../src/contracts/schema/schema.events.ts';
import { listFields } from '../schema/index.ts';
import { searchableFields, valueText, type SearchSchema } from './search-document.ts';

const ITEM_TYPES = [
  'ItemCreated',
  'ItemUpdated',
  'ItemReplaced',
  'ItemReverted',
  'ItemVersionPromoted',
  'ItemDeleted',
  'ItemRestored',
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
 * item keeps its rows, flagged `deleted` (so a search without a row rule reads no item document); a purge removes
 * them. Items are
 * indexed by the schema as the schema read model has it, so a rebuild indexes by today's schema.
 */
export const searchProjector = defineProjector<IndexedItemEvent | IndexedSchemaEvent>({
  name: 'search',
  // 3: no index on `tsv_exact` (no query filters by it: it scores and highlights rows `tsv` found).
  version: 3,
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
        deleted boolean not null default false,
        tsv tsvector generated always as (${searchVector(text)}) stored,
        tsv_exact tsvector generated always as (${exactVector(text)}) stored,
        primary key (site_id, collection, item_id, field)
      )`.execute(db);
    await sql`create index ${sql.raw(`${table}_tsv`)} on ${sql.table(table)} using gin (tsv)`.execute(db);
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
        return applyItemEvent(trx, e, t);
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

/** The collection's searchable fields in SQL: `isSearchable` over the schema read model's definitions. */
const SEARCHABLE = sql`(f.definition ->> 'type') in ('string', 'text', 'csv', 'enum')
  and coalesce((f.definition ->> 'encrypted')::boolean, false) = false
  and coalesce((f.definition ->> 'personal')::boolean, false) = false
  and coalesce((f.definition ->> 'searchable')::boolean, (f.definition ->> 'type') in ('string', 'text'))`;

/**
 * An item's rows, without a read in the append's transaction (its writes ride with the next statement, `later`):
 * the values' texts (`valueText`, as `searchDocument` takes them) go to SQL, which keeps those of searchable fields
 * and weighs them by the schema read model, as `searchableFields` does.
 */
async function applyItemEvent(trx: Transaction<DB>, e: StoredEventOf<IndexedItemEvent>, t: TableName): Promise<void> {
  const d = e.data;
  const item = rows(trx, e.siteId, d.collection).where('item_id', '=', d.id).where('version', '<', e.streamVersion);
  if (e.type === 'ItemPurged') return later(trx, rows(trx, e.siteId, d.collection).where('item_id', '=', d.id));
  if (e.type === 'ItemDeleted' || e.type === 'ItemRestored') {
    const flag = trx
      .updateTable('search_fields')
      .set({ deleted: e.type === 'ItemDeleted', version: e.streamVersion })
      .where('site_id', '=', e.siteId)
      .where('collection', '=', d.collection)
      .where('item_id', '=', d.id)
      .where('version', '<', e.streamVersion);
    return later(trx, flag);
  }
  // Every other change is to a live item (the item decider refuses changes to a deleted one): its rows are live.
  const values = e.type === 'ItemUpdated' ? e.data.changes : e.data.values;
  const keys = Object.keys(values);
  // A replacement drops every field it leaves empty; an update only the fields it names.
  const dropped = e.type === 'ItemUpdated' ? item.where('field', 'in', keys.length ? keys : ['']) : item;
  const texts = keys.flatMap((k) => {
    const text = valueText(values[k]);
    return text === null ? [] : [{ field: k, text }];
  });
  if (!texts.length) return later(trx, dropped);
  const title = sql`(select f.field from schema_fields f where f.site_id = ${e.siteId}
    and f.collection = ${d.collection} and (f.definition ->> 'type') = 'string' and ${SEARCHABLE}
    order by (f.definition ->> 'sort')::int nulls last, f.position limit 1)`;
  const table = sql.table(t('search_fields'));
  // One statement: the rows of the fields left without text go, those with text are written. The two sets are
  // disjoint, so the delete and the upsert never touch one row.
  const named = e.type === 'ItemUpdated' ? sql`and field = any(${keys}::text[])` : sql``;
  const insert = sql`
    with gone as (
      delete from ${table} where site_id = ${e.siteId} and collection = ${d.collection} and item_id = ${d.id}
        and version < ${e.streamVersion}::int ${named} and field <> all(${texts.map((x) => x.field)}::text[])
    )
    insert into ${table} (site_id, collection, item_id, field, text, weight, version)
    select ${e.siteId}, ${d.collection}, ${d.id}, c.field, c.text,
           case when c.field = ${title} then 'A' else 'B' end, ${e.streamVersion}::int
    from unnest(${texts.map((x) => x.field)}::text[], ${texts.map((x) => x.text)}::text[]) as c(field, text)
    join schema_fields f on f.site_id = ${e.siteId} and f.collection = ${d.collection} and f.field = c.field
    where ${SEARCHABLE}
    on conflict (site_id, collection, item_id, field) do update
      set text = excluded.text, weight = excluded.weight, version = excluded.version, deleted = false
      where ${table}.version < excluded.version`;
  await later(trx, { compile: () => insert.compile(trx) });
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
      insert into ${sql.table(t('search_fields'))} (site_id, collection, item_id, field, text, weight, version, deleted)
      select d.site_id, d.collection, d.id, ${field}, x.text, ${weight}, d.version, d.deleted_at is not null
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
