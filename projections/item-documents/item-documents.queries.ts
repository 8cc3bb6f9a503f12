import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../src/kernel/db/database.ts';
import { positiveTerms, searchQuery, searchText } from '../../src/platform/db/text-search.ts';
import { isSearchable } from '../../src/contracts/schema/schema.types.ts';
import { aggregateColumns, aggregateRow, groupColumns, type Aggregate } from './item-aggregate.ts';
import { expandRecords, type DeepSpec } from './item-expand.ts';
import { cachedCount, changesColumn } from './item-counts.ts';
import { checkDeep, checkFieldTree, fieldTree } from './item-fields.ts';
import { compileFilter, guardRows, rootScope, sortTarget, type Filter, type Guard, type Scope } from './item-filter.ts';
import type { SiteSchema } from '../schema/index.ts';
import { InvalidItemQuery } from './item-query.errors.ts';
import { DELETED_COLUMNS, ITEM_COLUMNS, toItemRecord, type ItemRecord, type ItemRow } from './item-record.ts';

export { ITEM_COLUMNS, toItemRecord, type ItemRecord, type ItemRow } from './item-record.ts';

export interface ItemQuery {
  filter: Filter | null;
  search: string | null;
  sort: string[];
  limit: number;
  offset: number;
  fields: string[] | null;
  /** meta=total_count → `total`; meta=filter_count → `filter_count`; both count the items that match. */
  meta: { total: boolean; filterCount: boolean };
  aggregate: Aggregate | null;
  groupBy: string[];
  deep: Map<string, DeepSpec>;
  /** X-Svc-Locale, applied server-side. */
  locale: string | null;
  /** Time travel: the collection as it was then, rebuilt from the revisions (see asOfDocuments). */
  asOf?: Date | null;
  /** Admins may list soft-deleted items too. */
  withDeleted?: boolean;
  /** One item by id: no ordering, so the planner goes straight to the primary key. */
  single?: boolean;
  /** The item's id when `single` (matched as the filter `{ id: { _eq } }` would, without compiling one). */
  id?: string;
  /**
   * Keyset pagination: the page starts right after this item (by id) in the list's order, however deep, at the cost
   * of a page near the start. The item must be one the caller may read (else 400); it need not match the filter.
   */
  after?: string;
  /** The caller's read permissions: rows and fields of this and every related collection. */
  guard?: Guard;
}

/**
 * The site's item documents as they were at a time, rebuilt from the item revisions: it shadows the
 * `item_documents` table for one query, so the whole query compiler (filters, sorts, relation filters) applies
 * unchanged. Cost: one pass over the site's revisions up to that time (an index range per item).
 */
export function asOfDocuments(siteId: string, asOf: Date): RawBuilder<unknown> {
  return sql`with item_documents as (
    select r.site_id, r.collection, r.item_id as id, r.data, r.version,
           f.at as created_at, f.actor ->> 'id' as created_by, r.at as updated_at, r.actor ->> 'id' as updated_by,
           case when r.action = 'delete' then r.at end as deleted_at,
           case when r.action = 'delete' then r.actor ->> 'id' end as deleted_by
    from (select distinct on (collection, item_id) * from item_revisions
          where site_id = ${siteId} and at <= ${asOf.toISOString()} order by collection, item_id, version desc) r
    join item_revisions f on f.site_id = r.site_id and f.collection = r.collection and f.item_id = r.item_id
                          and f.version = 1)`;
}

export async function findItem(
  db: Db,
  siteId: string,
  collection: string,
  id: string,
): Promise<(ItemRow & { record: ItemRecord }) | null> {
  const r = await sql<ItemRow>`
    select ${ITEM_COLUMNS} from item_documents a0
    where a0.site_id = ${siteId} and a0.collection = ${collection} and a0.id = ${id} and a0.deleted_at is null`.execute(
    db,
  );
  const row = r.rows[0];
  // The record is built in a copy: the row's own values stay as stored.
  return row ? { ...row, record: toItemRecord({ ...row, data: { ...row.data } }) } : null;
}

/**
 * `search`: the item's searchable fields that the caller may read match the words (web-search syntax, accents and
 * case ignored), through the index of the search read model (`search_fields`, projections/search).
 */
function searchCondition(term: string, scope: Scope): RawBuilder<unknown> {
  const fields = [...(scope.schema.fields.get(scope.collection)?.values() ?? [])]
    .filter((f) => isSearchable(f) && (scope.guard?.visible(scope.collection, f.field) ?? true))
    .map((f) => f.field);
  const words = searchText(term);
  if (!fields.length || !positiveTerms(words)) return sql`false`;
  const a = (col: string) => sql.ref(`${scope.alias}.${col}`);
  return sql`exists (select 1 from search_fields s
    where s.site_id = ${a('site_id')} and s.collection = ${a('collection')} and s.item_id = ${a('id')}
      and s.field = any(${fields}::text[]) and s.tsv @@ ${searchQuery(words)})`;
}

export interface ItemList {
  data: Record<string, unknown>[];
  meta: { total?: number; filter_count?: number; limit: number; offset: number };
}

/** One page of a collection's live items (or its aggregates), filtered, sorted and counted in SQL. */
export async function listItems(
  db: Db,
  siteId: string,
  collection: string,
  q: ItemQuery,
  schema: SiteSchema,
): Promise<ItemList> {
  const scope = rootScope(schema, collection, q.guard);
  const live = q.withDeleted ? sql`true` : sql`a0.deleted_at is null`;
  const where = sql`a0.site_id = ${siteId} and a0.collection = ${collection} and ${live} and ${guardRows(scope)}
                    and ${q.id !== undefined ? sql`a0.id = ${q.id}` : sql`true`}
                    and ${q.filter ? compileFilter(q.filter, scope) : sql`true`}
                    and ${q.search ? searchCondition(q.search, scope) : sql`true`}`;
  // A filter through a relation depends on other collections' changes too: such counts are not cached.
  const selfContained = scope.aliases.n === 0;
  const page = { limit: q.limit, offset: q.offset };
  const source = q.asOf ? asOfDocuments(siteId, q.asOf) : sql``;
  if (q.aggregate || q.groupBy.length) {
    if (q.after !== undefined)
      throw new InvalidItemQuery({ message: 'after pages items, not aggregates', path: ['query', 'after'] });
    return { data: await aggregate(db, q, scope, where, source), meta: page };
  }
  const tree = fieldTree(q.fields);
  checkFieldTree(tree, schema, collection);
  checkDeep(q.deep, schema, collection);
  const keys = sortKeys(q, scope);
  const order = keys.map((k) => (k.desc ? sql`${k.expr} desc` : sql`${k.expr} asc`));
  const orderBy = order.length ? sql`order by ${sql.join(order)}` : sql``;
  // The anchor of `after`: an item of the list's collection the caller may read (filter or not).
  const anchor = () => sql`a0.site_id = ${siteId} and a0.collection = ${collection} and a0.id = ${q.after ?? null}
                     and ${live} and ${guardRows(scope)}`;
  const keyset = keysetAfter(q, keys, anchor);
  const counted = q.meta.total || q.meta.filterCount;
  const cacheable = counted && !q.asOf && selfContained;
  // The collection's change counter comes with the page, so a count in the cache costs no statement of its own.
  const columns = sql`${ITEM_COLUMNS}${q.withDeleted ? DELETED_COLUMNS : sql``}${
    cacheable ? sql`, ${changesColumn(siteId, collection)}` : sql``
  }`;
  const at = { siteId, collection, limit: q.limit, offset: q.offset, deferred: q.offset > 0 && !q.asOf && !q.single };
  const rows = await sql<ItemRow & { svc_changes?: string | null }>`${source}${keyset.with} ${pageStatement(
    columns,
    sql`${where} and ${keyset.where}`,
    orderBy,
    at,
  )}`.execute(db);
  if (q.after !== undefined && !rows.rows.length) await checkAnchor(db, collection, anchor());
  // One after the other: both run on the same transaction's connection.
  const countQuery = sql<{ n: number }>`${source} select count(*)::int as n from item_documents a0 where ${where}`;
  const count = await (!counted
    ? null
    : !cacheable
      ? countQuery.execute(db).then((r) => r.rows[0]!.n)
      : cachedCount(db, siteId, collection, countQuery, rows.rows.length ? rows.rows[0]!.svc_changes : undefined));
  const n = count ?? undefined;
  const records = rows.rows.map(toItemRecord);
  const data = await expandRecords(
    { db, siteId, schema, locale: q.locale, guard: q.guard },
    collection,
    records,
    tree,
    q.deep,
  );
  return {
    data,
    meta: { ...(q.meta.total ? { total: n } : {}), ...(q.meta.filterCount ? { filter_count: n } : {}), ...page },
  };
}

/**
 * The page's rows. Past the first page, a deferred join: the ids of the page are found alone, over the listing index
 * (the default order), a field's index or a sort of narrow rows, and only those items are then read whole; so the
 * rows the offset skips are never fetched whole nor formatted (at offset 90 000 of 100 000 that was nearly all of
 * the work). The ids come as an array (`= any(array(…))`, an index scan of the primary key whatever the planner
 * guesses of the limit, also in a generic plan), and their rows are sorted again by the same keys, which end in
 * (created_at, id) and so give the ids' order. `asOf` keeps the plain shape: its documents are a CTE, which a
 * second reference would materialise.
 */
function pageStatement(
  columns: RawBuilder<unknown>,
  where: RawBuilder<unknown>,
  orderBy: RawBuilder<unknown>,
  at: { siteId: string; collection: string; limit: number; offset: number; deferred: boolean },
): RawBuilder<unknown> {
  const page = sql`${orderBy} limit ${at.limit} offset ${at.offset}`;
  if (!at.deferred) return sql`select ${columns} from item_documents a0 where ${where} ${page}`;
  // The subquery's own a0 hides the outer one: `where` and `orderBy` read the rows of whichever query holds them.
  return sql`select ${columns} from item_documents a0
    where a0.site_id = ${at.siteId} and a0.collection = ${at.collection}
      and a0.id = any(array(select a0.id from item_documents a0 where ${where} ${page})) ${orderBy}`;
}

/** The list's order: the sort asked for, then (unless one item is asked for) creation and id, so every page is stable. */
function sortKeys(q: ItemQuery, scope: Scope): SortKey[] {
  const keys: SortKey[] = q.sort.map((s) =>
    s.startsWith('-')
      ? { expr: sortTarget(s.slice(1), scope), desc: true }
      : { expr: sortTarget(s, scope), desc: false },
  );
  if (!q.single)
    keys.push(
      { expr: sql`a0.created_at`, desc: false, notNull: true },
      { expr: sql`a0.id`, desc: false, notNull: true },
    );
  return keys;
}

/**
 * Keyset pagination (`after`): the anchor's sort key values as `svc_after`, and the condition on the rows past it.
 * Without `after`, nothing to add.
 */
function keysetAfter(q: ItemQuery, keys: SortKey[], anchor: () => RawBuilder<unknown>) {
  if (q.after === undefined) return { where: sql`true`, with: sql`` };
  if (q.asOf || q.single)
    throw new InvalidItemQuery({ message: 'after cannot be combined with asOf', path: ['query', 'after'] });
  return {
    with: sql`with svc_after as (select ${sql.join(keys.map((k, i) => sql`${k.expr} as ${sql.raw(`k${i}`)}`))}
                from item_documents a0 where ${anchor()}) `,
    where: afterKeys(keys),
  };
}

/** An empty page after `after`: the end of the list, or an anchor the caller cannot use (unknown, another's, hidden). */
async function checkAnchor(db: Db, collection: string, anchor: RawBuilder<unknown>): Promise<void> {
  const found = await sql`select 1 from item_documents a0 where ${anchor}`.execute(db);
  if (!found.rows.length)
    throw new InvalidItemQuery({
      message: `after names no item of ${collection} you may read`,
      path: ['query', 'after'],
    });
}

interface SortKey {
  expr: RawBuilder<unknown>;
  desc: boolean;
  /** A column that is never null (created_at, id). */
  notNull?: boolean;
}

/**
 * The rows after the anchor (`svc_after`, its key values k0…kn) in the order of `keys`: PostgreSQL sorts nulls last
 * going up and first going down, and so does this, key after key, the earlier ones equal (nulls equal too). The
 * trailing keys that are never null and go up (created_at, id) compare as one row, which the listing index serves.
 */
function afterKeys(keys: SortKey[]): RawBuilder<unknown> {
  // Scalar subqueries, not a join: PostgreSQL takes their values once, as parameters an index condition can use.
  const k = (i: number) => sql`(select ${sql.raw(`k${i}`)} from svc_after)`;
  const past = (i: number) => {
    const e = keys[i]!.expr;
    return keys[i]!.desc
      ? sql`(case when ${k(i)} is null then ${e} is not null else ${e} < ${k(i)} end)`
      : sql`(case when ${k(i)} is null then false else (${e} > ${k(i)} or ${e} is null) end)`;
  };
  const equal = (n: number) => keys.slice(0, n).map((key, j) => sql`${key.expr} is not distinct from ${k(j)}`);
  let tail = keys.length;
  while (tail > 0 && keys[tail - 1]!.notNull && !keys[tail - 1]!.desc) tail--;
  const branches = keys.slice(0, tail).map((_, i) => sql.join([...equal(i), past(i)], sql` and `));
  if (tail < keys.length) {
    const rest = keys.slice(tail).map((_, j) => j + tail);
    const row = sql`(${sql.join(rest.map((i) => keys[i]!.expr))}) > (${sql.join(rest.map(k))})`;
    branches.push(sql.join([...equal(tail), row], sql` and `));
  }
  // No anchor, no rows (rather than the rows after nothing).
  return sql`(exists (select 1 from svc_after) and (${sql.join(branches, sql` or `)}))`;
}

async function aggregate(db: Db, q: ItemQuery, scope: Scope, where: RawBuilder<unknown>, source: RawBuilder<unknown>) {
  const groups = groupColumns(q.groupBy, scope);
  const cols = [...groups.select, ...aggregateColumns(q.aggregate ?? {}, scope)];
  const order = groups.by.length ? sql`order by ${sql.join(groups.by)}` : sql``;
  const r = await sql<Record<string, unknown>>`
    ${source} select ${sql.join(cols)} from item_documents a0 where ${where}
    ${groups.by.length ? sql`group by ${sql.join(groups.by)}` : sql``} ${order}
    limit ${q.limit} offset ${q.offset}`.execute(db);
  return r.rows.map((row) => aggregateRow(row, q.groupBy));
}

/** Items by (collection, id), live or soft-deleted, in one query: `deleted` tells which. */
export async function findItemsAnyState(
  db: Db,
  siteId: string,
  refs: { collection: string; id: string }[],
): Promise<Map<string, { data: Record<string, unknown>; deleted: boolean }>> {
  if (!refs.length) return new Map();
  const r = await sql<{ collection: string; id: string; data: Record<string, unknown>; deleted_at: Date | null }>`
    select a0.collection, a0.id, a0.data, a0.deleted_at from item_documents a0
    join unnest(${refs.map((x) => x.collection)}::text[], ${refs.map((x) => x.id)}::text[]) as k(collection, id)
      on a0.collection = k.collection and a0.id = k.id
    where a0.site_id = ${siteId}`.execute(db);
  return new Map(r.rows.map((x) => [`${x.collection}/${x.id}`, { data: x.data, deleted: x.deleted_at !== null }]));
}
