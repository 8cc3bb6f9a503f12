import type { AppDeps } from '../../deps.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { schemaDecider, type SchemaCommand } from './schema.decider.ts';
import { schemaStream } from '../../contracts/schema/schema.events.ts';
import {
  fieldWithDefaults,
  type CollectionChanges,
  type CollectionDef,
  type FieldChanges,
  type FieldDef,
  type RelationChanges,
  type RelationDef,
} from '../../contracts/schema/schema.types.ts';

type Deps = Pick<AppDeps, 'store'>;
type Given<T, Required extends keyof T> = Pick<T, Required> & Partial<T>;

/** Every change to a site's schema is one command on its one schema stream, at the context's time. */
const run = (deps: Deps, ctx: CommandContext, make: (now: string) => SchemaCommand) =>
  handleCommand(deps.store, schemaDecider, schemaStream(ctx.siteId), make(ctx.now.toISOString()), {
    metadata: ctx.metadata,
  });

/** Creates a collection; attributes left out take their defaults. */
export async function createCollection(
  deps: Deps,
  ctx: CommandContext,
  input: Given<CollectionDef, 'name' | 'singleton' | 'primaryKeyType'>,
): Promise<void> {
  const collection: CollectionDef = {
    displayName: null,
    icon: null,
    note: null,
    status_field: null,
    sort_field: null,
    ...input,
  };
  await run(deps, ctx, (now) => ({ type: 'CreateCollection', data: { collection, now } }));
}

/** Changes a collection's attributes (its workflow too). */
export async function updateCollection(deps: Deps, ctx: CommandContext, name: string, changes: CollectionChanges) {
  await run(deps, ctx, (now) => ({ type: 'UpdateCollection', data: { name, changes, now } }));
}

/** Deletes a collection (refused while relations point at it). */
export async function deleteCollection(deps: Deps, ctx: CommandContext, name: string) {
  await run(deps, ctx, (now) => ({ type: 'DeleteCollection', data: { name, now } }));
}

/** Adds a field to a collection; attributes left out take their defaults. */
export async function createField(
  deps: Deps,
  ctx: CommandContext,
  collection: string,
  input: Given<FieldDef, 'field' | 'type'>,
): Promise<void> {
  const field = fieldWithDefaults(input);
  await run(deps, ctx, (now) => ({ type: 'CreateField', data: { collection, field, now } }));
}

/** Changes a field's attributes (not its name or type). */
export async function updateField(
  deps: Deps,
  ctx: CommandContext,
  target: { collection: string; field: string },
  changes: FieldChanges,
) {
  await run(deps, ctx, (now) => ({ type: 'UpdateField', data: { ...target, changes, now } }));
}

/** Removes a field (refused while a relation uses it). */
export async function deleteField(deps: Deps, ctx: CommandContext, target: { collection: string; field: string }) {
  await run(deps, ctx, (now) => ({ type: 'DeleteField', data: { ...target, now } }));
}

/** Creates a relation (its id chosen by the caller). */
export async function createRelation(deps: Deps, ctx: CommandContext, relation: RelationDef) {
  await run(deps, ctx, (now) => ({ type: 'CreateRelation', data: { relation, now } }));
}

/** Changes what deleting a related item does to a relation's items. */
export async function updateRelation(deps: Deps, ctx: CommandContext, id: string, changes: RelationChanges) {
  await run(deps, ctx, (now) => ({ type: 'UpdateRelation', data: { id, changes, now } }));
}

/** Removes a relation. */
export async function deleteRelation(deps: Deps, ctx: CommandContext, id: string) {
  await run(deps, ctx, (now) => ({ type: 'DeleteRelation', data: { id, now } }));
}
