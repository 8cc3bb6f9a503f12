import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { roleOn } from '../../../kernel/auth/actor.ts';
import { handleCommand, handleCommands, type StreamCommand } from '../../../kernel/es/handle-command.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { commandMeta } from '../../../kernel/http/command-meta.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import { seal } from '../../../kernel/privacy/pii.ts';
import { SYSTEM_SITE } from '../../../kernel/tenancy/site.ts';
import {
  findUserByEmail,
  findUserById,
  listMembers,
  type UserRow,
} from '../../../../projections/users/users.queries.ts';
import { roleIsKnown } from '../../access/index.ts';
import { checkPassword } from '../password-policy.ts';
import { newIdentityCommands } from '../identity.ts';
import { userDecider, type UserCommand } from '../user.decider.ts';
import { userStream } from '../user.events.ts';

export const Email = z.string().trim().toLowerCase().email().max(320);
const Name = z.string().trim().max(200);
export const RoleChoice = z
  .object({ roleId: z.string().min(1).max(64).optional(), roleKey: z.string().min(1).max(64).optional() })
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
    roleId: z.string().min(1).max(64).optional(),
    roleKey: z.string().min(1).max(64).optional(),
  })
  .strict();
const PatchBody = z
  .object({
    firstName: Name.nullable().optional(),
    lastName: Name.nullable().optional(),
    roleId: z.string().min(1).max(64).optional(),
    roleKey: z.string().min(1).max(64).optional(),
  })
  .strict();
const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(25),
  offset: z.coerce.number().int().min(0).default(0),
  role: z.string().max(64).optional(),
  search: z.string().max(200).optional(),
});
const IdParams = z.object({ id: z.string().min(1).max(64) });

const ADMINS = new Set(['admin']);

/** The role a body names (roleId or roleKey, exactly one), checked to exist on the site and to be grantable. */
export async function grantableRole(
  deps: AppDeps,
  req: FastifyRequest,
  body: { roleId?: string; roleKey?: string },
): Promise<string> {
  if ((body.roleId === undefined) === (body.roleKey === undefined))
    throw new DomainError('VALIDATION_FAILED', 'name exactly one of roleId and roleKey', { path: ['roleId'] });
  const role = (body.roleId ?? body.roleKey)!;
  const path = [body.roleId !== undefined ? 'roleId' : 'roleKey'];
  if (!(await roleIsKnown(deps, siteOf(req), role)))
    throw new DomainError('VALIDATION_FAILED', `role ${role} does not exist on this site`, { path });
  if (ADMINS.has(role) && roleOn(actorOf(req), siteOf(req)) !== 'admin')
    throw new DomainError('PERMISSION_DENIED', 'only an administrator may grant the admin role', { path });
  return role;
}

/** A member of the request's site that the caller may see (site admins never see instance admins), or 404. */
async function member(deps: AppDeps, req: FastifyRequest, id: string): Promise<UserRow & { role: string }> {
  const user = await findUserById(deps.db, id);
  const role = user?.roles[siteOf(req)];
  if (!user || !role || (user.instanceAdmin && !actorOf(req).instanceAdmin))
    throw new DomainError('NOT_FOUND', `user ${id} not found`);
  return { ...user, role };
}

/** Only an administrator changes an administrator; nobody changes their own role or membership. */
function mayManage(req: FastifyRequest, target: UserRow & { role: string }, what: string): void {
  if (target.userId === actorOf(req).id) throw new DomainError('PERMISSION_DENIED', `you cannot ${what} yourself`);
  if ((ADMINS.has(target.role) || target.instanceAdmin) && roleOn(actorOf(req), siteOf(req)) !== 'admin')
    throw new DomainError('PERMISSION_DENIED', `only an administrator may ${what} an administrator`);
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
 * The commands that make a new identity (email claim, user, membership) in one atomic append, or, for an address
 * that has an identity, just the membership.
 */
export async function identityCommands(
  deps: AppDeps,
  input: { email: string; password?: string; firstName?: string; lastName?: string; status: 'active' | 'invited' },
  siteId: string,
  role: string,
): Promise<{ userId: string; commands: StreamCommand[]; existing: UserRow | null }> {
  const now = deps.clock.now().toISOString();
  const existing = await findUserByEmail(deps.db, input.email);
  const grant = (userId: string): StreamCommand =>
    ({
      decider: userDecider,
      streamId: userStream(userId),
      command: { type: 'GrantSiteRole', data: { userId, siteId, role, now } } satisfies UserCommand,
    }) as unknown as StreamCommand;
  if (existing) return { userId: existing.userId, commands: [grant(existing.userId)], existing };
  const userId = newId();
  const commands = await newIdentityCommands(deps, { ...input, userId }, { siteId, role });
  return { userId, commands, existing: null };
}

/** Site admins manage the members of their site: list, create, read, change names and role, remove. */
export const usersRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { db, store, clock } = deps;
  const config = { caller: 'site-admin' as const };
  const tags = ['users'];
  const userCommand = (req: FastifyRequest, userId: string, command: UserCommand) =>
    handleCommand(store, userDecider, userStream(userId), command, {
      metadata: commandMeta(req, SYSTEM_SITE, clock.now()),
    });

  app.get('/api/v1/users', { config, schema: { tags, querystring: ListQuery } }, async (req) => {
    const { rows, total } = await listMembers(db, siteOf(req), {
      ...req.query,
      withInstanceAdmins: actorOf(req).instanceAdmin,
    });
    return {
      data: rows.map(({ instanceAdmin: _i, ...r }) => r),
      meta: { total, limit: req.query.limit, offset: req.query.offset },
    };
  });

  app.post('/api/v1/users', { config, schema: { tags, body: CreateBody } }, async (req, reply) => {
    const role = await grantableRole(deps, req, req.body);
    if (req.body.password) checkPassword(req.body.password, req.body.email);
    const { userId, commands, existing } = await identityCommands(
      deps,
      { ...req.body, status: 'active' },
      siteOf(req),
      role,
    );
    if (existing?.roles[siteOf(req)])
      throw new DomainError('CONFLICT', 'this address is already a member of the site', { path: ['email'] });
    await handleCommands(store, commands, { metadata: commandMeta(req, SYSTEM_SITE, clock.now()) });
    reply.status(201);
    return { data: view(await member(deps, req, userId)) };
  });

  app.get('/api/v1/users/:id', { config, schema: { tags, params: IdParams } }, async (req) => ({
    data: view(await member(deps, req, req.params.id)),
  }));

  app.patch('/api/v1/users/:id', { config, schema: { tags, params: IdParams, body: PatchBody } }, async (req) => {
    const target = await member(deps, req, req.params.id);
    const { firstName, lastName, roleId, roleKey } = req.body;
    const now = clock.now().toISOString();
    if (roleId !== undefined || roleKey !== undefined) {
      mayManage(req, target, 'change the role of');
      const role = await grantableRole(deps, req, { roleId, roleKey });
      await userCommand(req, target.userId, {
        type: 'GrantSiteRole',
        data: { userId: target.userId, siteId: siteOf(req), role, now },
      });
    }
    if (firstName !== undefined || lastName !== undefined) {
      if (target.userId !== actorOf(req).id) mayManage(req, target, 'rename');
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
  });

  app.delete('/api/v1/users/:id', { config, schema: { tags, params: IdParams } }, async (req, reply) => {
    const target = await member(deps, req, req.params.id);
    mayManage(req, target, 'remove');
    await userCommand(req, target.userId, {
      type: 'RevokeSiteRole',
      data: { userId: target.userId, siteId: siteOf(req), now: clock.now().toISOString() },
    });
    return reply.status(204).send();
  });
};
