import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import type { Folder, FolderEvent } from './folder.events.ts';
import {
  FolderCycle,
  FolderHasChildren,
  FolderNameTaken,
  FolderNotFound,
  ParentFolderNotFound,
} from './folder.errors.ts';

export interface FolderRecord extends Folder {
  createdAt: string;
  createdBy: string;
  updatedAt: string;
  updatedBy: string;
}

/** The site's folders by id (a Map: ids come from requests). */
export type FoldersState = ReadonlyMap<string, FolderRecord>;

export type FolderCommand =
  | { type: 'CreateFolder'; data: Folder & { by: string; now: string } }
  | { type: 'ChangeFolder'; data: { id: string; name?: string; parent?: string | null; by: string; now: string } }
  | { type: 'DeleteFolder'; data: { id: string; by: string; now: string } };

const nameTaken = (s: FoldersState, name: string, parent: string | null, except?: string) =>
  [...s.values()].some((f) => f.parent === parent && f.name === name && f.id !== except);

/** Whether `ancestor` is `id` or lies above it. */
function isAncestor(s: FoldersState, ancestor: string, id: string | null): boolean {
  for (let at = id, steps = 0; at !== null && steps <= s.size; steps++) {
    if (at === ancestor) return true;
    at = s.get(at)?.parent ?? null;
  }
  return false;
}

export const folderDecider: Decider<FoldersState, FolderCommand, FolderEvent> = {
  initialState: () => new Map(),
  evolve(s, e) {
    const next = new Map(s);
    switch (e.type) {
      case 'FolderCreated': {
        const { by, at, ...folder } = e.data;
        next.set(folder.id, { ...folder, createdAt: at, createdBy: by, updatedAt: at, updatedBy: by });
        return next;
      }
      case 'FolderChanged': {
        const { id, by, at, ...changes } = e.data;
        const old = s.get(id);
        if (old) next.set(id, { ...old, ...changes, updatedAt: at, updatedBy: by });
        return next;
      }
      case 'FolderDeleted':
        next.delete(e.data.id);
        return next;
      default:
        return assertNever(e);
    }
  },
  decide(cmd, s) {
    switch (cmd.type) {
      case 'CreateFolder': {
        const { now, ...data } = cmd.data;
        if (data.parent !== null && !s.has(data.parent)) throw new ParentFolderNotFound({ id: data.parent });
        if (nameTaken(s, data.name, data.parent)) throw new FolderNameTaken({ name: data.name });
        return [{ type: 'FolderCreated', data: { ...data, at: now } }];
      }
      case 'ChangeFolder': {
        const { now, ...data } = cmd.data;
        const old = s.get(data.id);
        if (!old) throw new FolderNotFound({ id: data.id });
        const parent = data.parent === undefined ? old.parent : data.parent;
        if (parent !== null && !s.has(parent)) throw new ParentFolderNotFound({ id: parent });
        if (parent !== null && isAncestor(s, data.id, parent)) throw new FolderCycle({ id: data.id, parent });
        if (nameTaken(s, data.name ?? old.name, parent, data.id))
          throw new FolderNameTaken({ name: data.name ?? old.name });
        return [{ type: 'FolderChanged', data: { ...data, at: now } }];
      }
      case 'DeleteFolder': {
        if (!s.has(cmd.data.id)) throw new FolderNotFound({ id: cmd.data.id });
        if ([...s.values()].some((f) => f.parent === cmd.data.id)) throw new FolderHasChildren({ id: cmd.data.id });
        return [{ type: 'FolderDeleted', data: { id: cmd.data.id, by: cmd.data.by, at: cmd.data.now } }];
      }
      default:
        return assertNever(cmd);
    }
  },
};
