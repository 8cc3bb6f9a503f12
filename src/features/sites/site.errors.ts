import { defineError } from '../../kernel/http/errors.ts';

type Site = { siteId: string };

/** A create names a site id that is taken. */
export const SiteExists = defineError<Site>(
  'CONFLICT',
  'conflict',
  (d) => `site ${d.siteId} already exists`,
  () => ({ path: ['id'] }),
);

/** The site does not exist (an update of an unknown site, or the active site gone from the read model). */
export const SiteNotFound = defineError<Site>('SITE_NOT_FOUND', 'not_found', (d) => `site ${d.siteId} not found`);

/** A site's `cors.origins` holds what is not an origin pattern (exact origin or `scheme://*.domain`; never `*`). */
export const CorsOriginInvalid = defineError<{ index: number; problem: string }>(
  'CORS_ORIGIN_INVALID',
  'invalid',
  (d) => d.problem,
  (d) => ({ path: ['settings', 'cors', 'origins', String(d.index)] }),
);
