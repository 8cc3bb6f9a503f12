import type { Decider } from '../../kernel/es/decider.ts';
import { GlossaryTermExists, GlossaryTermNotFound } from './tm.errors.ts';
import type { GlossaryEvent, GlossaryTermChanges, GlossaryTermValues } from '../../contracts/tm/tm.events.ts';

/** A glossary term as its stream folds it. */
export interface GlossaryTerm extends GlossaryTermValues {
  id: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export interface GlossaryTermState {
  term: GlossaryTerm | null;
}

interface Stamp {
  termId: string;
  now: string;
  by: string;
}

/** Adds a term to the glossary of its language pair. */
export type CreateGlossaryTerm = { type: 'CreateGlossaryTerm'; data: Stamp & GlossaryTermValues };
/** Changes some values of a term. */
export type UpdateGlossaryTerm = { type: 'UpdateGlossaryTerm'; data: Stamp & { changes: GlossaryTermChanges } };
/** Removes a term. */
export type DeleteGlossaryTerm = { type: 'DeleteGlossaryTerm'; data: Stamp };
export type GlossaryCommand = CreateGlossaryTerm | UpdateGlossaryTerm | DeleteGlossaryTerm;

const KEYS = ['term', 'translation', 'caseSensitive'] as const;

function changed(t: GlossaryTerm, changes: GlossaryTermChanges): GlossaryTermChanges {
  const differs = <K extends (typeof KEYS)[number]>(k: K) =>
    changes[k] !== undefined && changes[k] !== t[k] ? { [k]: changes[k] } : {};
  const out: GlossaryTermChanges = {};
  return KEYS.reduce((acc, k) => ({ ...acc, ...differs(k) }), out);
}

function decide(cmd: GlossaryCommand, s: GlossaryTermState): GlossaryEvent[] {
  const { termId, now: at, by } = cmd.data;
  switch (cmd.type) {
    case 'CreateGlossaryTerm': {
      if (s.term) throw new GlossaryTermExists({ termId });
      const { sourceLang, targetLang, term, translation, caseSensitive } = cmd.data;
      const data = { termId, sourceLang, targetLang, term, translation, caseSensitive, at, by };
      return [{ type: 'GlossaryTermCreated', data }];
    }
    case 'UpdateGlossaryTerm': {
      if (!s.term) throw new GlossaryTermNotFound({ termId });
      const changes = changed(s.term, cmd.data.changes);
      return Object.keys(changes).length ? [{ type: 'GlossaryTermUpdated', data: { termId, changes, at, by } }] : [];
    }
    case 'DeleteGlossaryTerm':
      if (!s.term) throw new GlossaryTermNotFound({ termId });
      return [{ type: 'GlossaryTermDeleted', data: { termId, at, by } }];
  }
}

function evolve(s: GlossaryTermState, e: GlossaryEvent): GlossaryTermState {
  switch (e.type) {
    case 'GlossaryTermCreated': {
      const { termId, at, by, ...values } = e.data;
      return { term: { ...values, id: termId, createdBy: by, createdAt: at, updatedAt: at } };
    }
    case 'GlossaryTermUpdated':
      return s.term ? { term: { ...s.term, ...changed(s.term, e.data.changes), updatedAt: e.data.at } } : s;
    case 'GlossaryTermDeleted':
      return { term: null };
  }
}

/** One glossary term: pure decide/evolve. */
export const glossaryDecider: Decider<GlossaryTermState, GlossaryCommand, GlossaryEvent> = {
  initialState: () => ({ term: null }),
  decide,
  evolve,
};
