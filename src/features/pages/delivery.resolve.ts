import { createHash } from 'node:crypto';
import type { AppDeps } from '../../deps.ts';
import type { Db } from '../../kernel/db/database.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { listItems, type ItemRecord } from '../../../projections/item-documents/index.ts';
import { relationOn, type SiteSchema } from '../../../projections/item-documents/index.ts';
import { FILES_COLLECTION } from '../schema/index.ts';
import { findPageBySlug, type PageRecord } from '../../../projections/pages/index.ts';
import type { DeliveredPage } from './delivery-cache.ts';
import { itemKey, itemRefs, type ItemRef } from './page.layout.ts';

/** Per store: each site's schema with the version of its schema stream it was read at. */

/** The page as delivered: what a client renders, without editorial bookkeeping. */
const publicPage = (p: PageRecord) => ({
  id: p.id,
  slug: p.slug,
  title: p.title,
  layoutConfig: p.layoutConfig,
  updatedAt: p.updatedAt,
});

/**
 * The fields each referenced item is delivered with: the union over its blocks (null: all). Encrypted fields
 * are never delivered, whatever a block asks for.
 */
function wanted(refs: ItemRef[]): Map<string, Set<string> | null> {
  const out = new Map<string, Set<string> | null>();
  for (const r of refs) {
    const key = itemKey(r.collection, r.itemId);
    const had = out.get(key);
    if (r.fields === null) out.set(key, null);
    else if (had !== null) out.set(key, new Set([...(had ?? []), ...r.fields]));
  }
  return out;
}

/**
 * Encrypted and personal values are never delivered: public answers are cached (here and by CDNs) beyond the reach
 * of an erasure, and the delivery API has no caller to check decryption rights against.
 */
const sealed = (f: { encrypted: boolean; personal?: boolean } | undefined) =>
  !!f && (f.encrypted || f.personal === true);

function present(record: ItemRecord, schema: SiteSchema, site: string, collection: string, fields: Set<string> | null) {
  const defs = schema.fields.get(collection);
  return Object.fromEntries(
    Object.entries(record)
      .filter(([k]) => k === 'id' || (!sealed(defs?.get(k)) && (fields === null || fields.has(k))))
      .map(([k, v]) => [k, fileReference(schema, site, collection, k, v) ?? v]),
  );
}

/** A file an item points at, as delivered: its id and its public asset address (spec "Files and media"). */
function fileReference(schema: SiteSchema, site: string, collection: string, field: string, value: unknown) {
  if (typeof value !== 'string') return undefined;
  const r = relationOn(schema, collection, field);
  if (r?.kind !== 'm2o' || r.target !== FILES_COLLECTION) return undefined;
  return { id: value, url: `/api/v1/deliver/assets/${site}/${encodeURIComponent(value)}` };
}

/** Published items of the refs, one query per collection; missing, unpublished or unknown ones are null. */
async function resolveItems(trx: Db, siteId: string, schema: SiteSchema, refs: ItemRef[]) {
  const fields = wanted(refs);
  const items: Record<string, Record<string, unknown> | null> = Object.fromEntries(
    [...fields.keys()].map((k) => [k, null]),
  );
  const byCollection = new Map<string, string[]>();
  for (const r of refs) byCollection.set(r.collection, [...(byCollection.get(r.collection) ?? []), r.itemId]);
  for (const [collection, ids] of byCollection) {
    if (!schema.collections.has(collection)) continue;
    const unique = [...new Set(ids)];
    // One after the other: they share the transaction's connection.
    const list = await listItems(
      trx,
      siteId,
      collection,
      {
        filter: { _and: [{ id: { _in: unique } }, { status: { _eq: 'published' } }] },
        search: null,
        sort: [],
        limit: unique.length,
        offset: 0,
        fields: null,
        meta: { total: false, filterCount: false },
        aggregate: null,
        groupBy: [],
        deep: new Map(),
        locale: null,
      },
      schema,
    );
    for (const r of list.data as ItemRecord[]) {
      const key = itemKey(collection, r.id);
      items[key] = present(r, schema, siteId, collection, fields.get(key) ?? null);
    }
  }
  return items;
}

/**
 * A published page with every item it references resolved, as the body the delivery API sends (with its ETag);
 * null when the site has no published page with this slug.
 */
export async function resolvePage(
  deps: Pick<AppDeps, 'db' | 'schemas'>,
  siteId: string,
  slug: string,
): Promise<DeliveredPage | null> {
  // Read before the transaction (PGlite runs one at a time); a cached schema costs one version read.
  const schema = await deps.schemas.read(siteId);
  return readAsSite(deps.db, siteId, async (trx) => {
    const page = await findPageBySlug(trx, siteId, slug, true);
    if (!page) return null;
    const refs = itemRefs(page.layoutConfig);
    const items = refs.length ? await resolveItems(trx, siteId, schema, refs) : {};
    const body = JSON.stringify({ data: { page: publicPage(page), items } });
    return {
      body,
      etag: `"${createHash('sha1').update(body).digest('base64url')}"`,
      slug: page.slug,
      pageId: page.id,
      refs: new Set(refs.map((r) => itemKey(r.collection, r.itemId))),
    };
  });
}
