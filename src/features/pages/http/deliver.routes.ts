import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { errorEnvelope } from '../../../kernel/http/envelope.ts';
import { enforceRate } from '../../../platform/rate-limit/enforce.ts';
import { SITE_ID_PATTERN } from '../../../kernel/tenancy/site.ts';
import type { DeliveryCache } from '../delivery-cache.ts';
import { resolvePage } from '../delivery.resolve.ts';
import { PageNotDelivered } from '../page.errors.ts';
import { SLUG_MAX, SLUG_PATTERN } from '../../../contracts/pages/page.layout.ts';
import { DeliveredPageBody, NotModified } from './pages.schemas.ts';

/** Shared caches (CDNs) and browsers may keep a delivered page a minute; revalidation is cheap (ETag → 304). */
const CACHE_CONTROL = 'public, max-age=60';

// The slug may hold `/` (e.g. blog/hello), so it is the rest of the path.
const Params = z.object({ site_id: z.string(), '*': z.string() });

/** Whether an If-None-Match header names this ETag (weak comparison, lists and `*` included). */
function matches(header: string | string[] | undefined, etag: string): boolean {
  if (!header) return false;
  const tags = (Array.isArray(header) ? header.join(',') : header).split(',').map((t) => t.trim().replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(etag);
}

/**
 * Public delivery of a published page with its items resolved. Served from this node's memory when it can;
 * an unknown slug is remembered for SVC_NEGATIVE_CACHE_TTL seconds (±20 %) so a flood of misses does not reach
 * the database. X-Svc-Cache tells which: hit, miss or negative.
 */
export const deliverRoutes: FastifyPluginAsync<AppDeps & { delivery: DeliveryCache }> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { limiter, config, delivery } = deps;
  const rule = { max: config.SVC_DELIVER_RATE_LIMIT, windowS: 60 };

  app.get(
    '/api/v1/deliver/page/:site_id/*',
    {
      config: { caller: 'public', site: false },
      schema: {
        params: Params,
        tags: ['pages'],
        summary: 'Deliver a published page (public)',
        // 422: the page's blocks together go over the expansion budget of one render.
        response: { 200: DeliveredPageBody, 304: NotModified, 422: errorEnvelope(422) },
      },
    },
    async (req, reply) => {
      if (rule.max > 0) await enforceRate(limiter, reply, [{ key: `deliver:ip:${req.ip}`, rule }]);
      const site = req.params.site_id;
      const slug = req.params['*'];
      if (!SITE_ID_PATTERN.test(site) || slug.length > SLUG_MAX || !SLUG_PATTERN.test(slug))
        throw new PageNotDelivered({ cache: 'miss' });
      let page = delivery.response(site, slug);
      const source = page ? 'hit' : 'miss';
      if (!page) {
        if (await delivery.isMissing(site, slug)) throw new PageNotDelivered({ cache: 'negative' });
        const resolved = await delivery.render(site, slug, async (generation) => {
          const made = await resolvePage(deps, site, slug);
          if (made) delivery.keep(site, made, generation);
          else await delivery.markMissing(site, slug);
          return made;
        });
        if (!resolved) throw new PageNotDelivered({ cache: 'miss' });
        page = resolved;
      }
      void reply.headers({ etag: page.etag, 'cache-control': CACHE_CONTROL, 'x-svc-cache': source });
      if (matches(req.headers['if-none-match'], page.etag)) return reply.status(304).send(undefined);
      // The body is the page's JSON text, cached as sent: a string with a JSON content type skips the serializer,
      // so DeliveredPageBody documents it without re-encoding it.
      return (reply as FastifyReply).type('application/json; charset=utf-8').send(page.body);
    },
  );
};
