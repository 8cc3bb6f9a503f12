import type { Actor, Authenticator } from '../../kernel/auth/actor.ts';
import { dictFrom } from '../../kernel/safe/keys.ts';
import type { Db } from '../../kernel/db/database.ts';
import type { EventStore } from '../../kernel/es/event-store.ts';
import { onEvents } from '../../kernel/es/on-events.ts';
import { findUserForToken, type UserRow } from '../../../projections/users/index.ts';
import type { AccessClaims, TokenService } from './tokens.ts';
import { StaleAccessToken } from './auth.errors.ts';
import type { SessionRevoked } from '../../contracts/auth/session.events.ts';
import type { UserEvent } from '../../contracts/auth/user.events.ts';

const MAX_ENTRIES = 10_000;
/** Events after which a cached user (or one of its sessions) is stale. */
const USER_CHANGES = [
  'UserTokensRevoked',
  'UserSiteRoleGranted',
  'UserSiteRoleRevoked',
  'UserEmailVerified',
  'UserPasswordChanged',
] as const satisfies readonly UserEvent['type'][];
type UserChange = Extract<UserEvent, { type: (typeof USER_CHANGES)[number] }>;

/**
 * The actor of an active user's credential: the account's roles (only on `sites` when given), its token version,
 * and the session and authentication methods of the credential. Requests (access tokens) and realtime connections
 * (which look the account up again for each batch of frames) make their actor here alike.
 */
export function userActor(
  user: UserRow,
  c: { sessionId: string | null; amr: string[]; sites?: (siteId: string) => boolean; impersonator?: string },
): Actor {
  return {
    type: 'user',
    id: user.userId,
    email: user.email ?? '',
    instanceAdmin: user.instanceAdmin,
    roles: c.sites ? dictFrom(Object.entries(user.roles).filter(([site]) => c.sites!(site))) : user.roles,
    tokenVersion: user.tokenVersion,
    sessionId: c.sessionId,
    amr: c.amr,
    ...(c.impersonator ? { impersonator: c.impersonator } : {}),
  };
}

interface CachedUser {
  at: number;
  user: UserRow;
  /** Sessions seen live for this user. */
  sessions: Set<string>;
}

/**
 * The service's own access tokens: signature, audience and expiry, then the live user: its token version must
 * match (change-password and TOTP removal bump it), it must be active, and the token's session not revoked.
 *
 * Every request pays this, so both halves are cached in the process: a verified token's claims (keyed by the
 * exact token, expiry rechecked each time), and the user with its live sessions for `cacheMs`. This node drops
 * an entry the moment it commits a change to that user or session; another node's change (a revocation there)
 * is seen here within `cacheMs` at most. `cacheMs` 0 turns the user cache off.
 */
export function internalAuthenticator(db: Db, tokens: TokenService, store: EventStore, cacheMs: number): Authenticator {
  const claimsCache = new Map<string, AccessClaims & { expMs: number }>();
  const users = new Map<string, CachedUser>();
  // Bumped on every invalidation: a lookup that raced one does not cache what it read before it.
  let epoch = 0;
  onEvents<UserChange | SessionRevoked>(store, [...USER_CHANGES, 'SessionRevoked'], (events) => {
    for (const e of events) {
      epoch++;
      if (e.type === 'SessionRevoked') for (const u of users.values()) u.sessions.delete(e.data.sessionId);
      else users.delete(e.data.userId);
    }
  });
  const bounded = <K, V>(m: Map<K, V>, k: K, v: V) => {
    m.set(k, v);
    if (m.size > MAX_ENTRIES) m.delete(m.keys().next().value as K);
  };

  const verify = async (token: string): Promise<AccessClaims> => {
    const hit = claimsCache.get(token);
    if (hit) {
      if (hit.expMs > Date.now()) return hit;
      claimsCache.delete(token);
    }
    const claims = await tokens.verify(token);
    bounded(claimsCache, token, { ...claims, expMs: claims.expMs });
    return claims;
  };

  const lookup = async (userId: string, sessionId: string | null): Promise<UserRow | null> => {
    const now = Date.now();
    const cached = users.get(userId);
    if (cached && now - cached.at < cacheMs && (sessionId === null || cached.sessions.has(sessionId)))
      return cached.user;
    const before = epoch;
    const row = await findUserForToken(db, userId, sessionId);
    if (!row || !row.sessionLive) return null;
    if (cacheMs > 0 && epoch === before) {
      const entry = cached && now - cached.at < cacheMs ? cached : { at: now, user: row, sessions: new Set<string>() };
      if (sessionId) entry.sessions.add(sessionId);
      bounded(users, userId, entry);
    }
    return row;
  };

  return {
    name: 'access-token',
    order: 100,
    authenticate: async (token) => {
      const claims = await verify(token);
      const user = await lookup(claims.sub, claims.sid);
      if (!user || user.tokenVersion !== claims.tv || user.status !== 'active') throw new StaleAccessToken();
      // An impersonation acts only on the sites it was issued for.
      const sites = claims.act ? (site: string) => site in claims.sites : undefined;
      return userActor(user, { sessionId: claims.sid, amr: claims.amr, sites, impersonator: claims.act ?? undefined });
    },
  };
}
