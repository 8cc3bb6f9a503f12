import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { manifestReader } from '../typegen.read.ts';
import { TypegenManifestBody, TypegenQuery } from './typegen.schemas.ts';

/**
 * The type-generation manifest. Whoever may read the site's schema (GET /collections: any member of the site) may
 * read it; the site is the request's own, so one site never reads another's schema.
 */
export const typegenRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const manifests = manifestReader(deps.store);
  app.get(
    '/api/v1/typegen/schema',
    {
      schema: {
        tags: ['schema'],
        summary: 'The type-generation manifest (version 2) of the site schema',
        querystring: TypegenQuery,
        response: { 200: dataEnvelope(TypegenManifestBody) },
      },
    },
    async (req) => {
      const { include, exclude, asOf } = req.query;
      return {
        data: await manifests.read(siteOf(req), {
          include: include ?? null,
          exclude: exclude ?? [],
          asOf: asOf === undefined ? undefined : new Date(asOf),
        }),
      };
    },
  );
};
