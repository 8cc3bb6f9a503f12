import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { handleCommand, handleCommands } from '../../../kernel/es/handle-command.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { commandMeta } from '../../../kernel/http/command-meta.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { queueMail } from '../../../kernel/mail/outbox.ts';
import { seal } from '../../../kernel/privacy/pii.ts';
import { SYSTEM_SITE } from '../../../kernel/tenancy/site.ts';
import { findSite } from '../../../../projections/sites/sites.queries.ts';
import { findUserById } from '../../../../projections/users/users.queries.ts';
import { publicUrl } from '../account-mails.ts';
import { consumePasswordLink } from '../identity.ts';
import { startSession } from '../sessions.ts';
import { userDecider } from '../user.decider.ts';
import { userStream } from '../user.events.ts';
import { Email, grantableRole, identityCommands } from './users.routes.ts';

const INVITE_TTL_S = 7 * 24 * 3600;
const InviteBody = z
  .object({
    email: Email,
    roleId: z.string().min(1).max(64).optional(),
    roleKey: z.string().min(1).max(64).optional(),
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
 * Invitations: a site admin adds an address to the site with a role. A new address gets an identity in state
 * `invited` and a seven-day link (a single-purpose token naming the password version, so it works once); it
 * signs in after setting its password at POST /auth/accept-invite. An address that already has an account is
 * just added and told by mail.
 */
export const inviteRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { db, store, clock, tokens } = deps;

  app.post(
    '/api/v1/users/invite',
    { config: { caller: 'site-admin' }, schema: { tags: ['users'], body: InviteBody } },
    async (req, reply) => {
      const siteId = siteOf(req);
      const role = await grantableRole(deps, req, req.body);
      const { userId, commands, existing } = await identityCommands(
        deps,
        { ...req.body, status: 'invited' },
        siteId,
        role,
      );
      if (existing?.roles[siteId])
        throw new DomainError('CONFLICT', 'this address is already a member of the site', { path: ['email'] });
      await handleCommands(store, commands, { metadata: commandMeta(req, SYSTEM_SITE, clock.now()) });
      const user = (await findUserById(db, userId))!;
      const site = (await findSite(db, siteId))!;
      const inviter = actorOf(req).email || 'an administrator';
      // A link whenever the account has no password yet (new, or created by an admin without one).
      const link =
        user.status === 'invited' || !user.passwordHash
          ? `Accept within 7 days and choose your password: ${publicUrl(deps)}/accept-invite?token=${await tokens.issuePurpose(
              'invite',
              userId,
              { pv: user.passwordVersion },
              INVITE_TTL_S,
            )}`
          : 'Sign in with your existing account to find it.';
      await queueMail(db, {
        siteId,
        to: req.body.email,
        kind: 'invite',
        subject: `You are invited to ${site.name}`,
        body: `${inviter} added you to ${site.name} as ${role}.\n\n${link}\n`,
      });
      reply.status(202);
      return { data: { id: userId, email: req.body.email, role, status: user.status } };
    },
  );

  app.post(
    '/api/v1/auth/accept-invite',
    { config: { caller: 'public', site: false }, schema: { tags: ['auth'], body: AcceptBody } },
    async (req, reply) => {
      const metadata = (userId: string) => ({
        ...commandMeta(req, SYSTEM_SITE, clock.now()),
        actor: { type: 'user' as const, id: userId },
      });
      const user = await consumePasswordLink(deps, 'invite', req.body.token, req.body.password, metadata);
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
