import type { JWTPayload } from 'jose';
import { ROLE_KEYS, type TrustedIssuerConfig } from '../../contracts/issuers/issuer.schema.ts';

/**
 * A claim of the token: the top-level claim of that exact name (names such as `https://example.com/roles` hold
 * dots), else a dotted path into nested objects (`realm_access.roles`).
 */
export function claimAt(payload: JWTPayload, name: string): unknown {
  if (Object.hasOwn(payload, name)) return payload[name];
  let at: unknown = payload;
  for (const part of name.split('.')) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, part)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

const rank = (role: string) => {
  const i = (ROLE_KEYS as readonly string[]).indexOf(role);
  return i < 0 ? ROLE_KEYS.length : i;
};

/**
 * The service role of a token: each value of the roles claim (a string or an array) mapped through the
 * issuer's roleMapping, the most privileged kept; none mapped gives the default role, or null (refused).
 */
export function resolveRole(
  issuer: Pick<TrustedIssuerConfig, 'roleMapping' | 'defaultRoleId'>,
  claim: unknown,
): string | null {
  const values = typeof claim === 'string' ? [claim] : Array.isArray(claim) ? claim : [];
  const mapped = values
    .filter((v): v is string => typeof v === 'string' && Object.hasOwn(issuer.roleMapping, v))
    .map((v) => issuer.roleMapping[v]!.roleId ?? issuer.roleMapping[v]!.systemKey)
    .filter((r): r is NonNullable<typeof r> => r !== undefined)
    .sort((a, b) => rank(a) - rank(b));
  return mapped[0] ?? issuer.defaultRoleId ?? null;
}
