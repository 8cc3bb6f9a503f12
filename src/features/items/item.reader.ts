import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps.ts';
import { siteOf } from '../../kernel/http/access.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { listItems, translateRecord, type ItemQuery } from '../../../projections/item-documents/index.ts';
import { listItemVersions } from '../../../projections/item-versions/index.ts';
import { listRevisions, revisionAt } from '../../../projections/item-revisions/index.ts';
import { isVersioned } from '../schema/index.ts';
import { ItemAbsentThen, ItemNotFound, VersioningOff } from './item.errors.ts';
import { itemGuard } from './item.guard.ts';
import { present, presentRevision } from './item.present.ts';
import type { CollectionSchema } from './item.reads.ts';
import { readHeaders } from './http/item-headers.ts';
import { parseItemQuery } from './http/item-query.params.ts';
import { parseAsOf, parseVersion, parseWithDeleted } from './http/item-history.params.ts';

type Raw = Record<string, string>;

/**
 * Reads of a collection's items as the item routes answer them (the list-query language, one item with `fields`,
 * `asOf`/`version` time travel, drafts), for the item routes and for slices that serve a system collection through
 * routes of their own (files). The caller must already have passed the collection's read check.
 */
export function itemReader(deps: Pick<AppDeps, 'db' | 'authorizer' | 'schemas' | 'config'>) {
  const { db } = deps;
  const guard = itemGuard(deps);
  const { guardFor } = guard;
  const show = <T>(req: FastifyRequest, s: CollectionSchema, records: T) => present(deps, req, s, records);

  const query = async (req: FastifyRequest, s: CollectionSchema, q: Omit<ItemQuery, 'locale'> & Partial<ItemQuery>) => {
    const { locale } = readHeaders(req);
    const guard = await guardFor(req, s.collection.name);
    const res = await readAsSite(db, siteOf(req), (trx) =>
      listItems(trx, siteOf(req), s.collection.name, { ...q, locale, guard }, s.schema),
    );
    return q.aggregate || q.groupBy.length ? res : { ...res, data: await show(req, s, res.data) };
  };

  /** One item through the list query, so that `fields`, relations and translation work the same way. */
  const one = async (req: FastifyRequest, s: CollectionSchema, id: string, raw: Raw, withDeleted = false) => {
    const kept = Object.entries(raw).filter(([k]) => k === 'fields' || k.startsWith('deep'));
    const base = parseItemQuery({ ...Object.fromEntries(kept), meta: 'none', limit: '1' });
    const res = await query(req, s, { ...base, id, withDeleted, single: true });
    return res.data[0] ?? null;
  };

  /** `asOf` and `withDeleted` of a read; soft-deleted items are for admins only. */
  const readOptions = (req: FastifyRequest, raw: Raw) => {
    const withDeleted = parseWithDeleted(raw);
    if (withDeleted) guard.mayAdminister(req);
    return { asOf: parseAsOf(raw), withDeleted };
  };

  /** The item as it was (DESIGN §5 time travel): 404 before it existed and while it was deleted. */
  const itemAsOf = async (
    req: FastifyRequest,
    s: CollectionSchema,
    id: string,
    at: { asOf: Date | null; version: number | null },
  ) => {
    const found = await readAsSite(db, siteOf(req), (trx) =>
      revisionAt(trx, siteOf(req), s.collection.name, id, {
        asOf: at.asOf ?? undefined,
        version: at.version ?? undefined,
      }),
    );
    if (!found || found.revision.action === 'delete') throw new ItemAbsentThen({ id });
    const { revision, first } = found;
    return translateRecord(
      {
        ...revision.data,
        id,
        created_at: first.timestamp,
        created_by: first.actor.id,
        updated_at: revision.timestamp,
        updated_by: revision.actor.id,
      },
      readHeaders(req).locale,
    );
  };

  /** GET of a collection: the list-query language with `asOf` and `withDeleted`. */
  const list = (req: FastifyRequest, s: CollectionSchema, raw: Raw) =>
    query(req, s, { ...parseItemQuery(raw), ...readOptions(req, raw) });

  /** GET of one item: now, as it was (`asOf`, `version`), or its draft over main (X-Svc-Draft). */
  const read = async (req: FastifyRequest, s: CollectionSchema, id: string, raw: Raw) => {
    const { asOf, withDeleted } = readOptions(req, raw);
    const version = parseVersion(raw);
    if (readHeaders(req).draft && !isVersioned(s.collection))
      throw new VersioningOff({ collection: s.collection.name, path: ['headers', 'x-svc-draft'] });
    if (asOf || version) {
      // A past state is shown only while the item is visible to the caller now.
      if (!(await one(req, s, id, {}, true))) throw new ItemNotFound({ id });
      return { data: await show(req, s, await itemAsOf(req, s, id, { asOf, version })) };
    }
    const item = await one(req, s, id, raw, withDeleted);
    if (!item) throw new ItemNotFound({ id });
    if (!readHeaders(req).draft) return { data: item };
    // X-Svc-Draft: true reads the item's `draft` version over main (main when it has none).
    const [draft] = await readAsSite(db, siteOf(req), (trx) =>
      listItemVersions(trx, siteOf(req), s.collection.name, id, 'draft'),
    );
    if (!draft) return { data: item, meta: { draft: false } };
    return { data: { ...item, ...(await show(req, s, { ...draft.data, id: item.id })) }, meta: { draft: true } };
  };

  /** An item's revisions, newest first, as the caller may see them (404 when it may not see the item). */
  const revisions = async (
    req: FastifyRequest,
    s: CollectionSchema,
    id: string,
    page: { limit: number; offset: number },
  ) => {
    await guard.checkVisible(req, s, id);
    const { revisions, total } = await readAsSite(db, siteOf(req), (trx) =>
      listRevisions(trx, siteOf(req), s.collection.name, id, page),
    );
    if (total === 0) throw new ItemNotFound({ id });
    const data = await Promise.all(revisions.map((r) => presentRevision(deps, req, s, id, r)));
    return { data, meta: { total, limit: page.limit, offset: page.offset } };
  };

  return { one, list, read, revisions };
}
