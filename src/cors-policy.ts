import type { FastifyInstance } from 'fastify';
import type { AppDeps } from './deps.ts';
import { API_KEY_EVENT_TYPES, publishableKeyId, publishableKeyOrigins } from './features/api-keys/index.ts';
import { siteCorsSettings } from '../projections/sites/index.ts';
import { SITE_EVENT_TYPES } from './contracts/sites/site.events.ts';
import { OriginList } from './platform/http/cors-origins.ts';
import { buildCorsIndex, cachedCorsIndex, type CorsPolicy } from './platform/http/cors.ts';

/** Another node's change to a site's origins or a publishable key reaches this node's index within this time. */
const INDEX_TTL_MS = 10_000;
const WATCHED = new Set<string>([...SITE_EVENT_TYPES, ...API_KEY_EVENT_TYPES]);

/**
 * The CORS policy of the instance: SVC_CORS_ORIGINS and SVC_CORS_CREDENTIALS, and an index of every site's
 * `cors.origins` and every live publishable key's origins, read in two queries at most every 10 s and dropped the
 * moment this node commits a site or key event.
 */
export function corsPolicy(deps: AppDeps, app: FastifyInstance): CorsPolicy {
  const cache = cachedCorsIndex(async () => {
    const [sites, keys] = await Promise.all([
      siteCorsSettings(deps.db),
      publishableKeyOrigins(deps.db, deps.clock.now()),
    ]);
    return buildCorsIndex(sites, keys);
  }, INDEX_TTL_MS);
  const unsubscribe = deps.store.onAppended((events) => {
    if (events.some((e) => WATCHED.has(e.type))) cache.invalidate();
  });
  app.addHook('onClose', async () => unsubscribe());
  return {
    instance: new OriginList(deps.config.SVC_CORS_ORIGINS),
    credentials: deps.config.SVC_CORS_CREDENTIALS,
    index: cache.index,
    publishableKeyId,
    ownHost: deps.config.SVC_PUBLIC_URL ? new URL(deps.config.SVC_PUBLIC_URL).host : null,
  };
}
