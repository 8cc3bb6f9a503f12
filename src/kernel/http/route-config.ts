import type { Actor } from '../auth/actor.ts';

/** When a route was deprecated, when it goes away, and where the changelog says what replaces it. */
export interface Retiring {
  since: string;
  sunset: string;
  changelog: string;
}

/** Who may call a route: public, any authenticated principal, an instance admin, or a site admin. */
export type Caller = 'public' | 'bearer' | 'admin' | 'site-admin' | 'scim';

declare module 'fastify' {
  interface FastifyContextConfig {
    caller?: Caller;
    /**
     * The route checks a credential of its own in Authorization (a flow's webhook token): the access hook leaves the
     * bearer alone instead of authenticating it as a session or API key. Only with `caller: 'public'`.
     */
    ownCredential?: boolean;
    /** The route acts on one site (X-Svc-Site or subdomain). Default: true under /api/v1. */
    site?: boolean;
    /** A retiring route: answers Deprecation, Sunset and a Link to the changelog (spec "Versioning"). */
    retiring?: Retiring;
  }
  interface FastifyRequest {
    actor: Actor | null;
    site: { id: string } | null;
  }
}
