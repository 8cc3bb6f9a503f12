import type { FastifyInstance } from 'fastify';
import '../../kernel/http/route-config.ts';

/**
 * Where a retiring route's changelog entry is served: its operation in the OpenAPI document (deprecated, with what
 * replaces it in the description), as a JSON pointer (RFC 6901) in the fragment. Derived from the route, so it names
 * an address the service answers; a hand-written path once pointed at a file the service never served.
 */
export function changelogAddress(url: string, method: string): string {
  const path = url
    .replace(/:([A-Za-z0-9_]+)/g, '{$1}')
    .replaceAll('~', '~0')
    .replaceAll('/', '~1');
  return `/api/v1/openapi.json#${encodeURI(`/paths/${path}/${method.toLowerCase()}`)}`;
}

/**
 * Retiring routes (spec "Versioning"): `Deprecation` (RFC 9745: `@<epoch seconds>` of the deprecation), `Sunset`
 * (RFC 8594: the HTTP date it goes away) and `Link: <changelog entry>; rel="deprecation"` on every answer, errors too.
 */
export function installDeprecation(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply) => {
    const r = req.routeOptions.config?.retiring;
    if (!r) return;
    void reply.headers({
      deprecation: `@${Math.floor(new Date(r.since).getTime() / 1000)}`,
      sunset: new Date(r.sunset).toUTCString(),
      link: `<${changelogAddress(req.routeOptions.url ?? req.url, req.method)}>; rel="deprecation"`,
    });
  });
}
