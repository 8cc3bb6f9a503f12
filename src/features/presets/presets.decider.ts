import type { Decider } from '../../kernel/es/decider.ts';
import {
  BookmarkNameTaken,
  DefaultViewExists,
  InvalidPreset,
  PresetExists,
  PresetNotFound,
  TooManyPresets,
} from './presets.errors.ts';
import { scopeOf, type PresetDefinition, type PresetEvent } from '../../contracts/presets/presets.events.ts';

/** A preset as the site's stream folds it (schema changes aside: the read model applies those). */
export interface PresetEntry extends PresetDefinition {
  id: string;
  createdAt: string;
  updatedAt: string;
}

/** The site's presets, in the order they were created. */
export interface PresetsState {
  presets: readonly PresetEntry[];
}

type Meta = { now: string; by: string };
/** Saves a new preset under a server-made id. */
export type CreatePreset = { type: 'CreatePreset'; data: Meta & { presetId: string; definition: PresetDefinition } };
/** Changes some settings of a preset (ownership among them); `query` replaces the whole query when given. */
export type UpdatePreset = {
  type: 'UpdatePreset';
  data: Meta & { presetId: string; changes: Partial<PresetDefinition> };
};
/** Removes a preset. */
export type DeletePreset = { type: 'DeletePreset'; data: Meta & { presetId: string } };
export type PresetCommand = CreatePreset | UpdatePreset | DeletePreset;

/** Presets one site may have: one stream holds them, and each write folds it. */
export const MAX_PRESETS = 2000;
/** One person's own presets: a user cannot take the whole site's room. */
export const MAX_USER_PRESETS = 100;

const KEYS = ['collection', 'userId', 'roleId', 'bookmark', 'layout', 'layoutOptions'] as const;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
/** Who owns a preset, as one key: presets of one owner share defaults and bookmark names. */
const ownerKey = (p: PresetDefinition) => `${scopeOf(p)}:${p.userId ?? p.roleId ?? ''}`;

/** The changes that differ from the preset, in a fixed key order; a given `query` is always kept. */
function changed(p: PresetEntry, changes: Partial<PresetDefinition>): Partial<PresetDefinition> {
  const differs = KEYS.filter((k) => changes[k] !== undefined && !same(changes[k], p[k]));
  const out: Partial<PresetDefinition> = differs.reduce((acc, k) => ({ ...acc, [k]: changes[k] }), {});
  return changes.query !== undefined ? { ...out, query: changes.query } : out;
}

/** One default per owner and collection; bookmark names unique per owner and collection. */
function checkUnique(s: PresetsState, p: PresetDefinition, except: string | null): void {
  if (p.userId !== null && p.roleId !== null)
    throw new InvalidPreset({ message: 'a preset has a user or a role, not both', path: ['roleId'], reason: 'scope' });
  const owner = ownerKey(p);
  const clash = s.presets.find(
    (q) => q.id !== except && q.collection === p.collection && q.bookmark === p.bookmark && ownerKey(q) === owner,
  );
  if (!clash) return;
  if (p.bookmark === null) throw new DefaultViewExists({ collection: p.collection, scope: scopeOf(p) });
  throw new BookmarkNameTaken({ collection: p.collection, bookmark: p.bookmark });
}

const find = (s: PresetsState, presetId: string) => {
  const p = s.presets.find((x) => x.id === presetId);
  if (!p) throw new PresetNotFound({ presetId });
  return p;
};

function decide(cmd: PresetCommand, s: PresetsState): PresetEvent[] {
  const { now: at, by, presetId } = cmd.data;
  switch (cmd.type) {
    case 'CreatePreset': {
      if (s.presets.some((p) => p.id === presetId)) throw new PresetExists({ presetId });
      if (s.presets.length >= MAX_PRESETS) throw new TooManyPresets({ max: MAX_PRESETS });
      const owner = cmd.data.definition.userId;
      if (owner !== null && s.presets.filter((p) => p.userId === owner).length >= MAX_USER_PRESETS)
        throw new TooManyPresets({ max: MAX_USER_PRESETS, per: 'user' });
      checkUnique(s, cmd.data.definition, null);
      return [{ type: 'PresetCreated', data: { ...cmd.data.definition, presetId, at, by } }];
    }
    case 'UpdatePreset': {
      const p = find(s, presetId);
      const changes = changed(p, cmd.data.changes);
      if (Object.keys(changes).length === 0) return [];
      checkUnique(s, { ...p, ...changes }, presetId);
      return [{ type: 'PresetUpdated', data: { presetId, changes, at, by } }];
    }
    case 'DeletePreset':
      find(s, presetId);
      return [{ type: 'PresetDeleted', data: { presetId, at, by } }];
  }
}

function evolve(s: PresetsState, e: PresetEvent): PresetsState {
  switch (e.type) {
    case 'PresetCreated': {
      const { presetId, at, by: _by, ...definition } = e.data;
      return { presets: [...s.presets, { ...definition, id: presetId, createdAt: at, updatedAt: at }] };
    }
    case 'PresetUpdated': {
      const { presetId, changes, at } = e.data;
      return { presets: s.presets.map((p) => (p.id === presetId ? { ...p, ...changes, updatedAt: at } : p)) };
    }
    case 'PresetDeleted':
      return { presets: s.presets.filter((p) => p.id !== e.data.presetId) };
  }
}

/** The site's view presets: pure decide/evolve; ids, time and actor arrive in the command. */
export const presetsDecider: Decider<PresetsState, PresetCommand, PresetEvent> = {
  initialState: () => ({ presets: [] }),
  decide,
  evolve,
};
