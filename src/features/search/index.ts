import type { Feature } from '../../deps.ts';
import { searchProjector } from '../../../projections/search/index.ts';
import { searchRoutes } from './http/search.routes.ts';

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
export { MAX_QUERY_CHARS, searchWords } from './search.reads.ts';

/** Full-text search: the `search` read model and GET /api/v1/search. */
export const searchFeature: Feature = { name: 'search', projectors: [searchProjector], routes: searchRoutes };
