import { createHash } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Db, DB } from '../../src/kernel/db/database.ts';
import type { TableName } from '../../src/kernel/es/projector.ts';
import type { FieldDef, FieldType } from '../../src/contracts/schema/schema.types.ts';
import type { SchemaEvent } from '../../src/contracts/schema/schema.events.ts';
import { bumpChanges } from './item-counts.ts';
import { INDEXED_TYPES } from '../schema/index.ts';
import { itemIndexDdl, uniqueKind, valueKind } from './item-index-ddl.ts';

/**
 * Index strategy of the item documents: every (site, collection, field) whose type is short and ordered gets a
 * partial b-tree index on the same expression the query compiler filters and sorts by; a unique field gets a partial
 * unique index over its live items, so the database itself refuses a duplicate inside the append transaction. The
 * DDL goes through the owner's function (`item-index-ddl.ts`): the serving role owns no table.
 */
export const INDEX_EVENT_TYPES = ['FieldCreated', 'FieldUpdated', 'FieldTypeChanged', 'FieldDeleted'] as const;

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

/**
 * Under row-level security PostgreSQL leaves the key out of a unique violation's detail, and the error handler names
 * the refused field from that detail: the field (never the value) is put back, found by the index's name.
 */
export function nameUniqueViolation(err: unknown, t: TableName, site: string, c: string, fields: string[]): unknown {
  const e = err as { code?: unknown; constraint?: unknown; detail?: unknown };
  if (e.code !== '23505' || typeof e.constraint !== 'string') return err;
  if (typeof e.detail === 'string' && e.detail.includes('data ->')) return err;
  const field = fields.find((f) => indexName(t, 'u', site, c, f) === e.constraint);
  if (field) (err as { detail?: string }).detail = `Key ((data -> '${field}'::text))=(…) already exists.`;
  return err;
}

async function createUnique(trx: Transaction<DB>, t: TableName, site: string, c: string, f: string, type: FieldType) {
  const at = { table: t('item_documents'), name: indexName(t, 'u', site, c, f), site, collection: c, field: f };
  await itemIndexDdl(trx, 'unique', { ...at, kind: uniqueKind(type) });
}

async function dropIndex(trx: Transaction<DB>, t: TableName, kind: 'x' | 'u', site: string, c: string, f: string) {
  const at = { table: t('item_documents'), name: indexName(t, kind, site, c, f), site, collection: c, field: f };
  await itemIndexDdl(trx, 'drop', at);
}

export async function applyIndexEvent(trx: Transaction<DB>, site: string, e: SchemaEvent, t: TableName) {
  const table = sql.table(t('item_field_indexes'));
  switch (e.type) {
    case 'FieldCreated': {
      const f: FieldDef = e.data.field;
      const c = e.data.collection;
      await sql`insert into ${table} (site_id, collection, field, type) values (${site}, ${c}, ${f.field}, ${f.type})
                on conflict (site_id, collection, field) do update set type = excluded.type`.execute(trx);
      if (INDEXED_TYPES.includes(f.type) && !f.encrypted && !f.personal) {
        const name = indexName(t, 'x', site, c, f.field);
        const at = { table: t('item_documents'), name, site, collection: c, field: f.field };
        await itemIndexDdl(trx, 'index', { ...at, kind: valueKind(f.type) });
      }
      if (f.unique) await createUnique(trx, t, site, c, f.field, f.type);
      return;
    }
    case 'FieldUpdated': {
      if (e.data.changes.unique === undefined) return;
      const { collection: c, field } = e.data;
      if (!e.data.changes.unique) {
        await dropIndex(trx, t, 'u', site, c, field);
        return;
      }
      const r = await sql<{ type: FieldType }>`select type from ${table}
        where site_id = ${site} and collection = ${c} and field = ${field}`.execute(trx);
      if (r.rows[0]) await createUnique(trx, t, site, c, field, r.rows[0].type);
      return;
    }
    case 'FieldTypeChanged': {
      // The stored values already fit the new type (only such changes are allowed): the indexes follow the type.
      const { collection: c, field, to } = e.data;
      await sql`update ${table} set type = ${to}
                where site_id = ${site} and collection = ${c} and field = ${field}`.execute(trx);
      await dropIndex(trx, t, 'x', site, c, field);
      await dropIndex(trx, t, 'u', site, c, field);
      if (INDEXED_TYPES.includes(to)) {
        const at = { table: t('item_documents'), name: indexName(t, 'x', site, c, field), site, collection: c, field };
        await itemIndexDdl(trx, 'index', { ...at, kind: valueKind(to) });
      }
      if (e.data.unique) await createUnique(trx, t, site, c, field, to);
      await bumpChanges(trx, t, site, c);
      return;
    }
    case 'FieldDeleted': {
      const { collection: c, field } = e.data;
      await dropIndex(trx, t, 'x', site, c, field);
      await dropIndex(trx, t, 'u', site, c, field);
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
