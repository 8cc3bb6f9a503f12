import type { Timestamp } from '../../src/kernel/db/database.ts';
import type { EntrySource } from '../../src/contracts/tm/tm.types.ts';

/** One row per live translation-memory entry of a site (DDL in tm.projector.ts). */
export interface TmEntriesTable {
  site_id: string;
  entry_id: string;
  source_lang: string;
  target_lang: string;
  source: string;
  target: string;
  quality: number;
  entry_source: EntrySource;
  /** The normalised source (normaliseText): trigram candidates are found on it. */
  norm_source: string;
  /** Digest of norm_source: unique per site and language pair. */
  source_hash: string;
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One row per glossary term of a site. */
export interface TmGlossaryTable {
  site_id: string;
  term_id: string;
  source_lang: string;
  target_lang: string;
  term: string;
  translation: string;
  case_sensitive: boolean;
  /** Digest of the normalised term: unique per site and language pair. */
  term_hash: string;
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    tm_entries: TmEntriesTable;
    tm_glossary: TmGlossaryTable;
  }
}
