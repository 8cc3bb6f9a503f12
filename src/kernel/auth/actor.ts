import { previewBaseOf } from '../tenancy/site.ts';
import type { ActorRef } from '../es/event.ts';
import { own } from '../safe/keys.ts';

/** The authenticated principal of a request (request.actor): a user, or an API key acting with its role. */
export interface Actor {
  /** `scim`: the provisioning client holding SCIM_TOKEN, valid on /scim/v2/ only; `flow`: a flow acting with its runAs role (never a request's caller). */
  type: 'user' | 'apiKey' | 'scim' | 'flow';
  id: string;
  email: string;
  /** Admin of every site (the setup user). */
  instanceAdmin: boolean;
  /** Role key per site id. */
  roles: Record<string, string>;
  tokenVersion: number;
  /** The login session of a user's access token. */
  sessionId?: string | null;
  /** Authentication methods of the token (pwd, totp, key, ext). */
  amr?: string[];
  /** Publishable keys may only read. */
  readOnly?: boolean;
  /** An admin acting as this user (impersonation): every event records both. */
  impersonator?: string;
}

/** What the authenticators see of a request, besides the token. */
export interface AuthContext {
  /** The site the request names (X-Svc-Site or subdomain), not yet checked. */
  siteId: string | null;
  method: string;
  /** The request path without the query. */
  path: string;
  origin: string | null;
  /**
   * No Origin header, and the request came from the service's own origin: `Sec-Fetch-Site: same-origin`, or a Host
   * that is SVC_PUBLIC_URL's (a same-origin GET carries no Origin). A publishable key is accepted there.
   */
  sameOrigin?: boolean;
}

/**
 * One way of turning a bearer token into an actor. `null` means "not mine": the next one is asked. Once a
 * token is recognised it is accepted or refused here (fail closed), never passed on.
 */
export interface Authenticator {
  name: string;
  /** Lower runs first: API keys, then external issuers, then the service's own tokens. */
  order: number;
  authenticate(token: string, ctx: AuthContext): Promise<Actor | null>;
}

/**
 * Role of the actor on a site: instance admins are admin everywhere; on a preview site (`<base>--pr-<n>`) the
 * members of the base site (people, not API keys) keep their role there, live: a role revoked on the base is
 * revoked on its previews.
 */
export function roleOn(actor: Pick<Actor, 'type' | 'instanceAdmin' | 'roles'>, siteId: string): string | null {
  if (actor.instanceAdmin) return 'admin';
  const direct = own(actor.roles, siteId);
  if (direct !== undefined) return direct;
  // People only: an API key (or a flow's role) belongs to the one site it was made on.
  const base = actor.type === 'user' ? previewBaseOf(siteId) : null;
  return base === null ? null : (own(actor.roles, base) ?? null);
}

export function actorRef(actor: Actor | null): ActorRef {
  if (!actor) return { type: 'system', id: 'anonymous' };
  if (actor.type === 'scim') return { type: 'system', id: 'scim' };
  return actor.impersonator
    ? { type: actor.type, id: actor.id, onBehalfOf: actor.impersonator }
    : { type: actor.type, id: actor.id };
}

/**
 * Every site's system roles, from the most rights to the fewest: an API key or an issuer's role mapping ranks by this
 * order. Defined here only.
 */
export const SYSTEM_ROLES = ['admin', 'site_admin', 'editor', 'viewer', 'subscriber', 'public'] as const;
export type SystemRole = (typeof SYSTEM_ROLES)[number];

/** The roles that administer a site: every right on it, and its administration routes. Defined here only. */
export const SITE_ADMIN_ROLES: ReadonlySet<string> = new Set<SystemRole>(['admin', 'site_admin']);

/**
 * Who acts on which site: the two things a request is decorated with. Permission checks take this, not the whole
 * request, so a process manager (release publishing, the scheduler) can ask them for the person behind it.
 */
export interface Principal {
  actor: Actor | null;
  site: { id: string } | null;
}
