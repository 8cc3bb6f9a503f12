import type { Actor } from '../auth/actor.ts';

/** Who may call a route: public, any authenticated principal, an instance admin, or a site admin. */
export type Caller = 'public' | 'bearer' | 'admin' | 'site-admin' | 'scim';

declare module 'fastify' {
  interface FastifyContextConfig {
    caller?: Caller;
    /** The route acts on one site (X-Svc-Site or subdomain). Default: true under /api/v1. */
    site?: boolean;
  }
  interface FastifyRequest {
    actor: Actor | null;
    site: { id: string } | null;
  }
}
