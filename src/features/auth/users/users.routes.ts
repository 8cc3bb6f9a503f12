import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { RecordId } from '../../../kernel/safe/record-id.ts';
import { SYSTEM_SITE } from '../../../kernel/tenancy/site.ts';
import { listMembers } from '../../../../projections/users/index.ts';
import { revokeSiteRole } from '../user.commands.ts';
import { addMember, updateMember } from './member.commands.ts';
import { grantableRole, mayManage, mayRename, member, memberView } from './members.ts';
import { InvitationRecord, ListMeta, MemberListRow, MemberRecord } from './users.schemas.ts';

export const Email = z.string().trim().toLowerCase().email().max(320);
const Name = z.string().trim().max(200);
export const RoleChoice = z
  .object({ roleId: RecordId.optional(), roleKey: RecordId.optional() })
  .refine((b) => (b.roleId === undefined) !== (b.roleKey === undefined), {
    message: 'name exactly one of roleId and roleKey',
    path: ['roleId'],
  });
const CreateBody = z
  .object({
    email: Email,
    password: z.string().min(1).max(1024).optional(),
    firstName: Name.optional(),
    lastName: Name.optional(),
    roleId: RecordId.optional(),
    roleKey: RecordId.optional(),
  })
  .strict();
const PatchBody = z
  .object({
    firstName: Name.nullable().optional(),
    lastName: Name.nullable().optional(),
    roleId: RecordId.optional(),
    roleKey: RecordId.optional(),
  })
  .strict();
const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(25),
  offset: z.coerce.number().int().min(0).default(0),
  role: z.string().max(64).optional(),
  search: z.string().max(200).optional(),
});
const IdParams = z.object({ id: RecordId });

/**
 * Site admins manage the memberships of their site: list, add (a new account, or an invitation for an address
 * that has one), read, change the role, remove from the site. Names are the owner's (or an instance admin's).
 */
export const usersRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  memberListRoutes(plain, deps);
  memberRoutes(plain, deps);
};

/** The site's members: list them, add one. */
function memberListRoutes(plain: FastifyInstance, deps: AppDeps): void {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { db, clock } = deps;
  const config = { caller: 'site-admin' as const };
  const tags = ['users'];

  app.get(
    '/api/v1/users',
    {
      config,
      schema: {
        tags,
        summary: 'List the members of the site',
        querystring: ListQuery,
        response: { 200: listEnvelope(MemberListRow, ListMeta) },
      },
    },
    async (req) => {
      const { rows, total } = await listMembers(db, siteOf(req), {
        ...req.query,
        withInstanceAdmins: actorOf(req).instanceAdmin,
      });
      return {
        data: rows.map(({ instanceAdmin: _i, ...r }) => r),
        meta: { total, limit: req.query.limit, offset: req.query.offset },
      };
    },
  );

  app.post(
    '/api/v1/users',
    {
      config,
      schema: {
        tags,
        summary: 'Create a member (an existing account is invited instead: 202)',
        body: CreateBody,
        response: {
          201: dataEnvelope(MemberRecord, 'Created'),
          202: dataEnvelope(InvitationRecord, 'The address has an account: it was invited'),
        },
      },
    },
    async (req, reply) => {
      const role = await grantableRole(deps, req, req.body);
      const ctx = commandContext(req, clock, SYSTEM_SITE);
      const input = { ...req.body, role, siteId: siteOf(req), inviterEmail: actorOf(req).email };
      const added = await addMember(deps, ctx, input);
      if ('invitation' in added) {
        reply.status(202);
        return { data: added.invitation };
      }
      reply.status(201);
      return { data: memberView(await member(deps, req, added.userId)) };
    },
  );
}

/** One member: read, update (names, role), remove from the site. */
function memberRoutes(plain: FastifyInstance, deps: AppDeps): void {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { clock } = deps;
  const config = { caller: 'site-admin' as const };
  const tags = ['users'];

  app.get(
    '/api/v1/users/:id',
    {
      config,
      schema: { tags, summary: 'Read a member', params: IdParams, response: { 200: dataEnvelope(MemberRecord) } },
    },
    async (req) => ({
      data: memberView(await member(deps, req, req.params.id)),
    }),
  );

  app.patch(
    '/api/v1/users/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Update a member',
        params: IdParams,
        body: PatchBody,
        response: { 200: dataEnvelope(MemberRecord) },
      },
    },
    async (req) => {
      const target = await member(deps, req, req.params.id);
      const { firstName, lastName, roleId, roleKey } = req.body;
      // Checked before anything changes, so a refused rename changes no role either.
      if (firstName !== undefined || lastName !== undefined)
        mayRename(req, target, firstName !== undefined ? 'firstName' : 'lastName');
      const changesRole = roleId !== undefined || roleKey !== undefined;
      if (changesRole) mayManage(req, target, 'change the role of');
      const role = changesRole ? await grantableRole(deps, req, { roleId, roleKey }) : undefined;
      const ctx = commandContext(req, clock, SYSTEM_SITE);
      await updateMember(deps, ctx, { target, siteId: siteOf(req), role, firstName, lastName });
      return { data: memberView(await member(deps, req, target.userId)) };
    },
  );

  app.delete(
    '/api/v1/users/:id',
    {
      config,
      schema: { tags, summary: 'Remove a member from the site', params: IdParams, response: { 204: NoContent } },
    },
    async (req, reply) => {
      const target = await member(deps, req, req.params.id);
      mayManage(req, target, 'remove');
      const ctx = commandContext(req, clock, SYSTEM_SITE);
      await revokeSiteRole(deps, ctx, { userId: target.userId, siteId: siteOf(req) });
      return reply.status(204).send();
    },
  );
}
