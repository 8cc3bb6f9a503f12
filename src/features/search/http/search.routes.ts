import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { itemHttp } from '../../items/index.ts';
import { runSearch } from '../search.reads.ts';
import { SearchBody, SearchQuery } from './search.schemas.ts';

/** Full-text search over one collection or every collection the caller may read (spec "Common list parameters"). */
export const searchRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/v1/search',
    {
      schema: {
        tags: ['items'],
        summary: 'Full-text search of items',
        querystring: SearchQuery,
        response: { 200: SearchBody },
      },
    },
    async (req) => {
      const { q, collection, limit, offset } = req.query;
      const { locale } = itemHttp.readHeaders(req);
      return runSearch(deps, req, { q, collection: collection ?? null, limit, offset, locale });
    },
  );
};
