import { createHash } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Db, DB } from '../../src/kernel/db/database.ts';
import type { TableName } from '../../src/kernel/es/projector.ts';
import type { FieldDef, FieldType } from '../../src/features/schema/schema.types.ts';
import type { SchemaEvent } from '../../src/features/schema/schema.events.ts';
import { bumpChanges } from './item-counts.ts';
import { INDEXED_TYPES, valueExpr } from './site-schema.ts';

/**
 * Index strategy of the item documents: every (site, collection, field) whose type is short and ordered gets a
 * partial b-tree index on the same expression the query compiler filters and sorts by; a unique field gets a partial
 * unique index over its live items, so the database itself refuses a duplicate inside the append transaction.
 */
export const INDEX_EVENT_TYPES = ['FieldCreated', 'FieldUpdated', 'FieldDeleted'] as const;

export async function createIndexTable(db: Db, t: TableName): Promise<void> {
  await sql`
    create table ${sql.table(t('item_field_indexes'))} (
      site_id text not null,
      collection text not null,
      field text not null,
      type text not null,
      primary key (site_id, collection, field)
    )`.execute(db);
}

const indexName = (t: TableName, kind: 'x' | 'u', site: string, collection: string, field: string) =>
  `${t('item_documents')}_${kind}_${createHash('sha1').update(`${site}/${collection}/${field}`).digest('hex').slice(0, 16)}`;

/** Long or structured values are made unique by their hash (a b-tree entry has a size limit). */
const uniqueExpr = (type: FieldType, field: string) =>
  ['text', 'json', 'csv', 'geometry'].includes(type)
    ? sql`md5((data -> ${sql.lit(field)})::text)`
    : sql`(data -> ${sql.lit(field)})`;

const livePart = (site: string, collection: string) =>
  sql`site_id = ${sql.lit(site)} and collection = ${sql.lit(collection)} and deleted_at is null`;

async function createUnique(trx: Transaction<DB>, t: TableName, site: string, c: string, f: string, type: FieldType) {
  const name = sql.id(indexName(t, 'u', site, c, f));
  await sql`create unique index if not exists ${name} on ${sql.table(t('item_documents'))}
            ((${uniqueExpr(type, f)})) where ${livePart(site, c)}`.execute(trx);
}

export async function applyIndexEvent(trx: Transaction<DB>, site: string, e: SchemaEvent, t: TableName) {
  const table = sql.table(t('item_field_indexes'));
  switch (e.type) {
    case 'FieldCreated': {
      const f: FieldDef = e.data.field;
      const c = e.data.collection;
      await sql`insert into ${table} (site_id, collection, field, type) values (${site}, ${c}, ${f.field}, ${f.type})
                on conflict (site_id, collection, field) do update set type = excluded.type`.execute(trx);
      if (INDEXED_TYPES.includes(f.type) && !f.encrypted) {
        await sql`create index if not exists ${sql.id(indexName(t, 'x', site, c, f.field))} on ${sql.table(t('item_documents'))}
                  ((${valueExpr(f.type, f.field)})) where ${livePart(site, c)}`.execute(trx);
      }
      if (f.unique) await createUnique(trx, t, site, c, f.field, f.type);
      return;
    }
    case 'FieldUpdated': {
      if (e.data.changes.unique === undefined) return;
      const { collection: c, field } = e.data;
      if (!e.data.changes.unique) {
        await sql`drop index if exists ${sql.id(indexName(t, 'u', site, c, field))}`.execute(trx);
        return;
      }
      const r = await sql<{ type: FieldType }>`select type from ${table}
        where site_id = ${site} and collection = ${c} and field = ${field}`.execute(trx);
      if (r.rows[0]) await createUnique(trx, t, site, c, field, r.rows[0].type);
      return;
    }
    case 'FieldDeleted': {
      const { collection: c, field } = e.data;
      await sql`drop index if exists ${sql.id(indexName(t, 'x', site, c, field))}`.execute(trx);
      await sql`drop index if exists ${sql.id(indexName(t, 'u', site, c, field))}`.execute(trx);
      await sql`delete from ${table} where site_id = ${site} and collection = ${c} and field = ${field}`.execute(trx);
      await bumpChanges(trx, t, site, c);
      // A removed field's values leave the read model (the log keeps them); a new field of that name starts empty.
      await sql`update ${sql.table(t('item_documents'))} set data = data - ${field}
                where site_id = ${site} and collection = ${c} and data ? ${field}`.execute(trx);
      return;
    }
    default:
      return;
  }
}
