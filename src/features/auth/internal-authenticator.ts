import type { Authenticator } from '../../kernel/auth/actor.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { findUserForToken } from '../../../projections/users/users.queries.ts';
import type { TokenService } from './tokens.ts';
import type { Db } from '../../kernel/db/database.ts';

/**
 * The service's own access tokens: signature, audience and expiry, then the live user: its token version
 * must match (change-password and TOTP removal bump it) and the token's session must not be revoked.
 */
export function internalAuthenticator(db: Db, tokens: TokenService): Authenticator {
  return {
    name: 'access-token',
    order: 100,
    authenticate: async (token) => {
      const claims = await tokens.verify(token);
      const user = await findUserForToken(db, claims.sub, claims.sid);
      if (!user || user.tokenVersion !== claims.tv || !user.sessionLive || user.status !== 'active')
        throw new DomainError('UNAUTHENTICATED', 'the access token is no longer valid');
      return {
        type: 'user',
        id: user.userId,
        email: user.email ?? '',
        instanceAdmin: user.instanceAdmin,
        roles: user.roles,
        tokenVersion: user.tokenVersion,
        sessionId: claims.sid,
        amr: claims.amr,
      };
    },
  };
}
