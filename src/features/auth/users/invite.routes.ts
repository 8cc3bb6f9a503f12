import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { handleCommand } from '../../../kernel/es/handle-command.ts';
import { commandMeta } from '../../../kernel/http/command-meta.ts';
import { seal } from '../../../kernel/privacy/pii.ts';
import { RecordId } from '../../../kernel/safe/record-id.ts';
import { SYSTEM_SITE } from '../../../kernel/tenancy/site.ts';
import { findUserById } from '../../../../projections/users/index.ts';
import { authRules, limitByIp } from '../auth-limits.ts';
import { startSession } from '../sessions.ts';
import { userDecider } from '../user.decider.ts';
import { userStream } from '../user.events.ts';
import { acceptInvitation, inviteToSite } from './site-invitations.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { Session } from '../http/auth.schemas.ts';
import { InvitationRecord } from './users.schemas.ts';
import { Email, grantableRole } from './users.routes.ts';

const InviteBody = z
  .object({
    email: Email,
    roleId: RecordId.optional(),
    roleKey: RecordId.optional(),
    firstName: z.string().trim().max(200).optional(),
    lastName: z.string().trim().max(200).optional(),
  })
  .strict();
const AcceptBody = z
  .object({
    token: z.string().min(1).max(4096),
    password: z.string().min(1).max(1024),
    firstName: z.string().trim().max(200).optional(),
    lastName: z.string().trim().max(200).optional(),
  })
  .strict();

/**
 * Invitations: a site admin offers an address a role on the site. A new address gets an identity in state
 * `invited`; an existing account (of any site) is left as it is. Either way a seven-day link goes to the address,
 * the site has no member until its owner accepts at POST /auth/accept-invite, and the answer is the same.
 */
export const inviteRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { db, store, clock, limiter } = deps;
  const rules = authRules(deps.config);

  app.post(
    '/api/v1/users/invite',
    {
      config: { caller: 'site-admin' },
      schema: {
        tags: ['users'],
        summary: 'Invite someone to the site by email',
        body: InviteBody,
        response: { 202: dataEnvelope(InvitationRecord, 'Accepted') },
      },
    },
    async (req, reply) => {
      const role = await grantableRole(deps, req, req.body);
      const data = await inviteToSite(deps, req, { ...req.body, role });
      reply.status(202);
      return { data };
    },
  );

  app.post(
    '/api/v1/auth/accept-invite',
    {
      config: { caller: 'public', site: false },
      schema: {
        tags: ['auth'],
        summary: 'Accept an invitation (sets the password; answers a session)',
        body: AcceptBody,
        response: { 200: dataEnvelope(Session) },
      },
    },
    async (req, reply) => {
      await limitByIp(limiter, req, reply, 'accept-invite', rules.reset);
      const metadata = (userId: string) => ({
        ...commandMeta(req, SYSTEM_SITE, clock.now()),
        actor: { type: 'user' as const, id: userId },
      });
      const user = await acceptInvitation(deps, req.body, metadata);
      if (req.body.firstName !== undefined || req.body.lastName !== undefined) {
        const named = async (given: string | undefined, old: string | null) => {
          const v = given ?? old;
          return v ? seal(db, user.userId, v) : null;
        };
        await handleCommand(
          store,
          userDecider,
          userStream(user.userId),
          {
            type: 'ChangeProfile',
            data: {
              userId: user.userId,
              firstName: await named(req.body.firstName, user.firstName),
              lastName: await named(req.body.lastName, user.lastName),
              now: clock.now().toISOString(),
            },
          },
          { metadata: metadata(user.userId) },
        );
      }
      return { data: await startSession(deps, req, reply, (await findUserById(db, user.userId))!, ['pwd']) };
    },
  );
};
