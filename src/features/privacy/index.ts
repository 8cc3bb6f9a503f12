import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps, Feature } from '../../deps.ts';
import { dataExportRoutes } from './http/data-export.routes.ts';
import { sarRoutes } from './http/sar.routes.ts';

const routes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  await app.register(dataExportRoutes, deps);
  await app.register(sarRoutes, deps);
};

/**
 * Personal-data export (GET /me/data-export) and subject-access requests (POST/GET /admin/sar): gathers the parts
 * every slice declares (`Feature.personalData`); it keeps none of its own but the record of each request.
 */
export const privacyFeature: Feature = { name: 'privacy', projectors: [], routes };
