import { createHash } from 'node:crypto';

/** Where an entry came from: a person, a translation provider, or a TMX import. */
export const ENTRY_SOURCES = ['human', 'provider', 'import'] as const;
export type EntrySource = (typeof ENTRY_SOURCES)[number];

/** Language tags the memory accepts: BCP 47-ish, a 2–3 letter primary subtag then 2–8 character subtags. */
export const LANGUAGE_TAG = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/**
 * The one normalisation of memory texts, used both to store an entry's key and to query: Unicode NFC, lower case,
 * whitespace runs collapsed to one space, trimmed. Two sources with the same normal form are the same entry.
 */
export function normaliseText(text: string): string {
  return text.normalize('NFC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

/** A short, stable digest of a normalised text: the unique key of entries and terms (texts may be long). */
export const textHash = (normalised: string): string => createHash('sha256').update(normalised).digest('base64url');

/** A translation-memory entry as the API shows it. */
export interface TmEntryRecord {
  id: string;
  sourceLang: string;
  targetLang: string;
  source: string;
  target: string;
  quality: number;
  entrySource: EntrySource;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/** A glossary term as the API shows it. */
export interface GlossaryTermRecord {
  id: string;
  sourceLang: string;
  targetLang: string;
  term: string;
  translation: string;
  caseSensitive: boolean;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/** A language tag in its canonical case (en-US, zh-Hans), or null when it is not one the memory accepts. */
export function canonicalLanguage(tag: string): string | null {
  let canonical: string;
  try {
    [canonical = ''] = Intl.getCanonicalLocales(tag);
  } catch {
    return null;
  }
  return LANGUAGE_TAG.test(canonical) && canonical.length <= 35 ? canonical : null;
}

/** Longest source or target an entry may have, and longest lookup query or text to translate. */
export const MAX_TEXT = 5000;

/** C0 controls other than tab, line feed and carriage return: XML 1.0 cannot carry them. */
// eslint-disable-next-line no-control-regex
export const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/u;
