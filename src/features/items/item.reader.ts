import type { AppDeps } from '../../deps.ts';
import { siteOf, type Principal } from '../../kernel/http/access.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { listItems, translateRecord, type ItemQuery } from '../../../projections/item-documents/index.ts';
import { listItemVersions } from '../../../projections/item-versions/index.ts';
import { listRevisions, revisionAt } from '../../../projections/item-revisions/index.ts';
import { isVersioned } from '../../contracts/schema/schema.types.ts';
import { ItemAbsentThen, ItemNotFound, VersioningOff } from './item.errors.ts';
import { itemGuard } from './item.guard.ts';
import { present, presentRevision } from './item.present.ts';
import type { CollectionSchema } from './item.reads.ts';

/** A list read: the list-query language parsed, with the locale, `asOf` and `withDeleted` of the request. */
export type ListRead = Omit<ItemQuery, 'guard'>;

/** A read of one item: `fields` and `deep` of the list query, and now, as it was, or its draft. */
export interface ItemRead {
  query: Pick<ItemQuery, 'fields' | 'deep'> | null;
  locale: string | null;
  draft: boolean;
  asOf: Date | null;
  version: number | null;
  withDeleted: boolean;
}

/** The read of one item through the list query, with only its `fields` and `deep` (defaults elsewhere). */
const ONE: Omit<ItemQuery, 'locale' | 'fields' | 'deep'> = {
  filter: null,
  search: null,
  sort: [],
  limit: 1,
  offset: 0,
  meta: { total: false, filterCount: false },
  aggregate: null,
  groupBy: [],
};

/**
 * Reads of a collection's items as the item routes answer them (the list-query language, one item with `fields`,
 * `asOf`/`version` time travel, drafts), for the item routes and for slices that serve a system collection through
 * routes of their own (files). The caller must already have passed the collection's read check.
 */
export function itemReader(deps: Pick<AppDeps, 'db' | 'authorizer' | 'schemas' | 'config'>) {
  const { db } = deps;
  const guard = itemGuard(deps);
  const { guardFor } = guard;
  const show = <T>(caller: Principal, s: CollectionSchema, records: T) => present(deps, caller, s, records);

  const query = async (caller: Principal, s: CollectionSchema, q: ListRead) => {
    const guard = await guardFor(caller, s.collection.name);
    const res = await readAsSite(db, siteOf(caller), (trx) =>
      listItems(trx, siteOf(caller), s.collection.name, { ...q, guard }, s.schema),
    );
    return q.aggregate || q.groupBy.length ? res : { ...res, data: await show(caller, s, res.data) };
  };

  /** One item through the list query, so that `fields`, relations and translation work the same way. */
  const one = async (
    caller: Principal,
    s: CollectionSchema,
    id: string,
    at: { query?: Pick<ItemQuery, 'fields' | 'deep'> | null; locale?: string | null; withDeleted?: boolean } = {},
  ) => {
    const base = { ...ONE, fields: at.query?.fields ?? null, deep: at.query?.deep ?? new Map() };
    const res = await query(caller, s, {
      ...base,
      locale: at.locale ?? null,
      id,
      withDeleted: at.withDeleted ?? false,
      single: true,
    });
    return res.data[0] ?? null;
  };

  /** Soft-deleted items are for admins only. */
  const checkWithDeleted = (caller: Principal, withDeleted: boolean | undefined) => {
    if (withDeleted) guard.mayAdminister(caller);
  };

  /** A collection's items: the list-query language with `asOf` and `withDeleted`. */
  const list = (caller: Principal, s: CollectionSchema, q: ListRead) => {
    checkWithDeleted(caller, q.withDeleted);
    return query(caller, s, q);
  };

  /** One item: now, as it was (`asOf`, `version`), or its draft over main (X-Svc-Draft). */
  const read = async (caller: Principal, s: CollectionSchema, id: string, at: ItemRead) => {
    checkWithDeleted(caller, at.withDeleted);
    if (at.draft && !isVersioned(s.collection))
      throw new VersioningOff({ collection: s.collection.name, path: ['headers', 'x-svc-draft'] });
    if (at.asOf || at.version) {
      // A past state is shown only while the item is visible to the caller now.
      if (!(await one(caller, s, id, { locale: at.locale, withDeleted: true }))) throw new ItemNotFound({ id });
      return { data: await show(caller, s, await itemAsOf(db, caller, s, id, at)) };
    }
    const item = await one(caller, s, id, at);
    if (!item) throw new ItemNotFound({ id });
    if (!at.draft) return { data: item };
    // X-Svc-Draft: true reads the item's `draft` version over main (main when it has none).
    const [draft] = await readAsSite(db, siteOf(caller), (trx) =>
      listItemVersions(trx, siteOf(caller), s.collection.name, id, 'draft'),
    );
    if (!draft) return { data: item, meta: { draft: false } };
    return { data: { ...item, ...(await show(caller, s, { ...draft.data, id: item.id })) }, meta: { draft: true } };
  };

  /** An item's revisions, newest first, as the caller may see them (404 when it may not see the item). */
  const revisions = async (
    caller: Principal,
    s: CollectionSchema,
    id: string,
    page: { limit: number; offset: number },
  ) => {
    await guard.checkVisible(caller, s, id);
    const { revisions, total } = await readAsSite(db, siteOf(caller), (trx) =>
      listRevisions(trx, siteOf(caller), s.collection.name, id, page),
    );
    if (total === 0) throw new ItemNotFound({ id });
    const data = await Promise.all(revisions.map((r) => presentRevision(deps, caller, s, id, r)));
    return { data, meta: { total, limit: page.limit, offset: page.offset } };
  };

  return { one, list, read, revisions };
}

/** The item as it was (DESIGN §5 time travel): 404 before it existed and while it was deleted. */
async function itemAsOf(db: AppDeps['db'], caller: Principal, s: CollectionSchema, id: string, at: ItemRead) {
  const found = await readAsSite(db, siteOf(caller), (trx) =>
    revisionAt(trx, siteOf(caller), s.collection.name, id, {
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
    at.locale,
  );
}
