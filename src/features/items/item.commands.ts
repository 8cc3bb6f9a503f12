import { randomUUID } from 'node:crypto';
import type { AppDeps } from '../../deps.ts';
import { handleCommand, handleCommands, streamCommand, type CommandResult } from '../../kernel/es/handle-command.ts';
import { firstOfType } from '../../kernel/es/on-events.ts';
import type { AppendCheck } from '../../kernel/es/event-store.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { newId } from '../../kernel/ids.ts';
import { callerKeyProblem } from '../../platform/http/caller-key.ts';
import type { SiteSchema } from '../../../projections/schema/index.ts';
import type { CollectionRecord } from '../../../projections/schema/index.ts';
import type { FieldDef, Workflow } from '../../contracts/schema/schema.types.ts';
import { itemDecider, type ItemCommand, type ItemState } from './item.decider.ts';
import { IntegerIdRequired, InvalidItemId, InvalidNewItems } from './item.errors.ts';
import { itemStream, type ItemEvent, type ItemValues } from '../../contracts/items/item.events.ts';
import { sealValues } from './item.seal.ts';
import { withNullFields } from './item.values.ts';
import { sealPersonalValues } from './personal-fields.ts';
import { fieldsOf, type CollectionSchema } from './item.reads.ts';
import { valueProblems, withDefaults } from './item.values.ts';
import { checkReferences } from './item.references.ts';
import type { Principal } from '../../kernel/http/access.ts';

type Deps = Pick<AppDeps, 'store' | 'config' | 'db' | 'authorizer'>;
type One = { schema: CollectionSchema; id: string };
/**
 * A write of values: `as` is whose read rights judge the items its relation values name (a request's caller, a
 * process's person); null for the service's own processes, which check only that they exist.
 */
type Written = One & { as: Principal | null };

/** What every item command carries besides its own data: the decider reads nothing else. */
export type ItemCommandData = {
  collection: string;
  id: string;
  fields: FieldDef[];
  now: string;
  by: string;
  workflow: Workflow | null;
};

/**
 * One item a multi-item command changes, and how. `make` sees the item as its stream has it, again on every retry,
 * so a change computed from its values is never stale; null leaves the item alone.
 */
export type ItemTarget = {
  collection: string;
  id: string;
  make: (data: ItemCommandData, current: ItemState) => ItemCommand | null;
  /** The id was generated for this command: its stream is new (nothing to read before the append). */
  fresh?: boolean;
};

/** A new item of a create: its id, its values (the rule's presets filled in), what the body gave, its place. */
export type NewItem = { id: string; values: ItemValues; given: ItemValues; index: number; generated?: boolean };

const dataFor = (ctx: CommandContext, schema: SiteSchema, collection: string, id: string): ItemCommandData => ({
  collection,
  id,
  fields: fieldsOf(schema, collection),
  now: ctx.now.toISOString(),
  by: ctx.actor.id,
  workflow: schema.collections.get(collection)?.workflow ?? null,
});

/** One command on one item; with If-Match, a stale version answers 409 instead of being retried. */
function send(
  deps: Pick<AppDeps, 'store'>,
  ctx: CommandContext,
  s: CollectionSchema,
  id: string,
  make: (data: ItemCommandData) => ItemCommand,
  check?: AppendCheck,
) {
  const collection = s.collection.name;
  const command = make(dataFor(ctx, s.schema, collection, id));
  return handleCommand(deps.store, itemDecider, itemStream(ctx.siteId, collection, id), command, {
    metadata: ctx.metadata,
    expectedVersion: ctx.expectedVersion,
    check,
  });
}

/** Commands on several items, appended atomically (all or nothing); each validates against its collection. */
export function sendItemCommands(
  deps: Pick<AppDeps, 'store'>,
  ctx: CommandContext,
  schema: SiteSchema,
  targets: ItemTarget[],
  check?: AppendCheck,
): Promise<CommandResult<ItemState, ItemEvent>[]> {
  // Every command of the batch is the item decider's: its results are items' states and events.
  return handleCommands(
    deps.store,
    targets.map((t) =>
      streamCommand({
        decider: itemDecider,
        streamId: itemStream(ctx.siteId, t.collection, t.id),
        command: (current: ItemState) => t.make(dataFor(ctx, schema, t.collection, t.id), current),
        fresh: t.fresh,
      }),
    ),
    { metadata: ctx.metadata, check },
  ) as Promise<CommandResult<ItemState, ItemEvent>[]>;
}

/**
 * Creates items in one atomic append over their streams (a crash or a conflict leaves none of them), after every
 * item's values are validated. The new records come from the events written, not from a read-back.
 */
export async function createItems(
  deps: Deps,
  ctx: CommandContext,
  input: { schema: CollectionSchema; items: NewItem[]; bulk: boolean; as: Principal | null },
) {
  const { schema: s, items, bulk } = input;
  const at = (p: NewItem) => (bulk ? [String(p.index)] : []);
  const problems = items.flatMap((p) =>
    valueProblems(s.fields, withDefaults(s.fields, p.values), 'full').map((e) => ({
      ...e,
      path: [...at(p), ...e.path],
    })),
  );
  if (problems.length) throw new InvalidNewItems(problems);
  const name = s.collection.name;
  const check = await checkReferences(
    deps,
    ctx.siteId,
    input.as,
    s.schema,
    items.map((p) => ({ collection: name, values: withDefaults(s.fields, p.values), path: at(p) })),
    { collection: name, ids: new Set(items.map((p) => p.id)) },
  );
  const personal = await sealPersonalValues(
    deps,
    ctx.siteId,
    ctx.actor,
    s,
    items.map((p) => ({ id: p.id, values: p.values, creating: true, path: at(p) })),
  );
  const written = await sendItemCommands(
    deps,
    ctx,
    s.schema,
    items.map((p, i) => ({
      collection: s.collection.name,
      id: p.id,
      fresh: p.generated,
      make: (data) => ({
        type: 'CreateItem',
        data: { ...data, values: sealValues(deps, ctx.siteId, s, p.id, personal[i]!, at(p)) },
      }),
    })),
    check,
  );
  const records = written.map((w, i) => {
    const e = firstOfType(w.events, 'ItemCreated')!.data;
    const audit = { created_at: e.at, created_by: e.by, updated_at: e.at, updated_by: e.by };
    return withNullFields(s, { ...e.values, id: items[i]!.id, ...audit });
  });
  return { records, revisionIds: written.map((w) => w.events.at(-1)?.eventId ?? null) };
}

/** The values of one existing item with its personal values sealed (see personal-fields.ts). */
const personal = async (deps: Deps, ctx: CommandContext, input: One, values: ItemValues) =>
  (
    await sealPersonalValues(deps, ctx.siteId, ctx.actor, input.schema, [
      { id: input.id, values, creating: false, path: [] },
    ])
  )[0]!;

/** The relation values of a write on one item name items that are there (see item.references.ts). */
const references = (deps: Deps, ctx: CommandContext, input: Written, values: ItemValues) =>
  checkReferences(deps, ctx.siteId, input.as, input.schema.schema, [
    { collection: input.schema.collection.name, values, path: [] },
  ]);

/** Sets the given fields of an item (PATCH). */
export async function updateItem(deps: Deps, ctx: CommandContext, input: Written & { changes: ItemValues }) {
  const check = await references(deps, ctx, input, input.changes);
  const changes = sealValues(deps, ctx.siteId, input.schema, input.id, await personal(deps, ctx, input, input.changes));
  return send(deps, ctx, input.schema, input.id, (data) => ({ type: 'UpdateItem', data: { ...data, changes } }), check);
}

/** Replaces all values of an item (PUT). */
export async function replaceItem(deps: Deps, ctx: CommandContext, input: Written & { values: ItemValues }) {
  const check = await references(deps, ctx, input, input.values);
  const values = sealValues(deps, ctx.siteId, input.schema, input.id, await personal(deps, ctx, input, input.values));
  return send(deps, ctx, input.schema, input.id, (data) => ({ type: 'ReplaceItem', data: { ...data, values } }), check);
}

/** Writes a singleton's one record: created on the first write, updated after. */
export async function upsertSingleton(deps: Deps, ctx: CommandContext, input: Written & { changes: ItemValues }) {
  const check = await references(deps, ctx, input, input.changes);
  const changes = sealValues(deps, ctx.siteId, input.schema, input.id, await personal(deps, ctx, input, input.changes));
  return send(deps, ctx, input.schema, input.id, (data) => ({ type: 'UpsertItem', data: { ...data, changes } }), check);
}

/** Soft-deletes an item; `check` (from the guard's refuseIfHeldUp) holds restrict relations inside the append. */
export function deleteItem(deps: Pick<AppDeps, 'store'>, ctx: CommandContext, input: One, check?: AppendCheck) {
  return send(deps, ctx, input.schema, input.id, (data) => ({ type: 'DeleteItem', data }), check);
}

/** Brings a soft-deleted item back. */
export function restoreItem(deps: Pick<AppDeps, 'store'>, ctx: CommandContext, input: One) {
  return send(deps, ctx, input.schema, input.id, (data) => ({ type: 'RestoreItem', data }));
}

/** Sets an item back to a revision's stored values (already sealed: they come from the log). */
export function revertItem(
  deps: Pick<AppDeps, 'store'>,
  ctx: CommandContext,
  input: One & { revision: { id: string; data: ItemValues } },
  check?: AppendCheck,
) {
  const { id: revisionId, data: values } = input.revision;
  return send(
    deps,
    ctx,
    input.schema,
    input.id,
    (data) => ({ type: 'RevertItem', data: { ...data, values, revisionId } }),
    check,
  );
}

/** Makes a named version's stored values main's; `diverged` records that main changed since the version was taken. */
export function promoteVersion(
  deps: Pick<AppDeps, 'store'>,
  ctx: CommandContext,
  input: One & { key: string; values: ItemValues; diverged: boolean },
  check?: AppendCheck,
) {
  const { key, values, diverged } = input;
  return send(
    deps,
    ctx,
    input.schema,
    input.id,
    (data) => ({ type: 'PromoteVersion', data: { ...data, key, values, diverged } }),
    check,
  );
}

/** The new items of a create body (or bodies): their ids, and the rule's presets under what each body gives. */
export function newItems(c: CollectionRecord, bodies: ItemValues[], presets: ItemValues): NewItem[] {
  return bodies.map((b, index) => {
    const { id, values, generated } = splitId(c, b, index);
    return { id, values: { ...presets, ...values }, given: values, index, generated };
  });
}

/** The record id: random by default, a UUID for uuid keys, given by the client for integer keys. */
function splitId(
  c: CollectionRecord,
  body: ItemValues,
  index: number,
): { id: string; values: ItemValues; generated: boolean } {
  const { id, ...values } = body;
  if (c.primaryKeyType === 'integer' || c.primaryKeyType === 'bigInteger') {
    if (!Number.isSafeInteger(id)) throw new IntegerIdRequired({ index });
    return { id: String(id), values, generated: false };
  }
  if (id !== undefined && (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(id) || callerKeyProblem(id)))
    throw new InvalidItemId({ index });
  if (id !== undefined) return { id: id as string, values, generated: false };
  return { id: c.primaryKeyType === 'uuid' ? randomUUID() : newId(), values, generated: true };
}
