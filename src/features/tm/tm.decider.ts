import type { Decider } from '../../kernel/es/decider.ts';
import { TmEntryMoved, TmEntryNotFound } from './tm.errors.ts';
import type { TmEntryChanges, TmEntryEvent, TmEntryValues } from '../../contracts/tm/tm.events.ts';
import { normaliseText, type EntrySource } from '../../contracts/tm/tm.types.ts';

/** An entry as its stream folds it. */
export interface TmEntry extends TmEntryValues {
  id: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/** One entry's stream: absent (never created, or deleted) or the entry. */
export interface TmEntryState {
  entry: TmEntry | null;
}

interface Stamp {
  entryId: string;
  now: string;
  by: string;
}

/** Adds the entry, or updates the one with the same normalised source; quality and origin keep theirs unless given. */
export type UpsertTmEntry = {
  type: 'UpsertTmEntry';
  data: Stamp & {
    sourceLang: string;
    targetLang: string;
    source: string;
    target: string;
    quality?: number | undefined;
    entrySource?: EntrySource | undefined;
  };
};
/** Changes some values of an existing entry. */
export type UpdateTmEntry = { type: 'UpdateTmEntry'; data: Stamp & { changes: TmEntryChanges } };
/** Removes an existing entry. */
export type DeleteTmEntry = { type: 'DeleteTmEntry'; data: Stamp };
export type TmEntryCommand = UpsertTmEntry | UpdateTmEntry | DeleteTmEntry;

/** An entry made by a person counts as fully trusted unless its author says otherwise. */
export const DEFAULT_QUALITY = 100;

const KEYS = ['source', 'target', 'quality', 'entrySource'] as const;

/** The changes that differ from the entry, in a fixed key order. */
function changed(e: TmEntry, changes: TmEntryChanges): TmEntryChanges {
  const differs = <K extends (typeof KEYS)[number]>(k: K) =>
    changes[k] !== undefined && changes[k] !== e[k] ? { [k]: changes[k] } : {};
  const out: TmEntryChanges = {};
  return KEYS.reduce((acc, k) => ({ ...acc, ...differs(k) }), out);
}

function update(entry: TmEntry, changes: TmEntryChanges, s: Stamp): TmEntryEvent[] {
  const diff = changed(entry, changes);
  return Object.keys(diff).length
    ? [{ type: 'TmEntryUpdated', data: { entryId: s.entryId, changes: diff, at: s.now, by: s.by } }]
    : [];
}

function decideUpsert(cmd: UpsertTmEntry, s: TmEntryState): TmEntryEvent[] {
  const d = cmd.data;
  if (!s.entry) {
    const { entryId, now, by, sourceLang, targetLang, source, target } = d;
    const quality = d.quality ?? DEFAULT_QUALITY;
    const entrySource = d.entrySource ?? 'human';
    const data = { entryId, sourceLang, targetLang, source, target, quality, entrySource, at: now, by };
    return [{ type: 'TmEntryCreated', data }];
  }
  if (normaliseText(s.entry.source) !== normaliseText(d.source)) throw new TmEntryMoved({ entryId: d.entryId });
  const { source, target, quality, entrySource } = d;
  return update(s.entry, { source, target, quality, entrySource }, d);
}

function decide(cmd: TmEntryCommand, s: TmEntryState): TmEntryEvent[] {
  switch (cmd.type) {
    case 'UpsertTmEntry':
      return decideUpsert(cmd, s);
    case 'UpdateTmEntry':
      if (!s.entry) throw new TmEntryNotFound({ entryId: cmd.data.entryId });
      return update(s.entry, cmd.data.changes, cmd.data);
    case 'DeleteTmEntry': {
      if (!s.entry) throw new TmEntryNotFound({ entryId: cmd.data.entryId });
      const { entryId, now, by } = cmd.data;
      return [{ type: 'TmEntryDeleted', data: { entryId, at: now, by } }];
    }
  }
}

function evolve(s: TmEntryState, e: TmEntryEvent): TmEntryState {
  switch (e.type) {
    case 'TmEntryCreated': {
      const { entryId, at, by, ...values } = e.data;
      return { entry: { ...values, id: entryId, createdBy: by, createdAt: at, updatedAt: at } };
    }
    case 'TmEntryUpdated':
      return s.entry ? { entry: { ...s.entry, ...changed(s.entry, e.data.changes), updatedAt: e.data.at } } : s;
    case 'TmEntryDeleted':
      return { entry: null };
  }
}

/** One translation-memory entry: pure decide/evolve; the id, time and author arrive in the command. */
export const tmEntryDecider: Decider<TmEntryState, TmEntryCommand, TmEntryEvent> = {
  initialState: () => ({ entry: null }),
  decide,
  evolve,
};
