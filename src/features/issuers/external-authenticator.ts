import { decodeJwt, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { AppDeps } from '../../deps.ts';
import type { Actor, Authenticator } from '../../kernel/auth/actor.ts';
import { SITE_ID_PATTERN } from '../../kernel/tenancy/site.ts';
import { enabledIssuers, type TrustedIssuerRecord } from '../../../projections/trusted-issuers/index.ts';
import { provisionExternalUser } from '../auth/index.ts';
import {
  ExternalTokenExpired,
  ExternalTokenUnverified,
  ExternalTokenWithoutSubject,
  NoMappedRole,
  TokenForAnotherSite,
} from './issuer.errors.ts';
import { ISSUER_EVENT_TYPES } from '../../contracts/issuers/issuer.events.ts';
import { resolveRole, claimAt } from './external-claims.ts';
import { issuerKeys, KEY_REFRESH_INTERVAL_MS } from './issuer-keys.ts';

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const MAX_ENTRIES = 10_000;
const ISSUER_EVENTS = new Set<string>(ISSUER_EVENT_TYPES);

/**
 * JWTs of the site's trusted external issuers (spec: External JWT verification). A token whose `iss` is not an
 * enabled issuer of the request's site is not ours (null: the service's own tokens are asked next). Once the
 * issuer matches, the token is accepted or refused here: signature against the issuer's keys, audience, expiry,
 * not-before, the issuer's algorithms; then the site claim and the role mapping.
 *
 * Issuers are cached per site for `cacheMs` and dropped the moment this node commits a change to one of them;
 * another node's change is seen within `cacheMs`. Key sets are cached per issuer record version.
 */
export function externalAuthenticator(deps: AppDeps, cacheMs = 5_000): Authenticator {
  const issuerClaim = issuerClaims();
  const issuersOf = siteIssuers(deps, cacheMs);
  const keysOf = issuerKeySets(deps);
  const userIdFor = externalUserIds(deps);
  return {
    name: 'external-jwt',
    order: 50,
    authenticate: async (token, ctx): Promise<Actor | null> => {
      if (!ctx.siteId || !SITE_ID_PATTERN.test(ctx.siteId)) return null;
      const iss = issuerClaim(token);
      if (iss === null) return null;
      const issuer = (await issuersOf(ctx.siteId)).find((i) => i.issuer === iss);
      if (!issuer) return null;
      const payload = await verify(deps, token, issuer, keysOf);
      const { subject, role, email } = claimsOf(payload, issuer, ctx.siteId);
      return {
        type: 'user',
        id: await userIdFor(issuer, subject, email, ctx.siteId, role),
        email,
        instanceAdmin: false,
        roles: { [ctx.siteId]: role },
        tokenVersion: 0,
        amr: ['ext'],
      };
    },
  };
}

const bounded = <V>(m: Map<string, V>, k: string, v: V) => {
  m.set(k, v);
  if (m.size > MAX_ENTRIES) m.delete(m.keys().next().value as string);
};

/**
 * A token's (unverified) issuer, decoded once per token: every request with a bearer token asks here first.
 * Null for a token that is not a JWT or names no issuer.
 */
function issuerClaims(): (token: string) => string | null {
  const issuers = new Map<string, string | null>();
  return (token) => {
    const known = issuers.get(token);
    if (known !== undefined) return known;
    let iss: unknown = null;
    if (JWT_SHAPE.test(token)) {
      try {
        iss = decodeJwt(token).iss;
      } catch {
        iss = null;
      }
    }
    const found = typeof iss === 'string' ? iss : null;
    // Bounded in count and size: a flood of long made-up tokens pins at most ~8 MB.
    if (token.length <= 4096) {
      issuers.set(token, found);
      if (issuers.size > 2000) issuers.delete(issuers.keys().next().value!);
    }
    return found;
  };
}

/**
 * A site's enabled issuers, cached for `cacheMs`. A change this node commits to an issuer drops the site's entry,
 * and a read that overlapped such a change is not cached.
 */
function siteIssuers(deps: AppDeps, cacheMs: number): (siteId: string) => Promise<TrustedIssuerRecord[]> {
  const bySite = new Map<string, { at: number; issuers: TrustedIssuerRecord[] }>();
  let epoch = 0;
  deps.store.onAppended((events) => {
    for (const e of events)
      if (ISSUER_EVENTS.has(e.type)) {
        epoch++;
        bySite.delete(e.siteId);
      }
  });
  return async (siteId) => {
    const hit = bySite.get(siteId);
    if (hit && Date.now() - hit.at < cacheMs) return hit.issuers;
    const before = epoch;
    const issuers = await enabledIssuers(deps.db, siteId);
    if (epoch === before) bounded(bySite, siteId, { at: Date.now(), issuers });
    return issuers;
  };
}

/** An issuer's key set, fetched once per issuer record version. */
function issuerKeySets(deps: AppDeps): (issuer: TrustedIssuerRecord) => Promise<JWTVerifyGetKey> {
  const keySets = new Map<string, Promise<JWTVerifyGetKey>>();
  return (issuer) => {
    const k = `${issuer.id}:${issuer.version}`;
    let keys = keySets.get(k);
    if (!keys) {
      keys = issuerKeys(issuer, {
        allowPrivate: deps.config.SVC_ALLOW_PRIVATE_ISSUERS,
        httpsOnly: deps.config.NODE_ENV === 'production',
      });
      bounded(keySets, k, keys);
      // A failed fetch is not retried for every token that names the issuer: at most once per interval.
      keys.catch(() => setTimeout(() => keySets.delete(k), KEY_REFRESH_INTERVAL_MS).unref());
    }
    return keys;
  };
}

/**
 * The token's claims once its signature, issuer, audience, algorithm and times check out, else why not (a key set
 * that could not be fetched verifies nothing).
 */
async function verify(
  deps: AppDeps,
  token: string,
  issuer: TrustedIssuerRecord,
  keysOf: (issuer: TrustedIssuerRecord) => Promise<JWTVerifyGetKey>,
): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(token, await keysOf(issuer), {
      issuer: issuer.issuer,
      audience: issuer.audience,
      algorithms: [...issuer.algorithms],
      clockTolerance: issuer.clockSkewSeconds,
      currentDate: deps.clock.now(),
    });
    return payload;
  } catch (err) {
    if (err instanceof errors.JWTExpired) throw new ExternalTokenExpired();
    throw new ExternalTokenUnverified();
  }
}

/** Who the verified token names, through the issuer's claim mapping: its site (if mapped), subject, role and email. */
function claimsOf(payload: JWTPayload, issuer: TrustedIssuerRecord, siteId: string) {
  const { claimMapping } = issuer;
  const siteClaim = claimMapping.siteId === undefined ? undefined : claimAt(payload, claimMapping.siteId);
  if (siteClaim !== undefined && siteClaim !== siteId) throw new TokenForAnotherSite();
  const subject = claimAt(payload, claimMapping.externalId);
  if (typeof subject !== 'string' || !subject) throw new ExternalTokenWithoutSubject();
  const role = resolveRole(issuer, claimAt(payload, claimMapping.roles));
  if (!role) throw new NoMappedRole();
  const emailClaim = claimAt(payload, claimMapping.email);
  const email = typeof emailClaim === 'string' ? emailClaim : '';
  return { subject, role, email };
}

/**
 * The user an external subject acts as: a fixed id, or with just-in-time provisioning the account provisioned for
 * it on the site (asked again when the mapped role changes).
 */
function externalUserIds(deps: AppDeps) {
  const provisioned = new Map<string, { userId: string; role: string }>();
  return async (issuer: TrustedIssuerRecord, subject: string, email: string, siteId: string, role: string) => {
    if (!issuer.jitProvisioning) return `ext:${issuer.id}:${subject}`;
    const k = `${issuer.id}\u0000${subject}\u0000${siteId}`;
    const hit = provisioned.get(k);
    if (hit && hit.role === role) return hit.userId;
    const userId = await provisionExternalUser(
      { db: deps.db, store: deps.store, addresses: deps.addresses, config: deps.config, now: deps.clock.now() },
      { issuerId: issuer.id, subject, email: email || null, siteId, role },
    );
    bounded(provisioned, k, { userId, role });
    return userId;
  };
}
