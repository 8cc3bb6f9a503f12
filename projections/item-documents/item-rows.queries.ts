import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../src/kernel/db/database.ts';
import { compileFilter, rootScope, type Filter, type Guard } from './item-filter.ts';
import type { SiteSchema } from '../schema/index.ts';

/**
 * The rows of some items as a permission condition sees them, under the alias a0: the item's document, or, for an
 * item purged out of the read model, its last revision (values as of its last state, created by the first revision's
 * actor, updated and deleted by the purge). An id with neither is absent.
 */
function rowsOf(siteId: string, collection: string, ids: readonly string[]): RawBuilder<unknown> {
  const list = sql`${[...ids]}::text[]`;
  return sql`(
    select d.id, d.site_id, d.collection, d.data, d.created_at, d.created_by, d.updated_at, d.updated_by,
           d.deleted_at, d.deleted_by
    from item_documents d where d.site_id = ${siteId} and d.collection = ${collection} and d.id = any(${list})
    union all
    select l.item_id, l.site_id, l.collection, l.data, f.at, f.actor ->> 'id', l.at, l.actor ->> 'id',
           l.at, l.actor ->> 'id'
    from (select distinct on (r.item_id) r.* from item_revisions r
          where r.site_id = ${siteId} and r.collection = ${collection} and r.item_id = any(${list})
          order by r.item_id, r.ordinal desc) l
    join item_revisions f on f.site_id = l.site_id and f.collection = l.collection and f.item_id = l.item_id
                         and f.ordinal = 1
    where not exists (select 1 from item_documents x
                      where x.site_id = l.site_id and x.collection = l.collection and x.id = l.item_id)
  ) a0`;
}

/** A condition on the rows of a collection: a permission rule's filter, or the caller's read guard. */
export type RowCondition = { filter: Filter } | { guard: Guard };

const compiled = (schema: SiteSchema, collection: string, c: RowCondition): RawBuilder<unknown> => {
  if ('filter' in c) return compileFilter(c.filter, rootScope(schema, collection));
  return c.guard.rows(collection, rootScope(schema, collection, c.guard)) ?? sql`true`;
};

/**
 * Which of the items lie inside every one of the conditions: id → inside. Items neither in the read model nor in
 * the history are missing from the answer (the caller's 404 to give).
 */
export async function rowsInside(
  db: Db,
  siteId: string,
  schema: SiteSchema,
  collection: string,
  ids: readonly string[],
  conditions: RowCondition[],
): Promise<Map<string, boolean>> {
  const out = new Map<string, boolean>();
  if (!ids.length) return out;
  const all = conditions.map((c) => sql`(${compiled(schema, collection, c)})`);
  const inside = all.length ? sql.join(all, sql` and `) : sql`true`;
  const r = await sql<{ id: string; inside: boolean }>`
    select a0.id, coalesce(${inside}, false) as inside from ${rowsOf(siteId, collection, ids)}`.execute(db);
  for (const row of r.rows) out.set(row.id, row.inside === true);
  return out;
}

/**
 * Whether one item lies inside a filter: null when there is no such item (`live`: no live one), else the answer.
 * The filter is compiled by the list-query compiler, so a rule's conditions mean the same here as in a list.
 */
export async function itemInside(
  db: Db,
  siteId: string,
  schema: SiteSchema,
  collection: string,
  id: string,
  filter: Filter | null,
  opts: { live: boolean },
): Promise<boolean | null> {
  const condition = filter ? compileFilter(filter, rootScope(schema, collection)) : sql`true`;
  const r = await sql<{ inside: boolean }>`select ${condition} as inside from item_documents a0
    where a0.site_id = ${siteId} and a0.collection = ${collection} and a0.id = ${id}
      ${opts.live ? sql`and a0.deleted_at is null` : sql``}`.execute(db);
  return r.rows[0] ? r.rows[0].inside === true : null;
}

/**
 * Whether values not yet written (a create or update about to be sent) satisfy a filter, as a row of `collection`
 * by `by` now: the same compiler judges them as it will judge the stored item.
 */
export async function candidateInside(
  db: Db,
  siteId: string,
  schema: SiteSchema,
  collection: string,
  candidate: { id: string; data: object; by: string },
  filter: Filter,
): Promise<boolean> {
  const { id, data, by } = candidate;
  const r = await sql<{ ok: boolean }>`
    select exists (
      select 1 from (select ${id}::text as id, ${siteId}::text as site_id, ${collection}::text as collection,
                            ${JSON.stringify(data)}::jsonb as data, now() as created_at, ${by}::text as created_by,
                            now() as updated_at, ${by}::text as updated_by,
                            null::timestamptz as deleted_at, null::text as deleted_by) a0
      where ${compileFilter(filter, rootScope(schema, collection))}) as ok`.execute(db);
  return r.rows[0]!.ok;
}
