import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps, Feature } from '../../deps.ts';
import { pagesProjector } from '../../../projections/pages/index.ts';
import { DeliveryCache } from './delivery-cache.ts';
import { cacheRoutes } from './http/cache.routes.ts';
import { deliverRoutes } from './http/deliver.routes.ts';
import { pagesRoutes } from './http/pages.routes.ts';

export { findPage, findPageBySlug, listPages, type PageRecord } from '../../../projections/pages/index.ts';
/** The page writes and their input rules, for slices that write pages of their own accord (gitops intents). */
export { pageWrites } from './page.writes.ts';
export { LayoutConfig, Slug } from '../../contracts/pages/page.layout.ts';

/** One delivery cache per application: shared by the page writes, the delivery API and the purge. */
const routes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  const c = deps.config;
  const shared = deps.sharedCache('', (err) =>
    app.log.warn({ err }, 'delivery cache: Redis unreachable; serving without the shared cache'),
  );
  const delivery = new DeliveryCache(shared, {
    negativeS: c.SVC_NEGATIVE_CACHE_TTL,
    responseS: c.SVC_DELIVER_CACHE_TTL,
  });
  const unsubscribe = deps.store.onAppended((events) => delivery.onAppended(events));
  app.addHook('onClose', async () => {
    unsubscribe();
    delivery.close();
    await shared.close();
  });
  const opts = { ...deps, delivery };
  await app.register(pagesRoutes, opts);
  await app.register(deliverRoutes, opts);
  await app.register(cacheRoutes, opts);
};

export const pagesFeature: Feature = { name: 'pages', projectors: [pagesProjector], routes };
