import { records, type Stamp } from './stamped-records.ts';
import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import type { Folder, FolderEvent } from '../../contracts/files/folder.events.ts';
import {
  FolderCycle,
  FolderHasChildren,
  FolderNameTaken,
  FolderNotFound,
  ParentFolderNotFound,
} from './folder.errors.ts';

export type FolderRecord = Folder & Stamp;

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
    switch (e.type) {
      case 'FolderCreated': {
        const { by, at, ...record } = e.data;
        return records.created(s, record, by, at);
      }
      case 'FolderChanged': {
        const { id, by, at, ...changes } = e.data;
        return records.changed(s, id, changes, by, at);
      }
      case 'FolderDeleted':
        return records.removed(s, e.data.id);
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
