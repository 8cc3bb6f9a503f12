import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../src/kernel/db/database.ts';
import type { RelationRecord } from '../schema/index.ts';
import type { SiteSchema } from '../schema/index.ts';

/** Live items of one relation that point at an item: where they are and which of their fields points. */
export interface Reference {
  relation: RelationRecord;
  collection: string;
  field: string;
  /** m2a: the field holds `[{ collection, item }]` entries rather than the id itself. */
  kind: 'id' | 'entry';
}

export interface Dependent {
  relation: string;
  collection: string;
  field: string;
  onDelete: RelationRecord['onDelete'];
  count: number;
  sample: string[];
}

const SAMPLE = 5;

/** Every relation through which items can point at an item of `collection` (o2m is an m2o seen from the other side). */
export function referencesTo(schema: SiteSchema, collection: string): Reference[] {
  const out: Reference[] = [];
  for (const r of schema.relations) {
    if (r.kind === 'm2o' && r.target === collection)
      out.push({ relation: r, collection: r.collection, field: r.field, kind: 'id' });
    if (r.kind === 'm2m' && r.junctionCollection && r.targetField && r.target === collection)
      out.push({ relation: r, collection: r.junctionCollection, field: r.targetField, kind: 'id' });
    if (r.kind === 'm2m' && r.junctionCollection && r.junctionField && r.collection === collection)
      out.push({ relation: r, collection: r.junctionCollection, field: r.junctionField, kind: 'id' });
    if (r.kind === 'm2a') out.push({ relation: r, collection: r.collection, field: r.field, kind: 'entry' });
  }
  return out;
}

function pointsAt(ref: Reference, collection: string, ids: readonly string[]): RawBuilder<unknown> {
  const f = sql.lit(ref.field);
  const any = sql`any(${[...ids]}::text[])`;
  if (ref.kind === 'id') return sql`d.data ->> ${f} = ${any}`;
  return sql`jsonb_typeof(d.data -> ${f}) = 'array' and exists (
    select 1 from jsonb_array_elements(d.data -> ${f}) e where e ->> 'collection' = ${collection} and e ->> 'item' = ${any})`;
}

/** The live items that point at `collection/id` through one reference (the same site only), with that field's value. */
export async function referencingItems(
  db: Db,
  siteId: string,
  ref: Reference,
  collection: string,
  id: string,
): Promise<{ id: string; value: unknown }[]> {
  const r = await sql<{ id: string; value: unknown }>`
    select d.id, d.data -> ${sql.lit(ref.field)} as value from item_documents d
    where d.site_id = ${siteId} and d.collection = ${ref.collection} and d.deleted_at is null
      and ${pointsAt(ref, collection, [id])}
    order by d.id`.execute(db);
  return r.rows;
}

/**
 * Per reference with live items pointing at the item (or at any of `ids`): how many, and a few of their ids (one
 * query each). The items themselves never count: one that points at itself, or at another item deleted with it,
 * does not hold up that delete.
 */
export async function findDependents(
  db: Db,
  siteId: string,
  schema: SiteSchema,
  collection: string,
  ids: string | readonly string[],
): Promise<Dependent[]> {
  const targets = typeof ids === 'string' ? [ids] : ids;
  const out: Dependent[] = [];
  for (const ref of referencesTo(schema, collection)) {
    const r = await sql<{ id: string; n: number }>`
      select d.id, (count(*) over ())::int as n from item_documents d
      where d.site_id = ${siteId} and d.collection = ${ref.collection} and d.deleted_at is null
        and ${pointsAt(ref, collection, targets)}
        ${ref.collection === collection ? sql`and d.id <> all(${[...targets]}::text[])` : sql``}
      order by d.id limit ${SAMPLE}`.execute(db);
    if (!r.rows.length) continue;
    out.push({
      relation: ref.relation.id,
      collection: ref.collection,
      field: ref.field,
      onDelete: ref.relation.onDelete,
      count: r.rows[0]!.n,
      sample: r.rows.map((x) => x.id),
    });
  }
  return out;
}

/**
 * Whether a published, live item of the site points at `collection/id` through an m2o (public delivery of files:
 * only what published content uses is public).
 */
export async function referencedByPublished(
  db: Db,
  siteId: string,
  schema: SiteSchema,
  collection: string,
  id: string,
): Promise<boolean> {
  for (const ref of referencesTo(schema, collection)) {
    if (ref.relation.kind !== 'm2o') continue;
    const r = await sql`
      select 1 from item_documents d
      where d.site_id = ${siteId} and d.collection = ${ref.collection} and d.deleted_at is null
        and d.data ->> 'status' = 'published' and ${pointsAt(ref, collection, [id])}
      limit 1`.execute(db);
    if (r.rows.length) return true;
  }
  return false;
}
