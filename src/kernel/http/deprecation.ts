import type { FastifyInstance } from 'fastify';
import './route-config.ts';

/**
 * Retiring routes (spec "Versioning"): `Deprecation` (RFC 9745: `@<epoch seconds>` of the deprecation), `Sunset`
 * (RFC 8594: the HTTP date it goes away) and `Link: <changelog>; rel="deprecation"` on every answer, errors too.
 */
export function installDeprecation(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply) => {
    const r = req.routeOptions.config?.retiring;
    if (!r) return;
    void reply.headers({
      deprecation: `@${Math.floor(new Date(r.since).getTime() / 1000)}`,
      sunset: new Date(r.sunset).toUTCString(),
      link: `<${r.changelog}>; rel="deprecation"`,
    });
  });
}
