import type { AppDeps } from '../../../deps.ts';
import { handleCommand, readState } from '../../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../../kernel/http/command-meta.ts';
import { newId } from '../../../kernel/ids.ts';
import { presetDecider, type PresetRecord, type PresetsState } from './preset.decider.ts';
import { transformPresetsStream } from '../../../contracts/files/preset.events.ts';

type Deps = Pick<AppDeps, 'store'>;

/** The site's presets, folded from their stream. */
export async function readPresets(deps: Deps, siteId: string): Promise<PresetsState> {
  return (await readState(deps.store, presetDecider, transformPresetsStream(siteId))).state;
}

export async function presetByKey(deps: Deps, siteId: string, key: string): Promise<PresetRecord | undefined> {
  return [...(await readPresets(deps, siteId)).values()].find((p) => p.key === key);
}

export async function createPreset(deps: Deps, ctx: CommandContext, input: { key: string; name: string; dsl: string }) {
  const id = newId();
  const data = { id, ...input, by: ctx.actor.id, now: ctx.now.toISOString() };
  const res = await handleCommand(
    deps.store,
    presetDecider,
    transformPresetsStream(ctx.siteId),
    { type: 'CreatePreset', data },
    ctx,
  );
  return res.state.get(id)!;
}

export async function updatePreset(
  deps: Deps,
  ctx: CommandContext,
  input: { id: string; key?: string; name?: string; dsl?: string },
) {
  const data = { ...input, by: ctx.actor.id, now: ctx.now.toISOString() };
  const res = await handleCommand(
    deps.store,
    presetDecider,
    transformPresetsStream(ctx.siteId),
    { type: 'UpdatePreset', data },
    ctx,
  );
  return res.state.get(input.id)!;
}

export async function deletePreset(deps: Deps, ctx: CommandContext, id: string): Promise<void> {
  const data = { id, by: ctx.actor.id, now: ctx.now.toISOString() };
  await handleCommand(
    deps.store,
    presetDecider,
    transformPresetsStream(ctx.siteId),
    { type: 'DeletePreset', data },
    ctx,
  );
}
