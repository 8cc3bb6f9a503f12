import type { AppDeps } from '../../deps.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { newId } from '../../kernel/ids.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { findPreset, type PresetRecord } from '../../../projections/presets/index.ts';
import { presetsDecider, type PresetCommand } from './presets.decider.ts';
import { PresetNotFound } from './presets.errors.ts';
import { presetsStream, type PresetDefinition } from '../../contracts/presets/presets.events.ts';
import { resolveOwner } from './presets.ownership.ts';
import type { PresetCreate, PresetPatch } from './presets.schema.ts';

type Ctx = Pick<CommandContext, 'siteId' | 'now' | 'metadata' | 'actor'>;
type Deps = Pick<AppDeps, 'db' | 'store'>;

const DEFINITION_KEYS = ['collection', 'userId', 'roleId', 'bookmark', 'layout', 'layoutOptions', 'query'] as const;

/** What a create or an update will set, checked before it is sent: the whole definition and the keys it touches. */
export interface PresetPlan {
  definition: PresetDefinition;
  touched: ReadonlySet<keyof PresetDefinition>;
}

/** A create body as the definition it saves (owner as the body names it: no owner is a global preset). */
export function createPlan(body: PresetCreate): PresetPlan {
  const { scope, userId, roleId, ...rest } = body;
  const definition = { ...rest, ...resolveOwner({ scope, userId, roleId }, null) };
  return { definition, touched: new Set(DEFINITION_KEYS) };
}

/** A patch over the preset as it stands: the definition afterwards and the keys the patch sets. */
export function updatePlan(current: PresetRecord, body: PresetPatch): PresetPlan {
  const { scope, userId, roleId, ...rest } = body;
  const owner = resolveOwner({ scope, userId, roleId }, current);
  const moved = owner.userId !== current.userId || owner.roleId !== current.roleId;
  const touched = new Set<keyof PresetDefinition>(DEFINITION_KEYS.filter((k) => k in rest));
  if (moved) ['userId' as const, 'roleId' as const].forEach((k) => touched.add(k));
  const base = Object.fromEntries(DEFINITION_KEYS.map((k) => [k, current[k]])) as unknown as PresetDefinition;
  return { definition: { ...base, ...rest, ...owner }, touched };
}

const send = (deps: Deps, ctx: Ctx, command: PresetCommand) =>
  handleCommand(deps.store, presetsDecider, presetsStream(ctx.siteId), command, { metadata: ctx.metadata });

/** The preset as the read model holds it after a write (the schema's changes applied). */
async function read(deps: Deps, siteId: string, presetId: string): Promise<PresetRecord> {
  const record = await readAsSite(deps.db, siteId, (trx) => findPreset(trx, siteId, presetId));
  if (!record) throw new PresetNotFound({ presetId });
  return record;
}

const at = (ctx: Ctx) => ({ now: ctx.now.toISOString(), by: ctx.actor.id });

/** Saves a preset under a new id. */
export async function createPreset(deps: Deps, ctx: Ctx, plan: PresetPlan): Promise<PresetRecord> {
  const presetId = newId();
  await send(deps, ctx, { type: 'CreatePreset', data: { ...at(ctx), presetId, definition: plan.definition } });
  return read(deps, ctx.siteId, presetId);
}

/** Sets the keys a patch touched; a new query clears what a field's deletion flagged. */
export async function updatePreset(
  deps: Deps,
  ctx: Ctx,
  input: { presetId: string; plan: PresetPlan },
): Promise<PresetRecord> {
  const { presetId, plan } = input;
  const changes: Partial<PresetDefinition> = DEFINITION_KEYS.filter((k) => plan.touched.has(k)).reduce(
    (acc, k) => ({ ...acc, [k]: plan.definition[k] }),
    {},
  );
  await send(deps, ctx, { type: 'UpdatePreset', data: { ...at(ctx), presetId, changes } });
  return read(deps, ctx.siteId, presetId);
}

/** Removes a preset: the default view it was gives way to the inherited one. */
export async function deletePreset(deps: Deps, ctx: Ctx, input: { presetId: string }): Promise<void> {
  await send(deps, ctx, { type: 'DeletePreset', data: { ...at(ctx), presetId: input.presetId } });
}
