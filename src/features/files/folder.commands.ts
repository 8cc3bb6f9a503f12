import type { AppDeps } from '../../deps.ts';
import { handleCommand, readState } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { newId } from '../../kernel/ids.ts';
import { folderDecider, type FoldersState } from './folder.decider.ts';
import { ParentFolderNotFound } from './folder.errors.ts';
import { foldersStream } from '../../contracts/files/folder.events.ts';

type Deps = Pick<AppDeps, 'store'>;

export async function readFolders(deps: Deps, siteId: string): Promise<FoldersState> {
  return (await readState(deps.store, folderDecider, foldersStream(siteId))).state;
}

/** 400 unless the site has the folder a file is put in (null: none). */
export async function checkFolder(deps: Deps, siteId: string, folder: string | null | undefined): Promise<void> {
  if (folder === null || folder === undefined) return;
  if (!(await readFolders(deps, siteId)).has(folder)) throw new ParentFolderNotFound({ id: folder, at: 'folder' });
}

const send = (deps: Deps, ctx: CommandContext, command: Parameters<typeof folderDecider.decide>[0]) =>
  handleCommand(deps.store, folderDecider, foldersStream(ctx.siteId), command, ctx);

export async function createFolder(deps: Deps, ctx: CommandContext, input: { name: string; parent: string | null }) {
  const id = newId();
  const res = await send(deps, ctx, {
    type: 'CreateFolder',
    data: { id, ...input, by: ctx.actor.id, now: ctx.now.toISOString() },
  });
  return res.state.get(id)!;
}

export async function changeFolder(
  deps: Deps,
  ctx: CommandContext,
  input: { id: string; name?: string; parent?: string | null },
) {
  const res = await send(deps, ctx, {
    type: 'ChangeFolder',
    data: { ...input, by: ctx.actor.id, now: ctx.now.toISOString() },
  });
  return res.state.get(input.id)!;
}

export async function deleteFolder(deps: Deps, ctx: CommandContext, id: string): Promise<void> {
  await send(deps, ctx, { type: 'DeleteFolder', data: { id, by: ctx.actor.id, now: ctx.now.toISOString() } });
}
