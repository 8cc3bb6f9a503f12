import { sql } from 'kysely';
import type { Db } from '../../src/kernel/db/database.ts';

/**
 * Which collections and fields hold data (items, deleted ones included: their values are still kept), for the
 * risk of a schema plan: dropping what holds data is destructive. Run under the site's setting.
 */
export async function collectionsWithItems(db: Db, siteId: string, among: readonly string[]): Promise<Set<string>> {
  if (among.length === 0) return new Set();
  const r = await sql<{ collection: string }>`select c.collection from unnest(${among}::text[]) as c(collection)
    where exists (select 1 from item_documents d where d.site_id = ${siteId} and d.collection = c.collection)`.execute(
    db,
  );
  return new Set(r.rows.map((x) => x.collection));
}

/** Of the given `[collection, field]` pairs, those with a value that is not null in some item. */
export function fieldsWithValues(
  db: Db,
  siteId: string,
  pairs: readonly (readonly [string, string])[],
): Promise<Set<string>> {
  return valuesIn(db, 'item_documents', siteId, pairs);
}

/**
 * The same question of any table of JSONB `data` per (site, collection): item documents, named versions. Table names
 * are the callers' constants, never input.
 */
export async function valuesIn(
  db: Db,
  table: 'item_documents' | 'item_versions',
  siteId: string,
  pairs: readonly (readonly [string, string])[],
): Promise<Set<string>> {
  const held = new Set<string>();
  if (pairs.length === 0) return held;
  const byCollection = new Map<string, string[]>();
  for (const [c, f] of pairs) byCollection.set(c, [...(byCollection.get(c) ?? []), f]);
  for (const [collection, fields] of byCollection) {
    // One scan per collection: which of its fields appear with a value in any document.
    const r = await sql<{ field: string }>`select f.field from unnest(${fields}::text[]) as f(field)
      where exists (select 1 from ${sql.table(table)} d where d.site_id = ${siteId} and d.collection = ${collection}
        and d.data -> f.field is not null and d.data -> f.field <> 'null'::jsonb)`.execute(db);
    for (const { field } of r.rows) held.add(`${collection}.${field}`);
  }
  return held;
}
