import { InvalidItemQuery } from './item-query.errors.ts';
import type { ItemRecord } from './item-record.ts';
import type { DeepSpec } from './item-expand.ts';
import { relationOn, valueType, type SiteSchema } from '../schema/index.ts';

/** `fields=title,author.name,tags.*` as a tree: a leaf is `true`, a relation to expand holds its own tree. */
export type FieldTree = Map<string, FieldTree | true>;

const AUDIT = ['id', 'created_at', 'created_by', 'updated_at', 'updated_by', 'deleted_at', 'deleted_by'];
const bad = (message: string) => new InvalidItemQuery({ message, path: ['fields'] });

export function fieldTree(fields: string[] | null): FieldTree {
  const tree: FieldTree = new Map();
  for (const f of fields ?? ['*']) {
    const segments = f.split('.');
    if (segments.length > 8 || !segments.every((s) => s === '*' || /^[A-Za-z0-9_]+$/.test(s)))
      throw bad(`invalid field path ${f}`);
    let node = tree;
    segments.forEach((s, i) => {
      if (i === segments.length - 1) {
        if (!node.has(s)) node.set(s, true);
        return;
      }
      let next = node.get(s);
      if (next === undefined || next === true) node.set(s, (next = new Map()));
      node = next;
    });
  }
  return tree;
}

/** Checks every key of a tree against the collection (relations lead into their target's fields). */
export function checkFieldTree(tree: FieldTree, schema: SiteSchema, collection: string, prefix = ''): void {
  for (const [key, sub] of tree) {
    if (key === '*' || AUDIT.includes(key)) continue;
    if (!valueType(schema, collection, key)) throw bad(`unknown field ${prefix}${key}`);
    if (sub === true) continue;
    const r = relationOn(schema, collection, key);
    if (!r) {
      if (valueType(schema, collection, key) === 'json') continue;
      throw bad(`${prefix}${key} is not a relation: it has no fields`);
    }
    if (r.kind !== 'm2a') checkFieldTree(sub, schema, r.target!, `${prefix}${key}.`);
  }
}

/**
 * Every key of `deep` names a relation of the collection (a nested key one of the related collection's; an m2a's
 * children span several collections and are judged when read): a misspelt key is a 400, not a silent no-op.
 */
export function checkDeep(deep: Map<string, DeepSpec>, schema: SiteSchema, collection: string, prefix = ''): void {
  for (const [key, spec] of deep) {
    const r = relationOn(schema, collection, key);
    if (!r)
      throw new InvalidItemQuery({
        message: `deep[${prefix}${key}] does not name a relation of ${collection}`,
        path: ['query', 'deep'],
      });
    if (r.kind !== 'm2a') checkDeep(spec.children, schema, r.target!, `${prefix}${key}.`);
  }
}

/** The keys of a record the tree asks for; the id always. Expanded relations were filled in before. */
export function pick(record: ItemRecord, tree: FieldTree): ItemRecord {
  if (tree.has('*') && tree.size === 1) return record;
  const out: ItemRecord = tree.has('*') ? { ...record } : { id: record.id };
  for (const key of tree.keys()) if (key !== '*' && key in record) out[key] = record[key];
  return out;
}

/** Both trees' keys; where both expand a key, their subtrees merged. */
function mergeTrees(a: FieldTree, b: FieldTree): FieldTree {
  const out: FieldTree = new Map(a);
  for (const [key, sub] of b) {
    const had = out.get(key);
    out.set(key, had === undefined || had === true ? sub : sub === true ? had : mergeTrees(had, sub));
  }
  return out;
}

/**
 * `*.<rest>` at one level, as Directus reads it: every field, and every relation the caller may see expanded with
 * `<rest>` (merged with what the tree names for it), so `*.*.*` reaches three levels. Without this the wildcard's
 * subtree was never read and `*.*` stopped at the first level. Each level widens again as it is expanded, so the
 * expansion budget counts every row a wildcard reaches.
 */
export function widenWildcard(
  tree: FieldTree,
  schema: SiteSchema,
  collection: string,
  visible: (field: string) => boolean,
): FieldTree {
  const rest = tree.get('*');
  if (rest === undefined || rest === true) return tree;
  const out: FieldTree = new Map(tree);
  out.set('*', true);
  for (const key of schema.fields.get(collection)?.keys() ?? []) {
    if (!relationOn(schema, collection, key) || !visible(key)) continue;
    const had = out.get(key);
    out.set(key, had === undefined || had === true ? rest : mergeTrees(had, rest));
  }
  return out;
}
