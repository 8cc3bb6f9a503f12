import { createHash } from 'node:crypto';
import type { DomainEvent } from '../../kernel/es/event.ts';
import type { EntrySource } from './tm.types.ts';

/** An entry's values, as recorded. */
export interface TmEntryValues {
  sourceLang: string;
  targetLang: string;
  source: string;
  target: string;
  quality: number;
  entrySource: EntrySource;
}

/** What an update may change on an entry (its language pair never changes). */
export type TmEntryChanges = Partial<Pick<TmEntryValues, 'source' | 'target' | 'quality' | 'entrySource'>>;

/** An entry was added to the site's memory (by a person, a provider answer or an import). */
export type TmEntryCreated = DomainEvent<'TmEntryCreated', TmEntryValues & { entryId: string; at: string; by: string }>;
/** Some values of an entry changed; only the changed keys are recorded. */
export type TmEntryUpdated = DomainEvent<
  'TmEntryUpdated',
  { entryId: string; changes: TmEntryChanges; at: string; by: string }
>;
/** An entry was removed from the memory; the same source may be added again later, on the same stream. */
export type TmEntryDeleted = DomainEvent<'TmEntryDeleted', { entryId: string; at: string; by: string }>;

export type TmEntryEvent = TmEntryCreated | TmEntryUpdated | TmEntryDeleted;
export const TM_ENTRY_EVENT_TYPES = ['TmEntryCreated', 'TmEntryUpdated', 'TmEntryDeleted'] as const;

/** A glossary term's values, as recorded. */
export interface GlossaryTermValues {
  sourceLang: string;
  targetLang: string;
  term: string;
  translation: string;
  caseSensitive: boolean;
}
export type GlossaryTermChanges = Partial<Pick<GlossaryTermValues, 'term' | 'translation' | 'caseSensitive'>>;

/** A term was added to the site's glossary for a language pair. */
export type GlossaryTermCreated = DomainEvent<
  'GlossaryTermCreated',
  GlossaryTermValues & { termId: string; at: string; by: string }
>;
/** Some values of a glossary term changed; only the changed keys are recorded. */
export type GlossaryTermUpdated = DomainEvent<
  'GlossaryTermUpdated',
  { termId: string; changes: GlossaryTermChanges; at: string; by: string }
>;
/** A glossary term was removed. */
export type GlossaryTermDeleted = DomainEvent<'GlossaryTermDeleted', { termId: string; at: string; by: string }>;

export type GlossaryEvent = GlossaryTermCreated | GlossaryTermUpdated | GlossaryTermDeleted;
export const GLOSSARY_EVENT_TYPES = ['GlossaryTermCreated', 'GlossaryTermUpdated', 'GlossaryTermDeleted'] as const;

/** One stream per entry: writers of different entries never contend, and an import appends many at once. */
export const tmEntryStream = (siteId: string, entryId: string) => `${siteId}/tm-entry/${entryId}`;
/** One stream per glossary term. */
export const glossaryTermStream = (siteId: string, termId: string) => `${siteId}/tm-term/${termId}`;

/**
 * The id an entry of this site, language pair and normalised source gets: derived, so two writers of the same
 * source meet on one stream (an upsert and an import stay idempotent). `generation` moves past a stream whose
 * entry had its source edited to another text since (rare; the command tries the next generation).
 */
export function tmEntryId(siteId: string, sourceLang: string, targetLang: string, key: string, generation = 0): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([siteId, sourceLang, targetLang, key, generation]))
    .digest('base64url');
  return `tm${digest.slice(0, 22)}`;
}
