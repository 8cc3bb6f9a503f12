import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../src/kernel/db/database.ts';
import { ExpansionLimit, InvalidItemQuery } from './item-query.errors.ts';
import type { RelationRecord } from '../schema/index.ts';
import { toItemRecord, ITEM_COLUMNS, type ItemRecord, type ItemRow } from './item-record.ts';
import { pick, fieldTree, checkFieldTree, widenWildcard, type FieldTree } from './item-fields.ts';
import { compileFilter, guardRows, rootScope, sortTarget, type Filter, type Guard } from './item-filter.ts';
import { relationOn, type SiteSchema } from '../schema/index.ts';
import { translateRecord } from './item-translate.ts';

/** `deep[<relation>][_filter|_sort|_limit|_offset|fields]`: how the related items of one relation are read. */
export interface DeepSpec {
  filter: Filter | null;
  sort: string[];
  limit: number | null;
  offset: number;
  fields: string[] | null;
  children: Map<string, DeepSpec>;
}

/** Related items listed per parent (o2m, m2m) when `deep` sets no limit. */
export const DEFAULT_RELATED_LIMIT = 100;

interface Ctx {
  db: Db;
  siteId: string;
  schema: SiteSchema;
  /** X-Svc-Locale: translations are applied on every level before fields are picked. */
  locale: string | null;
  /** Read permissions: related rows outside them are not found, hidden fields are dropped on every level. */
  guard?: Guard;
  /** Shared by every level of one request: counts fetched related rows against EXPANSION_LIMIT. */
  budget?: ExpansionBudget;
  /**
   * A budget that several expansions of one unit of work share (a delivered page's groups of blocks): without it
   * each call starts a fresh one, so N calls could fetch N times the limit.
   */
  within?: ExpansionBudget;
  /**
   * The records given were chosen by rules of their own (a delivered page's published items): the guard's field
   * rules apply from the first related level on, not to them.
   */
  openRoot?: boolean;
}

/**
 * Most related rows one request may fetch while expanding relations, summed over every level: a self-referencing
 * m2m would otherwise grow the work by its fan-out per level (depth 8 is allowed).
 */
export const EXPANSION_LIMIT = 5000;
/**
 * Most records (nodes) an expanded answer may hold, counting a shared child once per place it appears: records are
 * fetched and shaped once, but the serialised answer repeats them, so the output is bounded separately.
 */
export const EXPANSION_NODE_LIMIT = 10000;

/** What one request's expansions have spent: related rows fetched, and records placed in the answer. */
export interface ExpansionBudget {
  rows: number;
  /** Records counted into answers so far (countNodes), against EXPANSION_NODE_LIMIT. */
  nodes: number;
  /** The related records shaped so far: only these count as nodes of the answer (not objects inside json values). */
  records: WeakSet<object>;
}

/** A fresh budget, for a unit of work whose expansions must share one (see `Ctx.within`). */
export const expansionBudget = (): ExpansionBudget => ({ rows: 0, nodes: 0, records: new WeakSet() });

/** Related rows fetched by expansions since the process started: lets tests measure the work of one request. */
export const expansionStats = { rowsFetched: 0 };

const tooLarge = (limit: number, what: string) => new ExpansionLimit({ limit, what });

function spend(ctx: Ctx, rows: number): void {
  expansionStats.rowsFetched += rows;
  const budget = ctx.budget!;
  budget.rows += rows;
  if (budget.rows > EXPANSION_LIMIT) throw tooLarge(EXPANSION_LIMIT, 'related records');
}

/**
 * Fills the relations the field tree asks for into the records, one batched query per relation and level (never
 * one query per record), then picks the asked-for keys.
 */
export async function expandRecords(
  ctx: Ctx,
  collection: string,
  records: ItemRecord[],
  tree: FieldTree,
  deep: Map<string, DeepSpec>,
): Promise<ItemRecord[]> {
  if (!ctx.budget) {
    const budget = ctx.within ?? expansionBudget();
    const spent = budget.rows;
    const out = await expandRecords({ ...ctx, budget }, collection, records, tree, deep);
    // Without a related record fetched, the answer's records are the list's own (at most 200): nothing to count.
    if (budget.rows > spent) countNodes(out, budget, EXPANSION_NODE_LIMIT);
    return out;
  }
  const guard = ctx.openRoot ? undefined : ctx.guard;
  tree = widenWildcard(tree, ctx.schema, collection, (f) => !guard || guard.visible(collection, f));
  const root = ctx.openRoot;
  if (root) ctx = { ...ctx, openRoot: false };
  for (const [key, sub] of tree) {
    const relation = relationOn(ctx.schema, collection, key);
    if (!relation || !records.length) continue;
    const spec = deep.get(key);
    const childTree = spec?.fields ? fieldTree(spec.fields) : sub === true ? null : sub;
    if (spec?.fields && relation.kind !== 'm2a') checkFieldTree(childTree!, ctx.schema, relation.target!, `${key}.`);
    if (!childTree && (relation.kind === 'm2o' || relation.kind === 'm2a')) continue;
    const leaf = childTree ?? new Map([['id', true as const]]);
    await expandRelation(ctx, relation, records, key, leaf, spec, !childTree);
  }
  return records.map((r) => {
    const picked = withNulls(ctx, collection, pick(translateRecord(r, ctx.locale), tree), tree);
    return root ? picked : hide(ctx, collection, picked);
  });
}

/**
 * Every asked-for field of the schema (all of them under `*`) is present, `null` when the record has no value: typed
 * clients rely on the keys. Unexpanded o2m/m2m fields hold no value of their own and stay out under `*`.
 */
function withNulls(ctx: Ctx, collection: string, record: ItemRecord, tree: FieldTree): ItemRecord {
  const fields = ctx.schema.fields.get(collection);
  if (!fields) return record;
  const all = tree.has('*');
  for (const key of fields.keys()) {
    if (Object.hasOwn(record, key) || !(all || tree.has(key))) continue;
    const kind = relationOn(ctx.schema, collection, key)?.kind;
    if (!tree.has(key) && (kind === 'o2m' || kind === 'm2m')) continue;
    record[key] = null;
  }
  return record;
}

/**
 * Counts the records of an expanded answer (a shared child once per place) into the budget's, refusing past `limit`.
 */
function countNodes(records: unknown[], budget: ExpansionBudget, limit: number): void {
  const related = budget.records;
  const memo = new Map<object, number>();
  const size = (v: unknown): number => {
    if (v === null || typeof v !== 'object') return 0;
    const known = memo.get(v);
    if (known !== undefined) return known;
    let n = related.has(v) ? 1 : 0;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      n += size(child);
      if (n > limit) throw tooLarge(limit, 'records in the answer');
    }
    memo.set(v, n);
    return n;
  };
  for (const r of records) if ((budget.nodes += 1 + size(r)) > limit) throw tooLarge(limit, 'records in the answer');
}

/** Drops the fields the caller may not read (the id and audit columns always show). */
function hide(ctx: Ctx, collection: string, record: ItemRecord): ItemRecord {
  const guard = ctx.guard;
  if (!guard) return record;
  const fields = ctx.schema.fields.get(collection);
  for (const key of Object.keys(record)) if (fields?.has(key) && !guard.visible(collection, key)) delete record[key];
  return record;
}

/** The guard's condition on rows of `collection` read under alias a0 of a query of its own. */
function visibleRows(ctx: Ctx, collection: string): RawBuilder<unknown> {
  return ctx.guard ? guardRows(rootScope(ctx.schema, collection, ctx.guard)) : sql`true`;
}

async function expandRelation(
  ctx: Ctx,
  relation: RelationRecord,
  records: ItemRecord[],
  key: string,
  tree: FieldTree,
  spec: DeepSpec | undefined,
  idsOnly: boolean,
): Promise<void> {
  const children = spec?.children ?? new Map<string, DeepSpec>();
  const shape = async (rows: ItemRow[], collection: string) => {
    const out = await expandRecords(
      ctx,
      collection,
      rows.map((r) => toItemRecord(r)),
      tree,
      children,
    );
    for (const r of out) ctx.budget!.records.add(r);
    return out;
  };
  if (relation.kind === 'm2o') {
    const ids = unique(records.map((r) => r[key]));
    const rows = await byIds(ctx, relation.target!, ids);
    spend(ctx, rows.length);
    const found = new Map((await shape(rows, relation.target!)).map((r) => [r.id, r]));
    for (const r of records)
      r[key] = r[key] === null || r[key] === undefined ? null : (found.get(String(r[key])) ?? null);
    return;
  }
  if (relation.kind === 'm2a') {
    const entries = records.flatMap((r) => (Array.isArray(r[key]) ? (r[key] as unknown[]) : []));
    const byCollection = new Map<string, Set<string>>();
    for (const e of entries) {
      const { collection, item } = (e ?? {}) as { collection?: unknown; item?: unknown };
      if (typeof collection !== 'string' || item === null || item === undefined) continue;
      if (!byCollection.has(collection)) byCollection.set(collection, new Set());
      byCollection.get(collection)!.add(String(item));
    }
    const found = new Map<string, ItemRecord>();
    for (const [collection, ids] of byCollection) {
      if (!ctx.schema.fields.has(collection)) continue;
      checkFieldTree(tree, ctx.schema, collection, `${key}.`);
      const rows = await byIds(ctx, collection, [...ids]);
      spend(ctx, rows.length);
      for (const r of await shape(rows, collection)) found.set(`${collection}/${r.id}`, r);
    }
    for (const r of records) {
      if (!Array.isArray(r[key])) continue;
      r[key] = (r[key] as { collection: string; item: unknown }[]).map((e) => ({
        collection: e?.collection,
        item: found.get(`${e?.collection}/${String(e?.item)}`) ?? null,
      }));
    }
    return;
  }
  const listed = await relatedLists(ctx, relation, unique(records.map((r) => r.id)), spec);
  spend(ctx, listed.length);
  // Each related record is shaped once and shared by every parent that lists it.
  const distinct = new Map(listed.map((l) => [l.row.id, l.row]));
  const shaped = new Map((await shape([...distinct.values()], relation.target!)).map((r) => [r.id, r]));
  const byParent = new Map<string, unknown[]>();
  for (const l of listed) {
    const list = byParent.get(l.parent) ?? [];
    const child = shaped.get(l.row.id)!;
    list.push(idsOnly ? child.id : child);
    byParent.set(l.parent, list);
  }
  for (const r of records) r[key] = byParent.get(r.id) ?? [];
}

const unique = (values: unknown[]) => [
  ...new Set(values.filter((v) => v !== null && v !== undefined && typeof v !== 'object').map(String)),
];

async function byIds(ctx: Ctx, collection: string, ids: string[]): Promise<ItemRow[]> {
  if (!ids.length) return [];
  const r = await sql<ItemRow>`
    select ${ITEM_COLUMNS} from item_documents a0
    where a0.site_id = ${ctx.siteId} and a0.collection = ${collection} and a0.deleted_at is null and a0.id = any(${ids})
      and ${visibleRows(ctx, collection)}`.execute(ctx.db);
  return r.rows;
}

/** The o2m or m2m items of many parents in one query, each parent's list filtered, sorted and cut by `deep`. */
async function relatedLists(
  ctx: Ctx,
  relation: RelationRecord,
  parents: string[],
  spec: DeepSpec | undefined,
): Promise<{ parent: string; row: ItemRow }[]> {
  const scope = rootScope(ctx.schema, relation.target!, ctx.guard);
  const filter = sql`${spec?.filter ? compileFilter(spec.filter, scope) : sql`true`} and ${guardRows(scope)}`;
  const order: RawBuilder<unknown>[] = (spec?.sort ?? []).map((s) =>
    s.startsWith('-') ? sql`${sortTarget(s.slice(1), scope)} desc` : sql`${sortTarget(s, scope)} asc`,
  );
  order.push(sql`a0.created_at asc`, sql`a0.id asc`);
  const limit = spec?.limit ?? DEFAULT_RELATED_LIMIT;
  const offset = spec?.offset ?? 0;
  const target = sql`a0.site_id = ${ctx.siteId} and a0.collection = ${relation.target} and a0.deleted_at is null`;
  let from: RawBuilder<unknown>;
  let parent: RawBuilder<unknown>;
  if (relation.kind === 'o2m') {
    parent = sql`a0.data ->> ${sql.lit(relation.targetField)}`;
    from = sql`item_documents a0 where ${target}`;
  } else if (relation.kind === 'm2m') {
    parent = sql`j.data ->> ${sql.lit(relation.junctionField)}`;
    from = sql`item_documents j join item_documents a0 on ${target} and a0.id = j.data ->> ${sql.lit(relation.targetField)}
               where j.site_id = ${ctx.siteId} and j.collection = ${relation.junctionCollection} and j.deleted_at is null`;
  } else {
    throw new InvalidItemQuery({ message: `relation ${relation.field} cannot be listed`, path: ['fields'] });
  }
  const r = await sql<ItemRow & { parent: string; rn: string }>`
    select * from (
      select ${ITEM_COLUMNS}, ${parent} as parent, row_number() over (partition by ${parent} order by ${sql.join(order)}) as rn
      from ${from} and ${parent} = any(${parents}) and ${filter}
    ) x where rn > ${offset} and rn <= ${offset + limit} order by parent, rn`.execute(ctx.db);
  return r.rows.map((row) => ({ parent: row.parent, row }));
}
