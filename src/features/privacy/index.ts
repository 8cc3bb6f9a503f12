import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps, Feature } from '../../deps.ts';
import { retentionEnvKey } from '../../kernel/retention.ts';
import { sarExportsProjector } from '../../../projections/sar-exports/index.ts';
import { dataExportRoutes } from './http/data-export.routes.ts';
import { sarRoutes } from './http/sar.routes.ts';
import { pruneSubjectAccessExports } from './sar.commands.ts';

export { deleteSubjectAccessExportsOf } from './sar.commands.ts';

const routes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  await app.register(dataExportRoutes, deps);
  await app.register(sarRoutes, deps);
};

/**
 * Personal-data export (GET /me/data-export) and subject-access requests (POST/GET /admin/sar): gathers the parts
 * every slice declares (`Feature.personalData`); it keeps none of its own but the record of each request, and prunes the
 * exports' files past the `sar_exports` horizon.
 */
export const privacyFeature: Feature = {
  name: 'privacy',
  projectors: [sarExportsProjector],
  routes,
  retention: (deps) => [
    {
      kind: 'sar_exports',
      defaultDays: 30,
      envKey: retentionEnvKey('sar_exports'),
      describe:
        'Subject-access export files (personal data in clear) made before the horizon: the file is deleted, the ' +
        'record stays and fetching it answers 404 with reason expired.',
      prune: (_db, siteId, before) => pruneSubjectAccessExports(deps, siteId, before),
    },
  ],
};
