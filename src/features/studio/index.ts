import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps, Feature } from '../../deps.ts';
import { AdminPathCache } from './admin-path.cache.ts';
import { instanceRoutes } from './http/instance.routes.ts';
import { studioServing } from './http/studio.serve.ts';

export { ADMIN_PATH_PATTERN, isValidAdminPath, RESERVED_PATHS } from './admin-path.rules.ts';

/** One admin path cache per application: the serving and the change route share it. */
const routes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  const paths = new AdminPathCache(deps.db);
  const unsubscribe = deps.store.onAppended((events) => paths.onAppended(events));
  app.addHook('onClose', async () => unsubscribe());
  await app.register(instanceRoutes, { ...deps, paths });
  await app.register(studioServing, { paths, dir: deps.config.SVC_STUDIO_DIR });
};

/** The studio: served at the private admin path, and moved by an instance administrator. */
export const studioFeature: Feature = { name: 'studio', projectors: [], routes };
