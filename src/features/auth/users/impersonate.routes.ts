import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { RecordId } from '../../../kernel/safe/record-id.ts';
import { own } from '../../../kernel/safe/keys.ts';
import { SITE_ADMIN_ROLES } from '../../../kernel/auth/authorizer.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { Profile } from '../http/auth.schemas.ts';
import { findUserById, toProfile } from '../../../../projections/users/index.ts';
import { UserNotFound } from '../auth.errors.ts';
import { AdminImpersonation, SelfImpersonation } from './users.errors.ts';

const IdParams = z.object({ id: RecordId });
/** An impersonation lasts at most 15 minutes (less when access tokens are shorter); it cannot be refreshed. */
const IMPERSONATION_TTL_S = 900;

/**
 * An administrator acts as a member of the site: a short access token (no refresh token, no session) for the
 * member, carrying the administrator in its `act` claim. Every event it writes records both (`actor.onBehalfOf`);
 * it cannot reach administration or the member's account settings, and never stands for an administrator.
 */
export const impersonateRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/api/v1/users/:id/impersonate',
    {
      config: { caller: 'admin', secretAnswer: true },
      schema: {
        tags: ['users'],
        summary: 'Impersonate a member (a short-lived token acting as them)',
        params: IdParams,
        response: {
          200: dataEnvelope(
            z.object({ token: z.string(), expiresIn: z.number().int(), user: Profile, impersonator: z.string() }),
          ),
        },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      const target = await findUserById(deps.db, req.params.id);
      const role = target ? own<string>(target.roles, siteId) : undefined;
      if (!target || !role) throw new UserNotFound({ userId: req.params.id });
      if (SITE_ADMIN_ROLES.has(role) || target.instanceAdmin) throw new AdminImpersonation();
      if (target.userId === actorOf(req).id) throw new SelfImpersonation();
      const { token, expiresIn } = await deps.tokens.issue({
        userId: target.userId,
        tokenVersion: target.tokenVersion,
        amr: ['impersonation'],
        sessionId: null,
        sites: { [siteId]: role },
        actor: actorOf(req).id,
        ttlSeconds: IMPERSONATION_TTL_S,
      });
      return { data: { token, expiresIn, user: toProfile(target), impersonator: actorOf(req).id } };
    },
  );
};
