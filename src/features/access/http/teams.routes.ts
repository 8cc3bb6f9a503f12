import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { changeAccess, createTeam, updateTeam } from '../access.commands.ts';
import { siteAccess } from '../site-access.ts';
import { IdParams, TeamBody, TeamPatch, TeamRecord, Total } from './access.schemas.ts';
import { teamView } from './access.views.ts';

const config = { caller: 'site-admin' as const };
const tags = ['access'];

/** Teams of the request's site and their members (site admins). */
export const teamsRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const state = async (siteId: string) => (await siteAccess(deps, siteId)).state;

  app.get(
    '/api/v1/teams',
    { config, schema: { summary: 'List teams', response: { 200: listEnvelope(TeamRecord, Total) }, tags } },
    async (req) => {
      const s = await state(siteOf(req));
      return { data: [...s.teams.keys()].map((id) => teamView(s, id)), meta: { total: s.teams.size } };
    },
  );
  app.get(
    '/api/v1/teams/:id',
    { config, schema: { summary: 'Read a team', response: { 200: dataEnvelope(TeamRecord) }, tags, params: IdParams } },
    async (req) => ({ data: teamView(await state(siteOf(req)), req.params.id) }),
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
      const { id, state: s } = await createTeam(deps, commandContext(req, deps.clock), req.body);
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
      const s = await updateTeam(deps, commandContext(req, deps.clock), { id: req.params.id, ...req.body });
      return { data: teamView(s, req.params.id) };
    },
  );
  app.delete(
    '/api/v1/teams/:id',
    { config, schema: { summary: 'Delete a team', response: { 204: NoContent }, tags, params: IdParams } },
    async (req, reply) => {
      await changeAccess(deps, commandContext(req, deps.clock), 'DeleteTeam', { id: req.params.id });
      return reply.status(204).send();
    },
  );
};
