import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { Db, DB } from '../../src/kernel/db/database.ts';
import type { TableName } from '../../src/kernel/es/projector.ts';
import { later } from '../../src/kernel/db/later.ts';

/**
 * Counting the items that match a list query is the costly part of a page (it visits every match). Every change
 * to a collection's documents bumps that collection's change counter in the same transaction; a count is cached
 * under the counter it was read with, so repeated pages of an unchanged collection count once. The counter lives in
 * the database, so several server processes never serve a count older than the last change they can see.
 */
export async function createCountTable(db: Db, t: TableName): Promise<void> {
  await sql`
    create table ${sql.table(t('item_collection_changes'))} (
      site_id text not null,
      collection text not null,
      changes bigint not null,
      primary key (site_id, collection)
    )`.execute(db);
}

export async function bumpChanges(trx: Transaction<DB>, t: TableName, site: string, collection: string) {
  const bump = sql`insert into ${sql.table(t('item_collection_changes'))} as c (site_id, collection, changes)
            values (${site}, ${collection}, 1)
            on conflict (site_id, collection) do update set changes = c.changes + 1`;
  // Sent with the transaction's next statement (see `later`).
  await later(trx, { compile: () => bump.compile(trx) });
}

const MAX_ENTRIES = 2000;
const caches = new WeakMap<object, Map<string, number>>();

/** The counter's value as a column of another statement (`svc_changes`): a list reads its page and counter at once. */
export const changesColumn = (site: string, collection: string) =>
  sql`(select changes::text from item_collection_changes where site_id = ${site} and collection = ${collection}) as svc_changes`;

/**
 * The number of rows of a count query, from the cache when the collection has not changed since. `changes` is the
 * counter when the caller read it already (`changesColumn`, null when the collection has none yet); otherwise it is
 * read here first.
 */
export async function cachedCount(
  db: Db,
  site: string,
  collection: string,
  query: RawBuilder<{ n: number }>,
  changes?: string | null,
): Promise<number> {
  let cache = caches.get(db.getExecutor().adapter);
  if (!cache) caches.set(db.getExecutor().adapter, (cache = new Map()));
  if (changes === undefined) {
    const r = await sql<{ changes: string }>`select changes::text from item_collection_changes
      where site_id = ${site} and collection = ${collection}`.execute(db);
    changes = r.rows[0]?.changes ?? null;
  }
  const compiled = query.compile(db);
  const key = `${site}\u0000${collection}\u0000${changes ?? 0}\u0000${compiled.sql}\u0000${JSON.stringify(compiled.parameters)}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const n = (await query.execute(db)).rows[0]!.n;
  cache.set(key, n);
  if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  return n;
}
