import type { AppDeps } from '../../deps.ts';
import { defineReactor, type Reactor } from '../../kernel/es/reactor.ts';
import {
  dropCollection,
  indexItem,
  reindexCollection,
  sweepTypesense,
  typesenseClient,
  typesenseSearchIndex,
  typesenseWriter,
  type TypesenseSync,
  type TypesenseWriter,
} from '../../../projections/search-typesense/index.ts';
import type { ItemEvent } from '../../contracts/items/item.events.ts';
import type { SchemaEvent } from '../../contracts/schema/schema.events.ts';
import type { SearchIndex } from '../../../projections/search/index.ts';

/**
 * Typesense as the search engine (DESIGN §2), when TYPESENSE_URL and TYPESENSE_API_KEY are set: one client per
 * configuration, a reactor that follows the log to keep each item's document in step (documents built by the same
 * `searchDocument` as PostgreSQL's index), and a leader loop that indexes afresh any collection without an alias.
 */

type Engine = { index: SearchIndex; writer: TypesenseWriter; prefix: string };

const syncOf = (deps: AppDeps, engine: Engine): TypesenseSync => ({
  db: deps.db,
  schemas: deps.schemas,
  writer: engine.writer,
  prefix: engine.prefix,
  now: () => deps.clock.now(),
});
const engines = new WeakMap<object, Engine>();

/** The Typesense engine of this configuration, or null when Typesense is not configured. */
export function typesenseOf(deps: Pick<AppDeps, 'config' | 'db'>): Engine | null {
  const { TYPESENSE_URL: url, TYPESENSE_API_KEY: apiKey, TYPESENSE_PREFIX: prefix } = deps.config;
  if (!url || !apiKey) return null;
  let engine = engines.get(deps.config);
  if (!engine) {
    const client = typesenseClient({ url, apiKey, prefix });
    engine = { index: typesenseSearchIndex(client, deps.db, prefix), writer: typesenseWriter(client, prefix), prefix };
    engines.set(deps.config, engine);
  }
  return engine;
}

export const TYPESENSE_INDEXER = 'search-typesense-indexer';
export const TYPESENSE_SWEEP = 'search-typesense-sweep';

const ITEM_TYPES = [
  'ItemCreated',
  'ItemUpdated',
  'ItemReplaced',
  'ItemDeleted',
  'ItemRestored',
  'ItemReverted',
  'ItemVersionPromoted',
  'ItemPurged',
] as const;
const SCHEMA_TYPES = ['FieldCreated', 'FieldUpdated', 'FieldTypeChanged', 'FieldDeleted', 'CollectionDeleted'] as const;
type Indexed =
  | Extract<ItemEvent, { type: (typeof ITEM_TYPES)[number] }>
  | Extract<SchemaEvent, { type: (typeof SCHEMA_TYPES)[number] }>;

/** What one event asks of Typesense: an item's document again, a collection afresh, or a collection gone. */
export type IndexCommand =
  | { kind: 'item'; collection: string; id: string }
  | { kind: 'collection'; collection: string }
  | { kind: 'drop'; collection: string };

/** Pure: the index work an event makes. */
export function indexCommands(e: Indexed): IndexCommand[] {
  switch (e.type) {
    case 'CollectionDeleted':
      return [{ kind: 'drop', collection: e.data.name }];
    case 'FieldCreated':
    case 'FieldTypeChanged':
    case 'FieldDeleted':
      return [{ kind: 'collection', collection: e.data.collection }];
    case 'FieldUpdated': {
      const c = e.data.changes;
      // Only what changes which fields are indexed, or their weight order, re-indexes the collection.
      return c.searchable !== undefined || c.encrypted !== undefined || c.sort !== undefined
        ? [{ kind: 'collection', collection: e.data.collection }]
        : [];
    }
    default:
      return [{ kind: 'item', collection: e.data.collection, id: e.data.id }];
  }
}

/** Follows the log (at least once per event; every write reads the item as it is now, so repeats do no harm). */
export function typesenseIndexer(deps: AppDeps, engine: Engine): Reactor {
  const sync = syncOf(deps, engine);
  return defineReactor<Indexed, null, IndexCommand>({
    name: TYPESENSE_INDEXER,
    handles: [...ITEM_TYPES, ...SCHEMA_TYPES],
    load: async () => null,
    react: (e) => indexCommands(e),
    send: async (cmd, e) => {
      if (cmd.kind === 'item') return indexItem(sync, e.siteId, cmd.collection, cmd.id);
      if (cmd.kind === 'drop') return dropCollection(sync, e.siteId, cmd.collection);
      await reindexCollection(sync, e.siteId, cmd.collection);
    },
  });
}

/** The leader's sweep: every live collection has its alias, no alias outlives its collection. */
export const typesenseSweep = (deps: AppDeps, engine: Engine) => ({
  name: TYPESENSE_SWEEP,
  intervalMs: deps.config.SVC_TYPESENSE_SWEEP_MS,
  run: () => sweepTypesense(syncOf(deps, engine)),
});
