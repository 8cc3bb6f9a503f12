import { sql } from 'kysely';
import { Errors } from 'typesense';
import type { Db } from '../../src/kernel/db/database.ts';
import { asSystem, readAsSite } from '../../src/kernel/tenancy/site.ts';
import { searchDocument, type SearchSchema } from '../search/index.ts';
import { aliasOf, aliasParts, generationOf, isGenerationOf } from './typesense-documents.ts';
import type { TypesenseWriter } from './typesense-index.ts';

/**
 * Keeping Typesense in step with the items (the search slice's reactor and loop call these). Every write reads the
 * item as it is now, so applying an event twice, or late, or out of order leaves the same document: Typesense
 * converges on the read model.
 */

const BATCH = 500;

/** What keeping Typesense in step needs: the read models, a site's schema (the cached reader), the writer, the clock. */
export interface TypesenseSync {
  db: Db;
  schemas: { read(siteId: string): Promise<SearchSchema> };
  writer: TypesenseWriter;
  prefix: string;
  now: () => Date;
}

type Row = { id: string; data: Record<string, unknown> };

async function liveItems(db: Db, siteId: string, collection: string, after: string, since: string | null) {
  return readAsSite(db, siteId, async (trx) => {
    const r = await sql<Row>`
      select id, data from item_documents
      where site_id = ${siteId} and collection = ${collection} and deleted_at is null and id > ${after}
        and (${since}::timestamptz is null or updated_at >= ${since}::timestamptz)
      order by id limit ${BATCH}`.execute(trx);
    return r.rows;
  });
}

/** One item's document as the item is now: upserted when it is live and holds searchable text, removed otherwise. */
export async function indexItem(s: TypesenseSync, siteId: string, collection: string, id: string): Promise<void> {
  const { db, writer } = s;
  const alias = aliasOf(s.prefix, siteId, collection);
  const rows = await readAsSite(db, siteId, async (trx) => {
    const r = await sql<Row>`
      select id, data from item_documents
      where site_id = ${siteId} and collection = ${collection} and id = ${id} and deleted_at is null`.execute(trx);
    return r.rows;
  });
  const row = rows[0];
  const doc = row ? searchDocument(await s.schemas.read(siteId), collection, { ...row.data, id }) : null;
  if (!doc?.fields.length) return writer.remove(alias, [id]);
  try {
    await writer.upsert(alias, [doc]);
  } catch (err) {
    // No alias yet (Typesense configured after the collection was made, or emptied): index it whole.
    if (!(err instanceof Errors.ObjectNotFound)) throw err;
    await reindexCollection(s, siteId, collection);
  }
}

/**
 * Indexes a collection afresh into a new physical collection while the alias still serves the old one, then
 * swaps the alias (atomic in Typesense) and drops the old: a search never meets an empty index. Items changed
 * while it ran are indexed again after the swap, so none is left behind.
 */
export async function reindexCollection(s: TypesenseSync, siteId: string, collection: string): Promise<number> {
  const { db, writer } = s;
  const alias = aliasOf(s.prefix, siteId, collection);
  const started = s.now();
  const target = generationOf(alias, started.getTime());
  await writer.createCollection(target);
  const schema = await s.schemas.read(siteId);
  const fill = async (into: string, since: string | null) => {
    let n = 0;
    for (let after = ''; ;) {
      const rows = await liveItems(db, siteId, collection, after, since);
      if (!rows.length) return n;
      const docs = rows.map((r) => searchDocument(schema, collection, { ...r.data, id: r.id }));
      await writer.upsert(
        into,
        docs.filter((d) => d.fields.length),
      );
      n += rows.length;
      after = rows.at(-1)!.id;
    }
  };
  const n = await fill(target, null);
  const { collections } = await writer.listed();
  await writer.pointAlias(alias, target);
  for (const c of collections) if (c !== target && isGenerationOf(alias, c)) await writer.dropCollection(c);
  await fill(alias, started.toISOString());
  return n;
}

/** Removes a deleted collection's alias and its collections. */
export async function dropCollection(s: TypesenseSync, siteId: string, collection: string) {
  const { writer } = s;
  const alias = aliasOf(s.prefix, siteId, collection);
  const { collections } = await writer.listed();
  await writer.dropAlias(alias);
  for (const c of collections) if (isGenerationOf(alias, c)) await writer.dropCollection(c);
}

/**
 * What the loop makes sure of: every live collection of every site has its alias (indexed afresh when it has none:
 * Typesense newly configured, or emptied), and no alias outlives its collection.
 */
export async function sweepTypesense(s: TypesenseSync) {
  const { db, writer, prefix } = s;
  const live = await asSystem(db, async (trx) => {
    const r = await sql<{ site_id: string; name: string }>`
      select site_id, name from schema_collections where deleted_at is null order by site_id, name`.execute(trx);
    return r.rows;
  });
  const { aliases } = await writer.listed();
  const wanted = new Set(live.map((c) => aliasOf(prefix, c.site_id, c.name)));
  for (const c of live)
    if (!aliases.has(aliasOf(prefix, c.site_id, c.name))) await reindexCollection(s, c.site_id, c.name);
  for (const alias of aliases.keys()) {
    if (wanted.has(alias)) continue;
    // Only what this instance names: another instance's prefix may begin with ours.
    const parts = aliasParts(prefix, alias);
    if (parts && aliasOf(prefix, parts.siteId, parts.collection) === alias)
      await dropCollection(s, parts.siteId, parts.collection);
  }
}
