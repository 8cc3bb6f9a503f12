import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { outboundRequest, type OutboundOptions } from '../../platform/net/outbound-http.ts';
import type { TrustedIssuerRecord } from '../../../projections/trusted-issuers/index.ts';

/** How often one issuer's keys may be fetched again (a token with an unknown `kid` asks for a refresh). */
export const KEY_REFRESH_INTERVAL_MS = 60_000;

/** Counts fetches per issuer record, so tests can prove the limit holds. */
export const issuerFetches = new Map<string, number>();

async function getJson(url: string, net: OutboundOptions): Promise<unknown> {
  const res = await outboundRequest(url, { ...net, headers: { accept: 'application/json' } });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return JSON.parse(res.text) as unknown;
}

/** The JWKS of an issuer: its jwksUri, or the jwks_uri its discovery document names, through the outbound helper. */
async function fetchJwks(issuer: TrustedIssuerRecord, net: OutboundOptions): Promise<JSONWebKeySet> {
  issuerFetches.set(issuer.id, (issuerFetches.get(issuer.id) ?? 0) + 1);
  let uri = issuer.jwksUri;
  if (!uri) {
    const doc = (await getJson(issuer.discoveryUrl!, net)) as { jwks_uri?: unknown };
    if (typeof doc.jwks_uri !== 'string') throw new Error('the discovery document names no jwks_uri');
    uri = doc.jwks_uri;
  }
  const jwks = (await getJson(uri, net)) as JSONWebKeySet;
  if (!jwks || !Array.isArray(jwks.keys)) throw new Error('the key set has no keys');
  return jwks;
}

/**
 * A key resolver over a key set fetched by us (not by jose, so every fetch passes the outbound rules). A token
 * whose `kid` is not in the set refreshes it, but at most once per KEY_REFRESH_INTERVAL_MS per issuer: a flood of
 * tokens with random kids costs the issuer one request a minute, not one per token.
 */
export async function issuerKeys(issuer: TrustedIssuerRecord, net: OutboundOptions): Promise<JWTVerifyGetKey> {
  let local = createLocalJWKSet(await fetchJwks(issuer, net));
  let fetchedAt = Date.now();
  let refreshing: Promise<void> | null = null;
  return async (header, token) => {
    try {
      return await local(header, token);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey) || Date.now() - fetchedAt < KEY_REFRESH_INTERVAL_MS) throw err;
      refreshing ??= fetchJwks(issuer, net)
        .then((jwks) => {
          local = createLocalJWKSet(jwks);
        })
        .finally(() => {
          fetchedAt = Date.now();
          refreshing = null;
        });
      await refreshing;
      return local(header, token);
    }
  };
}
