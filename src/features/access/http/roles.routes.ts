import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { createRole, deleteRole, updateRole } from '../access.commands.ts';
import { SYSTEM_ROLES } from '../../../contracts/access/access.types.ts';
import { siteAccess } from '../site-access.ts';
import { IdParams, RoleBody, RolePatch, RoleRecord, Total } from './access.schemas.ts';
import { roleView } from './access.views.ts';

const config = { caller: 'site-admin' as const };
const tags = ['access'];

/** The system and custom roles of the request's site (site admins). */
export const rolesRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const state = async (siteId: string) => (await siteAccess(deps, siteId)).state;

  app.get(
    '/api/v1/roles',
    {
      config,
      schema: { summary: 'List roles (system and custom)', response: { 200: listEnvelope(RoleRecord, Total) }, tags },
    },
    async (req) => {
      const s = await state(siteOf(req));
      const ids = [...SYSTEM_ROLES, ...s.roles.keys()];
      return { data: ids.map((id) => roleView(s, id)), meta: { total: ids.length } };
    },
  );
  app.get(
    '/api/v1/roles/:id',
    { config, schema: { summary: 'Read a role', response: { 200: dataEnvelope(RoleRecord) }, tags, params: IdParams } },
    async (req) => ({ data: roleView(await state(siteOf(req)), req.params.id) }),
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
      const byInstanceAdmin = actorOf(req).instanceAdmin;
      const { id, state: s } = await createRole(deps, commandContext(req, deps.clock), {
        ...req.body,
        byInstanceAdmin,
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
      const input = { id: req.params.id, ...req.body, byInstanceAdmin: actorOf(req).instanceAdmin };
      return { data: roleView(await updateRole(deps, commandContext(req, deps.clock), input), req.params.id) };
    },
  );
  app.delete(
    '/api/v1/roles/:id',
    { config, schema: { summary: 'Delete a role', response: { 204: NoContent }, tags, params: IdParams } },
    async (req, reply) => {
      await deleteRole(deps, commandContext(req, deps.clock), { id: req.params.id });
      return reply.status(204).send();
    },
  );
};
