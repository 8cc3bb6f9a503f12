import type { EventStore } from '../../kernel/es/event-store.ts';
import { readState } from '../../kernel/es/handle-command.ts';
import { schemaDecider, type SchemaState } from './schema.decider.ts';
import type { SchemaEvent } from '../../contracts/schema/schema.events.ts';
import { schemaStream } from '../../contracts/schema/schema.events.ts';
import { isSystemCollection } from '../../contracts/schema/system-collections.types.ts';
import type { CollectionDef, FieldDef, RelationDef } from '../../contracts/schema/schema.types.ts';
import { domainEvent } from '../../kernel/es/on-events.ts';

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

/** The site's schema now, or as it was at `asOf` (folded from the log: every change is an event). */
export async function schemaSnapshot(
  store: EventStore,
  siteId: string,
  asOf?: Date,
): Promise<SchemaSnapshot & { state: SchemaState }> {
  if (!asOf) {
    const { state, version } = await readState(store, schemaDecider, schemaStream(siteId));
    return { ...snapshotOf(state, version), state };
  }
  let state = schemaDecider.initialState();
  let version = 0;
  for await (const e of store.readStream<SchemaEvent>(schemaStream(siteId), { until: asOf })) {
    state = schemaDecider.evolve(state, domainEvent(e));
    version = e.streamVersion;
  }
  return { ...snapshotOf(state, version), state };
}
