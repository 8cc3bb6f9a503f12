import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import type { DeliveryCache, Invalidation } from '../delivery-cache.ts';
import { InvalidPurgeElement } from '../page.errors.ts';

const Body = z
  .object({
    tags: z.array(z.string().min(1).max(500)).max(100).optional(),
    keys: z.array(z.string().min(1).max(500)).max(100).optional(),
  })
  .strict();

/**
 * What a purge tag or key names, on the active site. Tags: `site:<site>` (everything of the site),
 * `page:<site>:<pageId>`, `item:<site>:<collection>/<id>` (pages showing the item), `collection:<site>:<name>`.
 * Keys: `deliver:<site>:<slug>` (one delivered page and its negative marker). The site id is always the second
 * part, so an element can never reach another site's entries.
 */
function parse(kind: 'tags' | 'keys', element: string, index: number, site: string): Invalidation {
  const [type, owner, ...rest] = element.split(':');
  const value = rest.join(':');
  const fail = (why: string) => new InvalidPurgeElement({ kind, index, element, why });
  if (owner !== site) throw fail(`does not contain the active site id ${site} (as <type>:${site}:…)`);
  if (kind === 'keys') {
    if (type !== 'deliver' || !value) throw fail('is not a delivery key (deliver:<site>:<slug>)');
    return { site, slugs: [value] };
  }
  if (type === 'site' && rest.length === 0) return { site, all: true };
  if (type === 'page' && value) return { site, pageIds: [value] };
  if (type === 'item' && /^[^/]+\/.+$/.test(value)) return { site, items: [value] };
  if (type === 'collection' && value) return { site, collections: [value] };
  throw fail('is not a known tag (site:, page:, item:, collection:)');
}

/** Admin: drops delivery cache entries (resolved pages, negative markers) by tag or key, on every node. */
export const cacheRoutes: FastifyPluginAsync<AppDeps & { delivery: DeliveryCache }> = async (plain, { delivery }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/api/v1/utils/cache/purge',
    {
      config: { caller: 'admin' },
      schema: {
        body: Body,
        tags: ['pages'],
        summary: 'Purge delivery cache entries by tag or key',
        response: { 200: dataEnvelope(z.object({ purged: z.number().int() })) },
      },
    },
    async (req) => {
      const site = siteOf(req);
      const all = [
        ...(req.body.tags ?? []).map((t, i) => parse('tags', t, i, site)),
        ...(req.body.keys ?? []).map((k, i) => parse('keys', k, i, site)),
      ];
      let purged = 0;
      for (const inv of all) purged += await delivery.invalidate(inv);
      return { data: { purged } };
    },
  );
};
