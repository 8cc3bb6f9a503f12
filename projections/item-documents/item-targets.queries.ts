import { sql } from 'kysely';
import type { Db } from '../../src/kernel/db/database.ts';
import { guardRows, rootScope, type Guard } from './item-filter.ts';
import type { SiteSchema } from '../schema/index.ts';

/**
 * Which of the wanted items (ids per collection) are live on the site and inside the guard (a writer's read rights;
 * none: existence alone), in one statement whatever the number of collections and ids: a write's relation values
 * are all checked in one round trip. Answers collection → the ids found.
 */
export async function liveTargets(
  db: Db,
  siteId: string,
  schema: SiteSchema,
  wanted: ReadonlyMap<string, readonly string[]>,
  guard?: Guard,
): Promise<Map<string, Set<string>>> {
  const found = new Map<string, Set<string>>();
  const parts = [...wanted]
    .filter(([collection, ids]) => ids.length && schema.collections.has(collection))
    .map(
      ([collection, ids]) => sql`(select a0.collection, a0.id from item_documents a0
        where a0.site_id = ${siteId} and a0.collection = ${collection} and a0.id = any(${[...ids]}::text[])
          and a0.deleted_at is null and ${guardRows(rootScope(schema, collection, guard))})`,
    );
  if (!parts.length) return found;
  const r = await sql<{ collection: string; id: string }>`${sql.join(parts, sql` union all `)}`.execute(db);
  for (const row of r.rows) {
    const ids = found.get(row.collection) ?? new Set<string>();
    ids.add(row.id);
    found.set(row.collection, ids);
  }
  return found;
}

/**
 * The items of `wanted` that are live, each row locked (FOR SHARE) until the transaction ends: run inside an
 * append, a concurrent deletion of one of them waits for this append to commit (and then sees the reference it
 * made), or this append waits for the deletion and finds the item gone. No read rights: the check before the append
 * judged those; this one only keeps its answer true until the commit.
 */
export async function holdLiveTargets(
  db: Db,
  siteId: string,
  wanted: ReadonlyMap<string, readonly string[]>,
): Promise<Map<string, Set<string>>> {
  const found = new Map<string, Set<string>>();
  const pairs = [...wanted].flatMap(([collection, ids]) => ids.map((id) => [collection, id] as const));
  if (!pairs.length) return found;
  const r = await sql<{ collection: string; id: string }>`
    select d.collection, d.id from item_documents d
    join unnest(${pairs.map((p) => p[0])}::text[], ${pairs.map((p) => p[1])}::text[]) as w(collection, id)
      on d.collection = w.collection and d.id = w.id
    where d.site_id = ${siteId} and d.deleted_at is null
    for share of d`.execute(db);
  for (const row of r.rows) {
    const ids = found.get(row.collection) ?? new Set<string>();
    ids.add(row.id);
    found.set(row.collection, ids);
  }
  return found;
}
