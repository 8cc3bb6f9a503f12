import type { Feature } from '../../deps.ts';
import { searchProjector } from '../../../projections/search/index.ts';
import { searchRoutes } from './http/search.routes.ts';
import { typesenseIndexer, typesenseOf, typesenseSweep } from './typesense.ts';

/**
 * Full-text search: the `search` read model and GET /api/v1/search; with Typesense configured, the reactor and the
 * sweep that keep it in step (the route then asks Typesense).
 */
export const searchFeature: Feature = {
  name: 'search',
  projectors: [searchProjector],
  routes: searchRoutes,
  reactors: (deps) => {
    const engine = typesenseOf(deps);
    return engine ? [typesenseIndexer(deps, engine)] : [];
  },
  loops: (deps) => {
    const engine = typesenseOf(deps);
    return engine ? [typesenseSweep(deps, engine)] : [];
  },
};
