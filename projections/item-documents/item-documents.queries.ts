import { sql } from 'kysely';
import type { Db } from '../../src/kernel/db/database.ts';
import { DomainError } from '../../src/kernel/http/errors.ts';
import { compileFilter, target, type FieldTypes, type Filter } from './item-filter.ts';

export interface ItemQuery {
  filter: Filter | null;
  sort: string[];
  limit: number;
  offset: number;
  fields: string[] | null;
  withTotal: boolean;
}

interface Row {
  id: string;
  data: Record<string, unknown>;
  version: number;
  created_at: Date;
  created_by: string;
  updated_at: Date;
  updated_by: string;
}

export type ItemRecord = Record<string, unknown> & { id: string };

/** The API shape of an item: its values, then its id and audit fields; `fields` picks top-level keys. */
export function toItemRecord(r: Row, fields: string[] | null = null): ItemRecord {
  const full: ItemRecord = {
    ...r.data,
    id: r.id,
    created_at: new Date(r.created_at).toISOString(),
    created_by: r.created_by,
    updated_at: new Date(r.updated_at).toISOString(),
    updated_by: r.updated_by,
  };
  if (!fields || fields.includes('*')) return full;
  const picked: ItemRecord = { id: r.id };
  for (const f of fields) if (f in full) picked[f] = full[f];
  return picked;
}

export async function findItem(
  db: Db,
  siteId: string,
  collection: string,
  id: string,
): Promise<(Row & { record: ItemRecord }) | null> {
  const r = await sql<Row>`
    select id, data, version, created_at, created_by, updated_at, updated_by from item_documents
    where site_id = ${siteId} and collection = ${collection} and id = ${id} and deleted_at is null`.execute(db);
  const row = r.rows[0];
  return row ? { ...row, record: toItemRecord(row) } : null;
}

/** One page of a collection's live items, filtered and sorted in SQL, with the total that matches. */
export async function listItems(
  db: Db,
  siteId: string,
  collection: string,
  q: ItemQuery,
  types: FieldTypes,
): Promise<{ items: ItemRecord[]; total: number | null }> {
  const where = sql`site_id = ${siteId} and collection = ${collection} and deleted_at is null
                    and ${q.filter ? compileFilter(q.filter, types) : sql`true`}`;
  const order = q.sort.map((s) => {
    const desc = s.startsWith('-');
    const t = target(desc ? s.slice(1) : s, types, ['sort']);
    return desc ? sql`${t.expr} desc nulls last` : sql`${t.expr} asc nulls last`;
  });
  order.push(sql`created_at asc`, sql`id asc`);
  const rows = await sql<Row>`
    select id, data, version, created_at, created_by, updated_at, updated_by from item_documents
    where ${where} order by ${sql.join(order)} limit ${q.limit} offset ${q.offset}`.execute(db);
  let total: number | null = null;
  if (q.withTotal) {
    const c = await sql<{ n: string }>`select count(*)::text as n from item_documents where ${where}`.execute(db);
    total = Number(c.rows[0]!.n);
  }
  for (const f of q.fields ?? []) {
    if (
      f !== '*' &&
      !types.has(f.split('.')[0]!) &&
      !['id', 'created_at', 'created_by', 'updated_at', 'updated_by'].includes(f)
    ) {
      throw new DomainError('VALIDATION_FAILED', `unknown field ${f}`, { path: ['fields'] });
    }
  }
  return { items: rows.rows.map((r) => toItemRecord(r, q.fields)), total };
}
