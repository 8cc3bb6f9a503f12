import { own } from '../../../kernel/safe/keys.ts';
import { RESOURCES } from '../../../kernel/auth/authorizer.ts';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { handleCommand } from '../../../kernel/es/handle-command.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { commandMeta } from '../../../kernel/http/command-meta.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import { withSite } from '../../../kernel/tenancy/site.ts';
import { countRoleHolders, findUserById } from '../../../../projections/users/index.ts';
import { type SiteSchema } from '../../../../projections/item-documents/index.ts';
import { compileFilter, rootScope } from '../../../../projections/item-documents/index.ts';
import { accessDecider, type AccessCommand, type AccessState } from '../access.decider.ts';
import { accessStream } from '../access.events.ts';
import { SYSTEM_ROLES, type PermissionDef } from '../access.types.ts';
import { fillVars, ruleVars } from '../effective.ts';
import { siteAccess } from '../site-access.ts';
import { z } from 'zod';
import { dataEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import {
  AttachBody,
  IdParams,
  PermissionBody,
  PermissionParams,
  PolicyBody,
  PolicyPatch,
  RoleBody,
  RolePatch,
  TeamBody,
  TeamPatch,
  PermissionRecord,
  PolicyRecord,
  RoleRecord,
  TeamRecord,
  Total,
} from './access.schemas.ts';

const AUDIT = new Set(['id', 'created_at', 'created_by', 'updated_at', 'updated_by', 'status', 'sort']);
const bad = (message: string, path: string[]) => new DomainError('VALIDATION_FAILED', message, { path });
type Cmd<T extends AccessCommand['type']> = Omit<Extract<AccessCommand, { type: T }>['data'], 'now'>;

/** Roles, policies with their rules, attachments and teams of the request's site (site admins). */
export const accessRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { db, store, clock } = deps;
  const config = { caller: 'site-admin' as const };
  const tags = ['access'];

  const state = async (req: FastifyRequest): Promise<AccessState> => (await siteAccess(deps, siteOf(req))).state;
  const send = async <T extends AccessCommand['type']>(req: FastifyRequest, type: T, data: Cmd<T>) => {
    const now = clock.now();
    const command = { type, data: { ...data, now: now.toISOString() } } as unknown as AccessCommand;
    const res = await handleCommand(store, accessDecider, accessStream(siteOf(req)), command, {
      metadata: commandMeta(req, siteOf(req), now),
    });
    return res.state;
  };
  const schemaOf = (req: FastifyRequest) => deps.schemas.read(siteOf(req));
  const memberOf = async (req: FastifyRequest, userId: string, path: string[]) => {
    const user = await findUserById(db, userId);
    if (!(user ? own(user.roles, siteOf(req)) : undefined))
      throw bad(`user ${userId} is not a member of this site`, path);
  };
  /** Only an instance admin may make a role that inherits admin's powers. */
  const mayInheritFrom = (req: FastifyRequest, parentId: string | null | undefined) => {
    if (parentId === 'admin' && !actorOf(req).instanceAdmin)
      throw new DomainError('PERMISSION_DENIED', 'only an administrator may create roles under admin', {
        path: ['parentId'],
      });
  };

  const roleView = (s: AccessState, id: string) => {
    if ((SYSTEM_ROLES as readonly string[]).includes(id))
      return { id, name: id, description: null, parentId: null, system: true, policies: policiesOf(s, 'role', id) };
    const r = s.roles.get(id);
    if (!r) throw new DomainError('NOT_FOUND', `role ${id} not found`);
    return { ...r, system: false, policies: policiesOf(s, 'role', id) };
  };
  const policiesOf = (s: AccessState, kind: 'role' | 'user' | 'team', id: string) =>
    s.attachments.filter((a) => a.target.kind === kind && a.target.id === id).map((a) => a.policyId);

  // Roles
  app.get(
    '/api/v1/roles',
    {
      config,
      schema: { summary: 'List roles (system and custom)', response: { 200: listEnvelope(RoleRecord, Total) }, tags },
    },
    async (req) => {
      const s = await state(req);
      const ids = [...SYSTEM_ROLES, ...s.roles.keys()];
      return { data: ids.map((id) => roleView(s, id)), meta: { total: ids.length } };
    },
  );
  app.get(
    '/api/v1/roles/:id',
    { config, schema: { summary: 'Read a role', response: { 200: dataEnvelope(RoleRecord) }, tags, params: IdParams } },
    async (req) => ({
      data: roleView(await state(req), req.params.id),
    }),
  );
  app.post(
    '/api/v1/roles',
    {
      config,
      schema: {
        summary: 'Create a role',
        response: { 201: dataEnvelope(RoleRecord, 'Created') },
        tags,
        body: RoleBody,
      },
    },
    async (req, reply) => {
      mayInheritFrom(req, req.body.parentId);
      const id = newId();
      const s = await send(req, 'CreateRole', {
        id,
        name: req.body.name,
        description: req.body.description ?? null,
        parentId: req.body.parentId ?? null,
      });
      reply.status(201);
      return { data: roleView(s, id) };
    },
  );
  app.patch(
    '/api/v1/roles/:id',
    {
      config,
      schema: {
        summary: 'Update a role',
        response: { 200: dataEnvelope(RoleRecord) },
        tags,
        params: IdParams,
        body: RolePatch,
      },
    },
    async (req) => {
      mayInheritFrom(req, req.body.parentId);
      const s = await send(req, 'UpdateRole', { id: req.params.id, changes: req.body });
      return { data: roleView(s, req.params.id) };
    },
  );
  app.delete(
    '/api/v1/roles/:id',
    { config, schema: { summary: 'Delete a role', response: { 204: NoContent }, tags, params: IdParams } },
    async (req, reply) => {
      const site = siteOf(req);
      const holders = await withSite(db, site, (trx) => countRoleHolders(trx, site, req.params.id));
      if (holders > 0) throw new DomainError('CONFLICT', `role ${req.params.id} is held by ${holders} user(s)`);
      await send(req, 'DeleteRole', { id: req.params.id });
      return reply.status(204).send();
    },
  );

  // Policies and their rules
  const policyView = (s: AccessState, id: string) => {
    const p = s.policies.get(id);
    if (!p) throw new DomainError('NOT_FOUND', `policy ${id} not found`);
    return { ...p, attachedTo: s.attachments.filter((a) => a.policyId === id).map((a) => a.target) };
  };
  app.get(
    '/api/v1/policies',
    { config, schema: { summary: 'List policies', response: { 200: listEnvelope(PolicyRecord, Total) }, tags } },
    async (req) => {
      const s = await state(req);
      return {
        data: [...s.policies.keys()].map((id) => policyView(s, id)),
        meta: { total: s.policies.size },
      };
    },
  );
  app.get(
    '/api/v1/policies/:id',
    {
      config,
      schema: { summary: 'Read a policy', response: { 200: dataEnvelope(PolicyRecord) }, tags, params: IdParams },
    },
    async (req) => ({
      data: policyView(await state(req), req.params.id),
    }),
  );
  app.post(
    '/api/v1/policies',
    {
      config,
      schema: {
        summary: 'Create a policy',
        response: { 201: dataEnvelope(PolicyRecord, 'Created') },
        tags,
        body: PolicyBody,
      },
    },
    async (req, reply) => {
      const id = newId();
      const s = await send(req, 'CreatePolicy', {
        id,
        name: req.body.name,
        description: req.body.description ?? null,
        requireMfa: req.body.requireMfa ?? false,
      });
      reply.status(201);
      return { data: policyView(s, id) };
    },
  );
  app.patch(
    '/api/v1/policies/:id',
    {
      config,
      schema: {
        summary: 'Update a policy',
        response: { 200: dataEnvelope(PolicyRecord) },
        tags,
        params: IdParams,
        body: PolicyPatch,
      },
    },
    async (req) => ({
      data: policyView(await send(req, 'UpdatePolicy', { id: req.params.id, changes: req.body }), req.params.id),
    }),
  );
  app.delete(
    '/api/v1/policies/:id',
    { config, schema: { summary: 'Delete a policy', response: { 204: NoContent }, tags, params: IdParams } },
    async (req, reply) => {
      await send(req, 'DeletePolicy', { id: req.params.id });
      return reply.status(204).send();
    },
  );
  app.get(
    '/api/v1/policies/:id/permissions',
    {
      config,
      schema: {
        summary: 'List the rules of a policy',
        response: { 200: dataEnvelope(z.array(PermissionRecord)) },
        tags,
        params: IdParams,
      },
    },
    async (req) => ({
      data: policyView(await state(req), req.params.id).permissions,
    }),
  );
  app.post(
    '/api/v1/policies/:id/permissions',
    {
      config,
      schema: {
        summary: 'Add a rule to a policy',
        response: { 201: dataEnvelope(PermissionRecord, 'Created') },
        tags,
        params: IdParams,
        body: PermissionBody,
      },
    },
    async (req, reply) => {
      const permission: PermissionDef = { id: newId(), ...req.body };
      policyView(await state(req), req.params.id);
      checkRule(await schemaOf(req), permission, clock.now());
      await send(req, 'AddPermission', { policyId: req.params.id, permission });
      reply.status(201);
      return { data: permission };
    },
  );
  app.delete(
    '/api/v1/policies/:id/permissions/:permissionId',
    {
      config,
      schema: { summary: 'Remove a rule from a policy', response: { 204: NoContent }, tags, params: PermissionParams },
    },
    async (req, reply) => {
      await send(req, 'RemovePermission', { policyId: req.params.id, permissionId: req.params.permissionId });
      return reply.status(204).send();
    },
  );
  for (const verb of ['attach', 'detach'] as const) {
    app.post(
      `/api/v1/policies/:id/${verb}`,
      {
        config,
        schema: {
          tags,
          summary: verb === 'attach' ? 'Attach a policy to a role, a user or a team' : 'Detach a policy',
          params: IdParams,
          body: AttachBody,
          response: { 200: dataEnvelope(PolicyRecord) },
        },
      },
      async (req) => {
        const b = req.body;
        const target = b.role
          ? { kind: 'role' as const, id: b.role }
          : b.user
            ? { kind: 'user' as const, id: b.user }
            : { kind: 'team' as const, id: b.team! };
        if (target.kind === 'user' && verb === 'attach') await memberOf(req, target.id, ['user']);
        const s = await send(req, verb === 'attach' ? 'AttachPolicy' : 'DetachPolicy', {
          policyId: req.params.id,
          target,
        });
        return { data: policyView(s, req.params.id) };
      },
    );
  }

  // Teams
  const teamView = (s: AccessState, id: string) => {
    const t = s.teams.get(id);
    if (!t) throw new DomainError('NOT_FOUND', `team ${id} not found`);
    return { ...t, policies: policiesOf(s, 'team', id) };
  };
  app.get(
    '/api/v1/teams',
    { config, schema: { summary: 'List teams', response: { 200: listEnvelope(TeamRecord, Total) }, tags } },
    async (req) => {
      const s = await state(req);
      return { data: [...s.teams.keys()].map((id) => teamView(s, id)), meta: { total: s.teams.size } };
    },
  );
  app.get(
    '/api/v1/teams/:id',
    { config, schema: { summary: 'Read a team', response: { 200: dataEnvelope(TeamRecord) }, tags, params: IdParams } },
    async (req) => ({
      data: teamView(await state(req), req.params.id),
    }),
  );
  app.post(
    '/api/v1/teams',
    {
      config,
      schema: {
        summary: 'Create a team',
        response: { 201: dataEnvelope(TeamRecord, 'Created') },
        tags,
        body: TeamBody,
      },
    },
    async (req, reply) => {
      for (const [i, m] of req.body.members.entries()) await memberOf(req, m, ['members', String(i)]);
      const id = newId();
      let s = await send(req, 'CreateTeam', { id, name: req.body.name });
      for (const m of req.body.members) s = await send(req, 'AddTeamMember', { teamId: id, userId: m });
      reply.status(201);
      return { data: teamView(s, id) };
    },
  );
  app.patch(
    '/api/v1/teams/:id',
    {
      config,
      schema: {
        summary: 'Update a team',
        response: { 200: dataEnvelope(TeamRecord) },
        tags,
        params: IdParams,
        body: TeamPatch,
      },
    },
    async (req) => {
      const { id } = req.params;
      for (const [i, m] of req.body.addMembers.entries()) await memberOf(req, m, ['addMembers', String(i)]);
      let s = await state(req);
      teamView(s, id);
      if (req.body.name !== undefined) s = await send(req, 'UpdateTeam', { id, name: req.body.name });
      for (const m of req.body.addMembers) s = await send(req, 'AddTeamMember', { teamId: id, userId: m });
      for (const m of req.body.removeMembers) s = await send(req, 'RemoveTeamMember', { teamId: id, userId: m });
      return { data: teamView(s, id) };
    },
  );
  app.delete(
    '/api/v1/teams/:id',
    { config, schema: { summary: 'Delete a team', response: { 204: NoContent }, tags, params: IdParams } },
    async (req, reply) => {
      await send(req, 'DeleteTeam', { id: req.params.id });
      return reply.status(204).send();
    },
  );
};

/**
 * A rule must name a known collection (`*` for all, `media` for files, `_pages` for pages) and its fields, and its conditions and
 * validation must compile as filters of that collection (variables stand in as values). 400 otherwise.
 */
export function checkRule(schema: SiteSchema, rule: PermissionDef, now: Date): void {
  const { collection } = rule;
  if (collection === RESOURCES.media || collection === RESOURCES.pages) {
    if (rule.action === 'share') throw bad(`${collection} permissions are create, read, update and delete`, ['action']);
    // Pages are granted whole: a condition or field list there would be believed and not enforced.
    if (collection === RESOURCES.pages)
      for (const part of ['conditions', 'validation', 'presets'] as const)
        if (rule[part] && Object.keys(rule[part]).length) throw bad(`${collection} rules take no ${part}`, [part]);
    if (collection === RESOURCES.pages && !(rule.fields.length === 1 && rule.fields[0] === '*'))
      throw bad(`${collection} rules cover every field: fields must be ["*"]`, ['fields']);
    return;
  }
  const collections = collection === '*' ? [...schema.collections.keys()] : [collection];
  if (collection !== '*' && !schema.collections.has(collection))
    throw bad(`collection ${collection} does not exist`, ['collection']);
  const sample = ruleVars('user', 'role', now);
  for (const c of collections) {
    const fields = schema.fields.get(c) ?? new Map();
    rule.fields.forEach((f, i) => {
      if (f !== '*' && !fields.has(f) && !AUDIT.has(f)) throw bad(`${c} has no field ${f}`, ['fields', String(i)]);
    });
    for (const key of Object.keys(rule.presets ?? {}))
      if (!fields.has(key) && key !== 'status' && key !== 'sort')
        throw bad(`${c} has no field ${key}`, ['presets', key]);
    for (const part of ['conditions', 'validation'] as const) {
      const f = rule[part];
      if (!f) continue;
      try {
        compileFilter(fillVars(f, sample) as Record<string, unknown>, rootScope(schema, c));
      } catch (err) {
        if (err instanceof DomainError)
          throw bad(`${part}: ${err.message}`, [part, ...(err.options.path ?? []).slice(1)]);
        throw err;
      }
    }
  }
}
