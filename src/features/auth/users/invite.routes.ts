import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { installAfterAnswer } from '../../../kernel/http/after-answer.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { RecordId } from '../../../kernel/safe/record-id.ts';
import { SYSTEM_SITE } from '../../../kernel/tenancy/site.ts';
import { authRules, limitByIp } from '../auth-limits.ts';
import { Session } from '../http/auth.schemas.ts';
import { clientOf, withRefreshCookie } from '../http/session-http.ts';
import { acceptInvitation, inviteToSite } from './invitation.commands.ts';
import { grantableRole } from './members.ts';
import { Email } from './users.routes.ts';
import { InvitationRecord } from './users.schemas.ts';

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
  const { clock, limiter } = deps;
  const rules = authRules(deps.config);
  const later = installAfterAnswer(plain, deps.afterAnswer);

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
      const ctx = commandContext(req, clock, SYSTEM_SITE);
      const { email, firstName, lastName } = req.body;
      const invitation = { siteId: siteOf(req), email, role, firstName, lastName, inviterEmail: actorOf(req).email };
      const { answer, later: work } = await inviteToSite(deps, ctx, invitation);
      later(req, 'invitation', work);
      reply.status(202);
      return { data: answer };
    },
  );

  app.post(
    '/api/v1/auth/accept-invite',
    {
      config: { caller: 'public', site: false, secretAnswer: true },
      schema: {
        tags: ['auth'],
        summary: 'Accept an invitation (sets the password; answers a session)',
        body: AcceptBody,
        response: { 200: dataEnvelope(Session) },
      },
    },
    async (req, reply) => {
      await limitByIp(limiter, req, reply, 'accept-invite', rules.reset);
      const ctx = commandContext(req, clock, SYSTEM_SITE);
      const login = await acceptInvitation(deps, ctx, { ...req.body, client: clientOf(req) });
      return { data: withRefreshCookie(deps, reply, login) };
    },
  );
};
