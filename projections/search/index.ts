/**
 * The public surface of the search read model: its projector, the PostgreSQL search engine, and the one builder
 * of search documents (every engine indexes what it returns).
 */
export { searchProjector } from './search.projector.ts';
export { pgSearchIndex } from './search.queries.ts';
export { searchDocument, searchableFields, valueText, type SearchSchema } from './search-document.ts';
/** The search engine port (PostgreSQL or Typesense) and the shapes every engine shares. */
export { WEIGHT_FACTORS } from './search.types.ts';
export type {
  SearchDocument,
  SearchDocumentField,
  SearchHighlight,
  SearchHit,
  SearchIndex,
  SearchRequest,
  SearchResult,
  SearchScope,
  SearchWeight,
} from './search.types.ts';
