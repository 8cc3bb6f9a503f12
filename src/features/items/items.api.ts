import type { AppDeps } from '../../deps.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import type { AppendCheck } from '../../kernel/es/event-store.ts';
import type { Principal } from '../../kernel/http/access.ts';
import { createItems, deleteItem, newItems, updateItem } from './item.commands.ts';
import { itemGuard } from './item.guard.ts';
import { checkLiveQuery, readLive } from './item.live-reads.ts';
import { readItemsAs } from './item.principal-reads.ts';
import { present, presentRevision, writeMeta, writtenRecord } from './item.present.ts';
import { itemReader, type ItemRead, type ListRead } from './item.reader.ts';
import { readItem, type CollectionSchema } from './item.reads.ts';
import { checkReferences } from './item.references.ts';
import { withNullFields } from './item.values.ts';
import type { ItemValues } from '../../contracts/items/item.events.ts';
import { readGuard } from './item.permissions.ts';

type Engine = Pick<AppDeps, 'db' | 'store' | 'config' | 'authorizer' | 'schemas'>;
/** The parameters of an engine function after its `deps`. */
type Rest<F extends (deps: never, ...rest: never[]) => unknown> = F extends (deps: never, ...rest: infer R) => unknown
  ? R
  : never;

const EMPTY_QUERY: Omit<ListRead, 'limit' | 'deep'> = {
  filter: null,
  search: null,
  sort: [],
  offset: 0,
  fields: null,
  meta: { total: false, filterCount: false },
  aggregate: null,
  groupBy: [],
  locale: null,
};

/**
 * The item engine as one port (`deps.items`), built once by the composition root: what the item routes, and every
 * slice that serves or writes items through routes or processes of its own (files, flows, git, search, releases,
 * the realtime feed), read, write and check. Plain functions over a `Principal` (a request's caller or the person
 * behind a process), parsed queries and a `CommandContext`; only `http/` parses headers and query strings.
 */
export function itemsApi(deps: Engine) {
  const guard = itemGuard(deps);
  const reader = itemReader(deps);
  return {
    /** The collection's schema for a caller (404 unknown; a system collection only with `system`). */
    collection: guard.collection,
    /** The stored item (any state), without a permission check: a slice's own lookup of its records. */
    find: (siteId: string, collection: string, id: string) => readItem(deps, siteId, collection, id),
    read: {
      /** A list read from its parts (the rest as an empty query string leaves it): for reads a slice composes. */
      query: (q: Partial<ListRead> & Pick<ListRead, 'limit'>): ListRead => ({ ...EMPTY_QUERY, deep: new Map(), ...q }),
      list: reader.list,
      /** One item now, as it was, or its draft (GET of an item). */
      get: reader.read,
      /** One item through the list query, or null when the caller may not see it (soft-deleted ones never). */
      one: (
        caller: Principal,
        s: CollectionSchema,
        id: string,
        at: { query?: ItemRead['query']; locale?: string | null } = {},
      ) => reader.one(caller, s, id, at),
      revisions: reader.revisions,
      /** Items as a person (the one behind a flow run) may read them, through the list-query language. */
      as: (...a: Rest<typeof readItemsAs>) => readItemsAs(deps, ...a),
      /** A live query of the realtime feed: checked once, then read on each change. */
      checkLive: (...a: Rest<typeof checkLiveQuery>) => checkLiveQuery(deps, ...a),
      live: (...a: Rest<typeof readLive>) => readLive(deps, ...a),
    },
    write: {
      create: (ctx: CommandContext, input: Parameters<typeof createItems>[2]) => createItems(deps, ctx, input),
      update: (ctx: CommandContext, input: Parameters<typeof updateItem>[2]) => updateItem(deps, ctx, input),
      delete: (ctx: CommandContext, input: Parameters<typeof deleteItem>[2], check?: AppendCheck) =>
        deleteItem(deps, ctx, input, check),
      /** New items' ids and values from request bodies, with the rule's presets. */
      newItems,
    },
    /** The checks of the item routes, in the order the API answers them (see item.guard.ts). */
    check: {
      ...guard,
      /** Relation values name items the writer may read (422 otherwise): for writes outside the item commands. */
      references: (...a: Rest<typeof checkReferences>) => checkReferences(deps, ...a),
      /** The read guard of a rights set (rows and fields), for reads outside the item routes. */
      readGuard,
    },
    /** Records as the caller may see them, and the shapes of a write's answer. */
    present: {
      records: <T>(caller: Principal, s: CollectionSchema, records: T) => present(deps, caller, s, records),
      revision: <R extends { data: ItemValues; delta: ItemValues }>(
        caller: Principal,
        s: CollectionSchema,
        id: string,
        r: R,
      ) => presentRevision(deps, caller, s, id, r),
      withNullFields,
      writeMeta,
      writtenRecord,
    },
  };
}

export type ItemsApi = ReturnType<typeof itemsApi>;
