import { createHash, timingSafeEqual } from 'node:crypto';
import type { Authenticator } from '../../kernel/auth/actor.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * SCIM_TOKEN, recognised only on /scim/v2/ (compared in constant time); anywhere else it is no token of
 * this authenticator's and the rest of the chain refuses it.
 */
export function scimAuthenticator(scimToken: string | undefined): Authenticator {
  const expected = scimToken ? digest(scimToken) : null;
  return {
    name: 'scim-token',
    order: 5,
    authenticate: async (token, ctx) => {
      if (!expected || !ctx.path.startsWith('/scim/v2/')) return null;
      if (!timingSafeEqual(digest(token), expected)) return null;
      return { type: 'scim', id: 'scim', email: '', instanceAdmin: false, roles: {}, tokenVersion: 0, amr: ['scim'] };
    },
  };
}
