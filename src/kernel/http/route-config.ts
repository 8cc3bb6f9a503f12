import type { Actor } from '../auth/actor.ts';

/**
 * When a route was deprecated and when it goes away. What replaces it is said in the route's OpenAPI `description`,
 * which the `Link` of its answers points at (an address the service itself serves).
 */
export interface Retiring {
  since: string;
  sunset: string;
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
    /** A retiring route: answers Deprecation, Sunset and a Link to its changelog entry (spec "Versioning"). */
    retiring?: Retiring;
    /**
     * The route's answer carries a secret chosen for this request (a session, a key, a TOTP seed, recovery codes, a
     * signing secret shown once): it is never compressed, so its size cannot reveal the secret next to text the
     * caller chose (BREACH). See `platform/http/compression.ts`.
     */
    secretAnswer?: boolean;
  }
  interface FastifyRequest {
    actor: Actor | null;
    site: { id: string } | null;
  }
}
