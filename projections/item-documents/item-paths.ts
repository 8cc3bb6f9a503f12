import type { Db } from '../../src/kernel/db/database.ts';
import { expandRecords, type ExpansionBudget } from './item-expand.ts';
import { checkFieldTree, fieldTree, widenWildcard, type FieldTree } from './item-fields.ts';
import type { Guard } from './item-filter.ts';
import { DomainError } from '../../src/kernel/http/errors.ts';
import type { ItemRecord } from './item-record.ts';
import { relationOn, type SiteSchema } from '../schema/index.ts';

/** Whether a field leaves a record: `named` when a path names it (not through a wildcard). */
export type DropField = (collection: string, field: string, named: boolean) => boolean;

const all = () => true;

/** The relations a tree expands at one level (wildcards widened), each with its subtree. */
function relationsOf(tree: FieldTree, schema: SiteSchema, collection: string): [string, FieldTree][] {
  return [...widenWildcard(tree, schema, collection, all)].flatMap(([key, sub]) =>
    sub !== true && relationOn(schema, collection, key) ? [[key, sub] as [string, FieldTree]] : [],
  );
}

/**
 * Fills the relation paths of `fields` into records chosen elsewhere (a delivered page's published items): related
 * rows are read under `guard` (rows and fields, at every level), within the expansion budget; the records' own
 * fields stay as given. A path that no longer fits the schema leaves its relation null. Then `drop` removes fields
 * from every level (the records' own included). `budget`: shared with the caller's other expansions (one page).
 */
export async function expandPaths(
  db: Db,
  siteId: string,
  schema: SiteSchema,
  collection: string,
  records: ItemRecord[],
  fields: string[] | null,
  opts: { guard?: Guard; drop: DropField; budget?: ExpansionBudget },
): Promise<ItemRecord[]> {
  const tree = fieldTree(fields);
  const relations: FieldTree = new Map();
  for (const [key, sub] of relationsOf(tree, schema, collection)) {
    const r = relationOn(schema, collection, key)!;
    try {
      if (r.kind !== 'm2a') checkFieldTree(sub, schema, r.target!, `${key}.`);
      relations.set(key, sub);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
    }
  }
  let out = records.map((r) => ({ ...r }));
  if (relations.size) {
    const ctx = { db, siteId, schema, locale: null, guard: opts.guard, openRoot: true, within: opts.budget };
    const expanded = await expandRecords(ctx, collection, out, relations, new Map());
    out = out.map((r, i) => {
      for (const key of relations.keys()) r[key] = Object.hasOwn(expanded[i]!, key) ? expanded[i]![key] : null;
      return r;
    });
  }
  for (const r of out) strip(r, tree, schema, collection, opts.drop);
  return out;
}

function strip(record: ItemRecord, tree: FieldTree, schema: SiteSchema, collection: string, drop: DropField) {
  for (const key of Object.keys(record)) if (key !== 'id' && drop(collection, key, tree.has(key))) delete record[key];
  for (const [key, sub] of relationsOf(tree, schema, collection)) {
    const r = relationOn(schema, collection, key)!;
    const visit = (v: unknown, c: unknown) => {
      if (v && typeof v === 'object' && !Array.isArray(v) && typeof c === 'string')
        strip(v as ItemRecord, sub, schema, c, drop);
    };
    const v = record[key];
    const list = Array.isArray(v) ? v : [v];
    for (const e of list)
      if (r.kind === 'm2a')
        visit((e as { item?: unknown } | null)?.item, (e as { collection?: unknown } | null)?.collection);
      else visit(e, r.target);
  }
}

/**
 * The collections whose items the paths of `fields` reach from `collection` (a change to one of them may change what
 * was delivered); null when an m2a is crossed (any collection).
 */
export function reachedCollections(
  schema: SiteSchema,
  collection: string,
  fields: string[] | null,
): Set<string> | null {
  const out = new Set<string>();
  const walk = (tree: FieldTree, c: string): boolean => {
    for (const [key, sub] of relationsOf(tree, schema, c)) {
      const r = relationOn(schema, c, key)!;
      if (r.kind === 'm2a') return false;
      if (r.junctionCollection) out.add(r.junctionCollection);
      out.add(r.target!);
      if (!walk(sub, r.target!)) return false;
    }
    return true;
  };
  return walk(fieldTree(fields), collection) ? out : null;
}
