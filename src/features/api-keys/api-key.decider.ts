import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import { SYSTEM_ROLES } from '../../kernel/auth/authorizer.ts';
import {
  ApiKeyExists,
  ApiKeyNotFound,
  ExpiryInThePast,
  KeyRoleAboveCreator,
  OriginsOnSecretKey,
  PublishableKeyRole,
  PublishableKeyWithoutOrigins,
  UnknownKeyRole,
} from './api-key.errors.ts';
import type { ApiKeyCreated, ApiKeyEvent } from '../../contracts/api-keys/api-key.events.ts';

/** The preset role keys, strongest first. Custom roles arrive later; until then a roleId names one of these. */
/** Roles from the most rights to the fewest: a key never ranks above the role of whoever makes it. */
export const ROLE_RANK = SYSTEM_ROLES;
/** Roles a publishable key may carry: it lives in browsers, so it only reads. */
export const PUBLISHABLE_ROLES: readonly string[] = ['viewer', 'subscriber', 'public'];

export type ApiKeyState =
  { status: 'none' } | { status: 'active' | 'revoked'; siteId: string; role: string; publishable: boolean };

/**
 * Create a key. `creatorRole` is the creator's role on the site: a key never carries a stronger role than the
 * one who made it (so only instance admins make `admin` keys). `allowedOrigins` is null when not given.
 */
export type CreateApiKey = {
  type: 'CreateApiKey';
  data: Omit<ApiKeyCreated['data'], 'at'> & {
    creatorRole: string;
    /** For a custom role: the system role it stands on (it ranks as that). */
    roleBase?: string | null;
    now: string;
  };
};
/** Revoke a key; revoking a revoked key changes nothing. */
export type RevokeApiKey = { type: 'RevokeApiKey'; data: { keyId: string; siteId: string; by: string; now: string } };
export type ApiKeyCommand = CreateApiKey | RevokeApiKey;

const rank = (role: string) => ROLE_RANK.indexOf(role as (typeof ROLE_RANK)[number]);

/** The rules a new key must satisfy; throws the first one broken. */
function checkNewKey(d: CreateApiKey['data']): void {
  // A custom role ranks as the system role it stands on (roleBase), given by the route.
  const base = d.roleBase ?? d.role;
  if (rank(base) < 0) throw new UnknownKeyRole({ role: d.role });
  if (rank(d.creatorRole) < 0 || rank(base) < rank(d.creatorRole))
    throw new KeyRoleAboveCreator({ creatorRole: d.creatorRole, role: d.role });
  if (d.publishable) {
    if (!PUBLISHABLE_ROLES.includes(base)) throw new PublishableKeyRole({ readRoles: PUBLISHABLE_ROLES });
    if (!d.allowedOrigins?.length) throw new PublishableKeyWithoutOrigins();
  } else if (d.allowedOrigins !== null) {
    throw new OriginsOnSecretKey();
  }
  if (d.expiresAt !== null && Date.parse(d.expiresAt) <= Date.parse(d.now)) throw new ExpiryInThePast();
}

export const apiKeyDecider: Decider<ApiKeyState, ApiKeyCommand, ApiKeyEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'ApiKeyCreated':
        return { status: 'active', siteId: e.data.siteId, role: e.data.role, publishable: e.data.publishable };
      case 'ApiKeyRevoked':
        return s.status === 'none' ? s : { ...s, status: 'revoked' };
      default:
        return assertNever(e);
    }
  },
  decide: (cmd, s) => {
    switch (cmd.type) {
      case 'CreateApiKey': {
        if (s.status !== 'none') throw new ApiKeyExists({ keyId: cmd.data.keyId });
        checkNewKey(cmd.data);
        const { creatorRole: _creatorRole, roleBase: _roleBase, now, ...data } = cmd.data;
        return [{ type: 'ApiKeyCreated', data: { ...data, at: now } }];
      }
      case 'RevokeApiKey': {
        const { keyId, siteId, by, now } = cmd.data;
        if (s.status === 'none') throw new ApiKeyNotFound({ keyId });
        if (s.status === 'revoked') return [];
        return [{ type: 'ApiKeyRevoked', data: { keyId, siteId, by, at: now } }];
      }
      default:
        return assertNever(cmd);
    }
  },
};
