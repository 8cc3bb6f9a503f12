import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope, NoContent, wholeList } from '../../../kernel/http/envelope.ts';
import { changeAccess } from '../access.commands.ts';
import type { AttachTarget } from '../../../contracts/access/access.types.ts';
import { addPermission, attachPolicy, createPolicy } from '../policy.commands.ts';
import { siteAccess } from '../site-access.ts';
import {
  AttachBody,
  IdParams,
  PermissionBody,
  PermissionParams,
  PermissionRecord,
  PolicyBody,
  PolicyPatch,
  PolicyRecord,
  Total,
} from './access.schemas.ts';
import { policyView } from './access.views.ts';

const config = { caller: 'site-admin' as const };
const tags = ['access'];

/** The one target an attach body names. */
const targetOf = (b: z.infer<typeof AttachBody>): AttachTarget =>
  b.role ? { kind: 'role', id: b.role } : b.user ? { kind: 'user', id: b.user } : { kind: 'team', id: b.team! };

/** Policies of the request's site, their rules and attachments (site admins). */
export const policiesRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const state = async (siteId: string) => (await siteAccess(deps, siteId)).state;

  app.get(
    '/api/v1/policies',
    { config, schema: { summary: 'List policies', response: { 200: listEnvelope(PolicyRecord, Total) }, tags } },
    async (req) => {
      const s = await state(siteOf(req));
      return { data: [...s.policies.keys()].map((id) => policyView(s, id)), meta: { total: s.policies.size } };
    },
  );
  app.get(
    '/api/v1/policies/:id',
    {
      config,
      schema: { summary: 'Read a policy', response: { 200: dataEnvelope(PolicyRecord) }, tags, params: IdParams },
    },
    async (req) => ({ data: policyView(await state(siteOf(req)), req.params.id) }),
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
      const { id, state: s } = await createPolicy(deps, commandContext(req, deps.clock), req.body);
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
    async (req) => {
      const s = await changeAccess(deps, commandContext(req, deps.clock), 'UpdatePolicy', {
        id: req.params.id,
        changes: req.body,
      });
      return { data: policyView(s, req.params.id) };
    },
  );
  app.delete(
    '/api/v1/policies/:id',
    { config, schema: { summary: 'Delete a policy', response: { 204: NoContent }, tags, params: IdParams } },
    async (req, reply) => {
      await changeAccess(deps, commandContext(req, deps.clock), 'DeletePolicy', { id: req.params.id });
      return reply.status(204).send();
    },
  );
  app.get(
    '/api/v1/policies/:id/permissions',
    {
      config,
      schema: {
        summary: 'List the rules of a policy',
        response: { 200: listEnvelope(PermissionRecord, Total) },
        tags,
        params: IdParams,
      },
    },
    async (req) => wholeList(policyView(await state(siteOf(req)), req.params.id).permissions),
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
      const permission = await addPermission(deps, commandContext(req, deps.clock), {
        policyId: req.params.id,
        rule: req.body,
      });
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
      const { id: policyId, permissionId } = req.params;
      await changeAccess(deps, commandContext(req, deps.clock), 'RemovePermission', { policyId, permissionId });
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
        const input = { policyId: req.params.id, target: targetOf(req.body), detach: verb === 'detach' };
        return { data: policyView(await attachPolicy(deps, commandContext(req, deps.clock), input), req.params.id) };
      },
    );
  }
};
