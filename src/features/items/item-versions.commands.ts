import type { AppDeps } from '../../deps.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { itemVersionsDecider, itemVersionsStream, type ItemVersionCommand } from './item-versions.ts';
import { InvalidValues } from './item.errors.ts';
import type { ItemValues } from '../../contracts/items/item.events.ts';
import { sealValues } from './item.seal.ts';
import { sealPersonalValues } from './personal-fields.ts';
import type { CollectionSchema } from './item.reads.ts';
import { valueProblems } from './item.values.ts';

type Version = { schema: CollectionSchema; id: string; key: string };
type At = { collection: string; id: string; key: string; at: string; by: string };

/** One command on an item's named versions (their own stream beside the item's). */
function send(deps: Pick<AppDeps, 'store'>, ctx: CommandContext, v: Version, make: (at: At) => ItemVersionCommand) {
  const collection = v.schema.collection.name;
  const at = { collection, id: v.id, key: v.key, at: ctx.now.toISOString(), by: ctx.actor.id };
  return handleCommand(deps.store, itemVersionsDecider, itemVersionsStream(ctx.siteId, collection, v.id), make(at), {
    metadata: ctx.metadata,
  });
}

/** Snapshots main's stored values as a named version; `base` counts main's revisions at that moment. */
export function createVersion(
  deps: Pick<AppDeps, 'store'>,
  ctx: CommandContext,
  input: Version & { name: string; data: ItemValues; base: number },
) {
  const { name, data, base } = input;
  return send(deps, ctx, input, (at) => ({ type: 'CreateVersion', data: { ...at, name, data, base } }));
}

/** Renames a named version and/or changes its values (validated, encrypted fields sealed); main is untouched. */
export async function updateVersion(
  deps: Pick<AppDeps, 'store' | 'config' | 'db'>,
  ctx: CommandContext,
  input: Version & { name?: string; changes?: ItemValues },
) {
  const { schema: s, id, name, changes } = input;
  const problems = valueProblems(s.fields, changes ?? {}, 'partial').map((p) => ({ ...p, path: ['data', ...p.path] }));
  if (problems.length) throw new InvalidValues(problems);
  const personal = changes
    ? (
        await sealPersonalValues(deps, ctx.siteId, ctx.actor, s, [
          { id, values: changes, creating: false, path: ['data'] },
        ])
      )[0]!
    : undefined;
  const sealed = personal ? sealValues(deps, ctx.siteId, s, id, personal, ['data']) : undefined;
  return send(deps, ctx, input, (at) => ({ type: 'UpdateVersion', data: { ...at, name, changes: sealed } }));
}

/** Deletes a named version. */
export function deleteVersion(deps: Pick<AppDeps, 'store'>, ctx: CommandContext, input: Version) {
  return send(deps, ctx, input, (at) => ({ type: 'DeleteVersion', data: at }));
}
