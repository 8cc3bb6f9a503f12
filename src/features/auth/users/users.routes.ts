import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { roleOn } from '../../../kernel/auth/actor.ts';
import { handleCommand, handleCommands } from '../../../kernel/es/handle-command.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { commandMeta } from '../../../kernel/http/command-meta.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { RecordId } from '../../../kernel/safe/record-id.ts';
import { newId } from '../../../kernel/ids.ts';
import { seal } from '../../../kernel/privacy/pii.ts';
import { SYSTEM_SITE } from '../../../kernel/tenancy/site.ts';
import { findUserByEmail, findUserById, listMembers, type UserRow } from '../../../../projections/users/index.ts';
import { roleIsKnown } from '../../access/index.ts';
import { checkPassword } from '../password-policy.ts';
import { newIdentityCommands } from '../identity.ts';
import { userDecider, type UserCommand } from '../user.decider.ts';
import { userStream } from '../user.events.ts';
import { dataEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { InvitationRecord, ListMeta, MemberListRow, MemberRecord } from './users.schemas.ts';
import { inviteToSite } from './site-invitations.ts';
import { UserNotFound } from '../auth.errors.ts';
import {
  AdminGrantDenied,
  AdminManagement,
  RenameDenied,
  RoleChoiceRequired,
  SelfManagement,
  UnknownRole,
} from './users.errors.ts';

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

const ADMINS = new Set(['admin']);

/** The role a body names (roleId or roleKey, exactly one), checked to exist on the site and to be grantable. */
export async function grantableRole(
  deps: AppDeps,
  req: FastifyRequest,
  body: { roleId?: string; roleKey?: string },
): Promise<string> {
  if ((body.roleId === undefined) === (body.roleKey === undefined)) throw new RoleChoiceRequired();
  const role = (body.roleId ?? body.roleKey)!;
  const path = [body.roleId !== undefined ? 'roleId' : 'roleKey'];
  if (!(await roleIsKnown(deps, siteOf(req), role))) throw new UnknownRole({ role, path });
  if (ADMINS.has(role) && roleOn(actorOf(req), siteOf(req)) !== 'admin') throw new AdminGrantDenied({ path });
  return role;
}

/** A member of the request's site that the caller may see (site admins never see instance admins), or 404. */
async function member(deps: AppDeps, req: FastifyRequest, id: string): Promise<UserRow & { role: string }> {
  const user = await findUserById(deps.db, id);
  const role = user?.roles[siteOf(req)];
  if (!user || !role || (user.instanceAdmin && !actorOf(req).instanceAdmin)) throw new UserNotFound({ userId: id });
  return { ...user, role };
}

/** Only an administrator changes an administrator; nobody changes their own role or membership. */
function mayManage(req: FastifyRequest, target: UserRow & { role: string }, what: string): void {
  if (target.userId === actorOf(req).id) throw new SelfManagement({ what });
  if ((ADMINS.has(target.role) || target.instanceAdmin) && roleOn(actorOf(req), siteOf(req)) !== 'admin')
    throw new AdminManagement({ what });
}

/**
 * Names belong to the account, which may be a member of other sites too: only its owner or an instance
 * administrator changes them. A site admin manages the membership (role, removal), nothing global.
 */
function mayRename(req: FastifyRequest, target: UserRow, field: 'firstName' | 'lastName'): void {
  if (target.userId === actorOf(req).id || actorOf(req).instanceAdmin) return;
  throw new RenameDenied({ field });
}

const view = (u: UserRow & { role: string }) => ({
  id: u.userId,
  email: u.email,
  firstName: u.firstName,
  lastName: u.lastName,
  role: u.role,
  status: u.status,
});

/**
 * Creates an account for a new address, a member of the request's site at once; returns null when the address
 * has an account (of any site, or taken a moment ago): that becomes an invitation its owner accepts.
 */
async function createMember(
  deps: AppDeps,
  req: FastifyRequest,
  input: { email: string; password?: string; firstName?: string; lastName?: string },
  role: string,
): Promise<string | null> {
  if (await findUserByEmail(deps.db, input.email)) return null;
  const userId = newId();
  try {
    const commands = await newIdentityCommands(
      deps,
      { ...input, userId, status: 'active' },
      { siteId: siteOf(req), role },
    );
    await handleCommands(deps.store, commands, { metadata: commandMeta(req, SYSTEM_SITE, deps.clock.now()) });
    return userId;
  } catch (err) {
    if (err instanceof DomainError && err.code === 'CONFLICT') return null;
    throw err;
  }
}

/**
 * Site admins manage the memberships of their site: list, add (a new account, or an invitation for an address
 * that has one), read, change the role, remove from the site. Names are the owner's (or an instance admin's).
 */
export const usersRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { db, store, clock } = deps;
  const config = { caller: 'site-admin' as const };
  const tags = ['users'];
  const userCommand = (req: FastifyRequest, userId: string, command: UserCommand) =>
    handleCommand(store, userDecider, userStream(userId), command, {
      metadata: commandMeta(req, SYSTEM_SITE, clock.now()),
    });

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
      if (req.body.password) checkPassword(req.body.password, req.body.email);
      const userId = await createMember(deps, req, req.body, role);
      if (!userId) {
        // An existing account is never attached: its owner is invited, and the answer is an invitation's.
        reply.status(202);
        return { data: await inviteToSite(deps, req, { email: req.body.email, role }) };
      }
      reply.status(201);
      return { data: view(await member(deps, req, userId)) };
    },
  );

  app.get(
    '/api/v1/users/:id',
    {
      config,
      schema: { tags, summary: 'Read a member', params: IdParams, response: { 200: dataEnvelope(MemberRecord) } },
    },
    async (req) => ({
      data: view(await member(deps, req, req.params.id)),
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
      const now = clock.now().toISOString();
      const renames = firstName !== undefined || lastName !== undefined;
      // Checked before anything changes, so a refused rename changes no role either.
      if (renames) mayRename(req, target, firstName !== undefined ? 'firstName' : 'lastName');
      if (roleId !== undefined || roleKey !== undefined) {
        mayManage(req, target, 'change the role of');
        const role = await grantableRole(deps, req, { roleId, roleKey });
        await userCommand(req, target.userId, {
          type: 'GrantSiteRole',
          data: { userId: target.userId, siteId: siteOf(req), role, now },
        });
      }
      if (renames) {
        const keep = (given: string | null | undefined, old: string | null) => (given === undefined ? old : given);
        const sealed = async (v: string | null) => (v ? seal(db, target.userId, v) : null);
        await userCommand(req, target.userId, {
          type: 'ChangeProfile',
          data: {
            userId: target.userId,
            firstName: await sealed(keep(firstName, target.firstName)),
            lastName: await sealed(keep(lastName, target.lastName)),
            now,
          },
        });
      }
      return { data: view(await member(deps, req, target.userId)) };
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
      await userCommand(req, target.userId, {
        type: 'RevokeSiteRole',
        data: { userId: target.userId, siteId: siteOf(req), now: clock.now().toISOString() },
      });
      return reply.status(204).send();
    },
  );
};
