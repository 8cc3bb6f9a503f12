import type { FastifyInstance, FastifyRequest } from 'fastify';
import { roleOn, SITE_ADMIN_ROLES, type Actor, type AuthContext, type Principal } from '../auth/actor.ts';
import { siteFromRequest, SITE_ID_PATTERN } from '../tenancy/site.ts';
import {
  AdministratorsOnly,
  AuthenticationRequired,
  MalformedAuthorization,
  NotASiteMember,
  NotWhileImpersonating,
  ReadOnlyKey,
  ScimTokenOutsideScim,
  ScimTokenRequired,
  SiteAdministratorsOnly,
  SiteNotGiven,
  UnknownSite,
} from './kernel.errors.ts';
import './route-config.ts';

export interface AccessOptions {
  /** Turns a bearer token into an actor, or throws UNAUTHENTICATED / TOKEN_EXPIRED. */
  authenticate(token: string, ctx: AuthContext): Promise<Actor>;
  siteExists(siteId: string): Promise<boolean>;
  /** SVC_DEV_AUTH: requests without a token act as this principal (never in production). */
  devActor?: () => Promise<Actor | null>;
  /** The service's own host (SVC_PUBLIC_URL's `host[:port]`): a request without Origin to it is same-origin. */
  ownHost?: string | null;
}

/**
 * Authentication, tenancy and the caller check of every route, in that order: a bad token is 401 before
 * anything else is revealed; then the site must exist (404 SITE_NOT_FOUND) and be one of the caller's.
 */
export function installAccess(app: FastifyInstance, opts: AccessOptions): void {
  app.decorateRequest('actor', null);
  app.decorateRequest('site', null);
  app.addHook('onRequest', async (req) => {
    // Unmatched routes answer one plain 404, whoever asks; so does a preflight the CORS policy did not answer.
    if (!req.routeOptions.url || (req.method === 'OPTIONS' && req.routeOptions.url === '*')) return;
    const config = req.routeOptions.config ?? {};
    const caller = config.caller ?? 'bearer';
    const token = config.ownCredential && caller === 'public' ? null : bearer(req);
    const named = siteFromRequest(req.headers, req.headers.host);
    const origin = typeof req.headers.origin === 'string' ? req.headers.origin : null;
    const path = req.url.split('?')[0]!;
    if (token) {
      const sameOrigin = !origin && sameOriginRequest(req, opts.ownHost);
      req.actor = await opts.authenticate(token, { siteId: named, method: req.method, path, origin, sameOrigin });
    } else if (opts.devActor && caller !== 'public') req.actor = await opts.devActor();
    if (caller !== 'public' && !req.actor) throw new AuthenticationRequired();
    if (req.actor?.readOnly && req.method !== 'GET' && req.method !== 'HEAD') throw new ReadOnlyKey();
    if (req.actor?.impersonator && (caller === 'admin' || caller === 'site-admin')) throw new NotWhileImpersonating();
    if ((caller === 'scim') !== (req.actor?.type === 'scim') && req.actor)
      throw caller === 'scim' ? new ScimTokenRequired() : new ScimTokenOutsideScim();

    const siteScoped = config.site ?? (req.routeOptions.url ?? '').startsWith('/api/v1/');
    // Instance-wide admin areas are for instance admins; a site's admin areas also for its `admin` role.
    if (caller === 'admin' && !siteScoped && !req.actor?.instanceAdmin) throw new AdministratorsOnly();
    if (!siteScoped) return;
    const siteId = named;
    if (!siteId) throw new SiteNotGiven();
    if (!SITE_ID_PATTERN.test(siteId) || !(await opts.siteExists(siteId))) throw new UnknownSite({ siteId });
    if (req.actor) {
      const role = roleOn(req.actor, siteId);
      if (!role) throw new NotASiteMember({ siteId });
      if (caller === 'site-admin' && !SITE_ADMIN_ROLES.has(role)) throw new SiteAdministratorsOnly();
      if (caller === 'admin' && role !== 'admin') throw new AdministratorsOnly();
    }
    req.site = { id: siteId };
  });
}

/** A browser says it sent the request from this origin, or the Host is the service's own public one. */
function sameOriginRequest(req: FastifyRequest, ownHost: string | null | undefined): boolean {
  if (req.headers['sec-fetch-site'] === 'same-origin') return true;
  return !!ownHost && req.headers.host?.toLowerCase() === ownHost;
}

function bearer(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(h);
  if (!m) throw new MalformedAuthorization();
  return m[1]!;
}

export type { Principal };

/** The active site of a site-scoped route (set by installAccess). */
export function siteOf(req: Principal): string {
  if (!req.site) throw new Error('route is not site-scoped');
  return req.site.id;
}

export function actorOf(req: Principal): Actor {
  if (!req.actor) throw new AuthenticationRequired();
  return req.actor;
}
