/**
 * The public surface of the translation-memory read model: a site's entries (listed, exported, found as lookup
 * candidates by trigram similarity) and its glossary.
 */
export { tmProjector } from './tm.projector.ts';
export {
  entryCandidates,
  trigramFloor,
  entryIdsByKey,
  entryKeyString,
  entryPage,
  findEntry,
  listEntries,
  trigramSchema,
  type Candidate,
  type EntryFilter,
  type EntryKey,
} from './tm.queries.ts';
export { findTerm, listTerms, termIdByKey, termsOfPair } from './glossary.queries.ts';
