import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { roleOn } from '../../../kernel/auth/actor.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { listOutbox } from '../../../platform/mail/outbox.ts';
import { findUserById, type UserRow } from '../../../../projections/users/index.ts';
import { findSessionOwner, liveSessions } from '../../../../projections/sessions/index.ts';
import { dataEnvelope, listEnvelope, TotalMeta, wholeList } from '../../../kernel/http/envelope.ts';
import { OutboxEntry, SessionRecord } from './auth.schemas.ts';
import { revokeSession } from '../session.commands.ts';
import { SYSTEM_SITE } from '../../../kernel/tenancy/site.ts';
import { SessionNotFound, SessionsOfOtherSites, UserNotFound } from '../auth.errors.ts';
import { requireRank } from '../users/members.ts';
import { pathId } from '../../../kernel/http/path-params.ts';

const Id = z.object({ id: pathId(64) });
const OutboxQuery = z.object({
  to: z.string().max(320).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/**
 * Sessions are the account's, not a site's: one session reaches every site of the account. So a site admin sees
 * and ends the sessions of members whose only site is theirs; an account that belongs to other sites too is its
 * owner's and the instance admin's to manage (403). Anyone else's session is as unknown as a missing one. Managing
 * a person's sessions needs a rank at least theirs, as changing their role does (`requireRank`).
 */
export const adminSessionsRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { db, clock } = deps;

  const memberOfSite = async (userId: string, siteId: string, callerIsInstanceAdmin: boolean) => {
    const user = await findUserById(db, userId);
    if (!user || !user.roles[siteId]) return null;
    if (user.instanceAdmin && !callerIsInstanceAdmin) return null;
    return user;
  };
  const mayManageSessions = (req: FastifyRequest, user: UserRow) => {
    requireRank(req, { role: user.roles[siteOf(req)]!, instanceAdmin: user.instanceAdmin }, 'manage the sessions of');
    if (req.actor!.instanceAdmin || Object.keys(user.roles).length === 1) return;
    throw new SessionsOfOtherSites();
  };

  app.get(
    '/api/v1/users/:id/sessions',
    {
      config: { caller: 'site-admin' },
      schema: {
        params: Id,
        tags: ['users'],
        summary: "List a user's live sessions",
        response: { 200: listEnvelope(SessionRecord, TotalMeta) },
      },
    },
    async (req) => {
      const user = await memberOfSite(req.params.id, siteOf(req), req.actor!.instanceAdmin);
      if (!user) throw new UserNotFound({ userId: req.params.id });
      mayManageSessions(req, user);
      return wholeList(await liveSessions(db, user.userId, clock.now()));
    },
  );

  app.delete(
    '/api/v1/sessions/:id',
    {
      config: { caller: 'site-admin' },
      schema: {
        params: Id,
        tags: ['users'],
        summary: 'Revoke a session',
        response: { 200: dataEnvelope(z.object({ id: z.string(), revoked: z.boolean() })) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      const owner = await findSessionOwner(db, req.params.id);
      const user = owner ? await memberOfSite(owner, siteId, req.actor!.instanceAdmin) : null;
      if (!user || !roleOn(req.actor!, siteId)) throw new SessionNotFound({ sessionId: req.params.id });
      mayManageSessions(req, user);
      const ctx = commandContext(req, clock, SYSTEM_SITE);
      await revokeSession(deps, ctx, { sessionId: req.params.id, reason: 'admin', by: req.actor!.id });
      return { data: { id: req.params.id, revoked: true } };
    },
  );

  app.get(
    '/api/v1/admin/outbox',
    {
      config: { caller: 'admin', site: false },
      schema: {
        querystring: OutboxQuery,
        tags: ['admin'],
        summary: 'List outgoing mail (instance admins)',
        response: { 200: listEnvelope(OutboxEntry, TotalMeta, 'Queued mail, newest first') },
      },
    },
    async (req) => wholeList(await listOutbox(db, req.query)),
  );
};
