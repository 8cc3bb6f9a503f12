import { isSystemCollection } from './system-collections.types.ts';
import type { CollectionDef, FieldDef, RelationDef } from './schema.types.ts';

/** One collection as its stream folds: its definition, whether it was soft-deleted, its fields by name. */
export interface CollectionState {
  def: CollectionDef;
  deleted: boolean;
  fields: Record<string, FieldDef>;
}
/** A site's schema folded from its stream: what the schema decider decides on and a config plan is rehearsed against. */
export interface SchemaState {
  collections: Record<string, CollectionState>;
  relations: Record<string, RelationDef>;
}

/** One live collection of a snapshot, with its fields in their order. */
export interface SnapshotCollection {
  def: CollectionDef;
  system: boolean;
  fields: FieldDef[];
}

/**
 * A site's schema at one version of its stream, in a deterministic order: live collections by name (deleted ones
 * left out), each collection's fields by `sort` then in the order they were added, relations by id. The one view
 * config export, plans and type generation read.
 */
export interface SchemaSnapshot {
  /** The schema stream's version the snapshot was folded at (0: nothing changed yet). */
  version: number;
  collections: SnapshotCollection[];
  relations: RelationDef[];
  /** Names of collections soft-deleted (their items kept): a name that cannot be created again. */
  deleted: string[];
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The snapshot of a folded schema at the stream's `version` (pure). */
export function snapshotOf(state: SchemaState, version: number): SchemaSnapshot {
  const collections: SnapshotCollection[] = [];
  const deleted: string[] = [];
  for (const name of Object.keys(state.collections).sort(byName)) {
    const c = state.collections[name]!;
    if (c.deleted) {
      deleted.push(name);
      continue;
    }
    const fields = Object.values(c.fields)
      .map((f, i) => ({ f, i }))
      .sort((a, b) => (a.f.sort ?? Number.MAX_SAFE_INTEGER) - (b.f.sort ?? Number.MAX_SAFE_INTEGER) || a.i - b.i)
      .map((x) => x.f);
    collections.push({ def: c.def, system: isSystemCollection(name), fields });
  }
  const relations = Object.values(state.relations).sort((a, b) => byName(a.id, b.id));
  return { version, collections, relations, deleted };
}
