import { createHash } from 'node:crypto';
import type { AppDeps } from '../../deps.ts';
import type { Db } from '../../kernel/db/database.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import {
  expandPaths,
  expansionBudget,
  ExpansionLimit,
  listItems,
  reachedCollections,
  type ExpansionBudget,
  type Guard,
  type ItemRecord,
} from '../../../projections/item-documents/index.ts';
import { relationOn, type SiteSchema } from '../../../projections/schema/index.ts';
import { dict } from '../../kernel/safe/keys.ts';
import type { Principal } from '../../kernel/http/access.ts';
import { FILES_COLLECTION } from '../../contracts/schema/system-collections.types.ts';
import { findPageBySlug, type PageRecord } from '../../../projections/pages/index.ts';
import type { DeliveredPage } from './delivery-cache.ts';
import { PageTooLarge } from './page.errors.ts';
import { itemKey, itemRefs, type ItemRef } from '../../contracts/pages/page.layout.ts';

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

/** Who created, changed or deleted a record: user ids, for no anonymous reader unless a block names them. */
const PEOPLE = new Set(['created_by', 'updated_by', 'deleted_by']);

/** The fields delivery never sends (sealed ones), and those of people that only a path naming them brings. */
const dropFor =
  (schema: SiteSchema) =>
  (collection: string, field: string, named: boolean): boolean =>
    sealed(schema.fields.get(collection)?.get(field)) || (PEOPLE.has(field) && !named);

/** The record's own fields that the block's paths start with (all of them when one is `*`). */
function present(record: ItemRecord, schema: SiteSchema, site: string, collection: string, fields: Set<string> | null) {
  const top = fields === null ? null : new Set([...fields].map((f) => f.split('.')[0]!));
  const everything = top === null || top.has('*');
  return Object.fromEntries(
    Object.entries(record)
      .filter(([k]) => k === 'id' || everything || top.has(k))
      .map(([k, v]) => [k, fileReference(schema, site, collection, k, v) ?? v]),
  );
}

/**
 * The site's public role, as whom related items are read: a page's own items are its editors' choice, the items
 * they lead to are delivered only as far as the public may read them (rows and fields, at every level).
 */
function publicReader(siteId: string): Principal {
  const roles = dict<string>();
  roles[siteId] = 'public';
  return {
    actor: {
      type: 'apiKey',
      id: 'public-delivery',
      email: '',
      instanceAdmin: false,
      roles,
      tokenVersion: 0,
      readOnly: true,
    },
    site: { id: siteId },
  };
}

/** A file an item points at, as delivered: its id and its public asset address (spec "Files and media"). */
function fileReference(schema: SiteSchema, site: string, collection: string, field: string, value: unknown) {
  if (typeof value !== 'string') return undefined;
  const r = relationOn(schema, collection, field);
  if (r?.kind !== 'm2o' || r.target !== FILES_COLLECTION) return undefined;
  return { id: value, url: `/api/v1/deliver/assets/${site}/${encodeURIComponent(value)}` };
}

/** Every collection the blocks' paths reach (null: any, through an m2a): a change there may change the page. */
function related(schema: SiteSchema, refs: ItemRef[]): Set<string> | null {
  const out = new Set<string>();
  for (const r of refs) {
    if (!r.fields || !schema.collections.has(r.collection)) continue;
    const reached = reachedCollections(schema, r.collection, r.fields);
    if (reached === null) return null;
    for (const c of reached) out.add(c);
  }
  return out;
}

/** What a render reads related items as, and the one expansion budget all its blocks share. */
type Reading = { guard: Guard | undefined; budget: ExpansionBudget };

/** Published items of the refs, one query per collection; missing, unpublished or unknown ones are null. */
async function resolveItems(trx: Db, siteId: string, schema: SiteSchema, refs: ItemRef[], reading: Reading) {
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
    // One expansion per distinct set of paths (blocks of one collection mostly share theirs).
    const byPaths = new Map<string, { paths: string[] | null; records: ItemRecord[] }>();
    for (const r of list.data as ItemRecord[]) {
      const paths = fields.get(itemKey(collection, r.id)) ?? null;
      const list = paths === null ? null : [...paths].sort();
      const group = byPaths.get(JSON.stringify(list)) ?? { paths: list, records: [] };
      group.records.push(r);
      byPaths.set(JSON.stringify(list), group);
    }
    for (const { paths, records } of byPaths.values()) {
      const drop = dropFor(schema);
      const out = await expandPaths(trx, siteId, schema, collection, records, paths, { ...reading, drop });
      for (const r of out)
        items[itemKey(collection, r.id)] = present(r, schema, siteId, collection, paths && new Set(paths));
    }
  }
  return items;
}

/** The expansion budget's refusal, as the page's: the reader asked for nothing, the page's blocks did. */
const tooLarge = (err: unknown): never => {
  if (err instanceof ExpansionLimit) throw new PageTooLarge({ limit: Number(err.options.extensions?.limit) });
  throw err;
};

/** Pages resolved since the process started (renders, not answers): lets tests see that a miss renders once. */
export const deliveryStats = { renders: 0 };

/**
 * A published page with every item it references resolved, as the body the delivery API sends (with its ETag);
 * null when the site has no published page with this slug.
 */
export async function resolvePage(
  deps: Pick<AppDeps, 'db' | 'schemas' | 'authorizer' | 'items'>,
  siteId: string,
  slug: string,
): Promise<DeliveredPage | null> {
  deliveryStats.renders += 1;
  // Read before the transaction (PGlite runs one at a time); a cached schema costs one version read.
  const schema = await deps.schemas.read(siteId);
  const guard = deps.items.check.readGuard(await deps.authorizer.rights(publicReader(siteId)));
  return readAsSite(deps.db, siteId, async (trx) => {
    const page = await findPageBySlug(trx, siteId, slug, true);
    if (!page) return null;
    const refs = itemRefs(page.layoutConfig);
    // One budget for the whole page: each group of blocks with its own would allow 100 times the item list's.
    const reading = { guard, budget: expansionBudget() };
    const items = refs.length ? await resolveItems(trx, siteId, schema, refs, reading).catch(tooLarge) : {};
    const body = JSON.stringify({ data: { page: publicPage(page), items } });
    return {
      body,
      etag: `"${createHash('sha1').update(body).digest('base64url')}"`,
      slug: page.slug,
      pageId: page.id,
      refs: new Set(refs.map((r) => itemKey(r.collection, r.itemId))),
      related: related(schema, refs),
    };
  });
}
