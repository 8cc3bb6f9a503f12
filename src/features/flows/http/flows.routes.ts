import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { findFlow, listFlows } from '../../../../projections/flows/index.ts';
import {
  createFlow,
  deleteFlow,
  flowAt,
  flowRevisions,
  liveFlow,
  rotateFlowToken,
  updateFlow,
} from '../flow.commands.ts';
import { FlowNotFound } from '../flow.errors.ts';
import { flowGuard } from '../flow.guard.ts';
import { OPERATIONS } from '../operations/registry.ts';
import {
  FlowCreateBody,
  FlowDetailQuery,
  FlowListMeta,
  FlowListQuery,
  FlowParams,
  FlowPatchBody,
  FlowRecordBody,
  FlowRevisionBody,
  FlowTokenBody,
  OperationBody,
  RevisionListMeta,
  RevisionQuery,
} from './flows.schemas.ts';
import { parseAsOf } from './flow-time.ts';

const BASE = '/api/v1/flows';
const SITE_ADMIN = { caller: 'site-admin' as const };
const tags = ['flows'];

/** Flows of the request's site: defined and changed by its administrators (the authorizer's answer). */
export const flowsRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const guard = flowGuard(deps);
  const operations = [...OPERATIONS.values()].map((s) => ({
    key: s.key,
    hint: s.hint,
    edges: [...s.edges],
    options: z.toJSONSchema(s.options, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
  }));
  const live = async (req: FastifyRequest, id: string) => {
    guard.manage(req);
    const flow = await liveFlow(deps.store, siteOf(req), id);
    await guard.mayChange(req, flow.definition.runAs);
    return flow;
  };

  app.get(
    `${BASE}/operations`,
    {
      config: SITE_ADMIN,
      schema: {
        tags,
        summary: 'Operations a flow node may name, with their options',
        response: { 200: listEnvelope(OperationBody, z.object({ total: z.number().int() })) },
      },
    },
    async (req) => {
      guard.manage(req);
      return { data: operations, meta: { total: operations.length } };
    },
  );

  app.get(
    BASE,
    {
      config: SITE_ADMIN,
      schema: {
        tags,
        summary: 'List flows (filter by status and trigger)',
        querystring: FlowListQuery,
        response: { 200: listEnvelope(FlowRecordBody, FlowListMeta) },
      },
    },
    async (req) => {
      guard.manage(req);
      const siteId = siteOf(req);
      const { status, trigger, sort, page, limit } = req.query;
      const descending = sort.startsWith('-');
      const o = { sort: (descending ? sort.slice(1) : sort) as 'name', descending, limit, offset: (page - 1) * limit };
      const { rows, total } = await readAsSite(deps.db, siteId, (trx) =>
        listFlows(trx, siteId, { ...o, ...(status ? { status } : {}), ...(trigger ? { trigger } : {}) }),
      );
      return { data: rows, meta: { total, page, pageSize: limit } };
    },
  );

  app.post(
    BASE,
    {
      config: SITE_ADMIN,
      schema: {
        tags,
        summary: 'Create a flow',
        body: FlowCreateBody,
        response: { 201: dataEnvelope(FlowRecordBody, 'Created') },
      },
    },
    async (req, reply) => {
      guard.manage(req);
      const runAs = req.body.runAs ?? guard.callerRole(req);
      await guard.runAs(req, runAs);
      const definition = { ...req.body, runAs };
      const record = await createFlow(deps, commandContext(req, deps.clock), { definition });
      reply.status(201);
      return { data: record };
    },
  );

  app.get(
    `${BASE}/:id`,
    {
      config: SITE_ADMIN,
      schema: {
        tags,
        summary: 'Read a flow, now or as it was (asOf, version)',
        params: FlowParams,
        querystring: FlowDetailQuery,
        response: { 200: dataEnvelope(FlowRecordBody) },
      },
    },
    async (req) => {
      guard.manage(req);
      const siteId = siteOf(req);
      const { id } = req.params;
      const asOf = parseAsOf(req.query.asOf);
      const { version } = req.query;
      const flow =
        asOf || version
          ? await flowAt(deps.store, siteId, id, { ...(asOf ? { asOf } : {}), ...(version ? { version } : {}) })
          : await readAsSite(deps.db, siteId, (trx) => findFlow(trx, siteId, id));
      if (!flow) throw new FlowNotFound({ flowId: id });
      return { data: flow };
    },
  );

  app.patch(
    `${BASE}/:id`,
    {
      config: SITE_ADMIN,
      schema: {
        tags,
        summary: 'Save a flow: graph, status, trigger, options',
        params: FlowParams,
        body: FlowPatchBody,
        response: { 200: dataEnvelope(FlowRecordBody) },
      },
    },
    async (req) => {
      await live(req, req.params.id);
      if (req.body.runAs !== undefined) await guard.runAs(req, req.body.runAs);
      const ctx = commandContext(req, deps.clock);
      return { data: await updateFlow(deps, ctx, { flowId: req.params.id, changes: req.body }) };
    },
  );

  app.delete(
    `${BASE}/:id`,
    {
      config: SITE_ADMIN,
      schema: { tags, summary: 'Delete a flow', params: FlowParams, response: { 204: NoContent } },
    },
    async (req, reply) => {
      await live(req, req.params.id);
      await deleteFlow(deps, commandContext(req, deps.clock), { flowId: req.params.id });
      return reply.status(204).send();
    },
  );

  app.get(
    `${BASE}/:id/revisions`,
    {
      config: SITE_ADMIN,
      schema: {
        tags,
        summary: "A flow's saves, newest first, from its stream",
        params: FlowParams,
        querystring: RevisionQuery,
        response: { 200: listEnvelope(FlowRevisionBody, RevisionListMeta) },
      },
    },
    async (req) => {
      guard.manage(req);
      const { limit, offset } = req.query;
      const page = await flowRevisions(deps.store, siteOf(req), req.params.id, { limit, offset });
      if (!page) throw new FlowNotFound({ flowId: req.params.id });
      return { data: page.rows, meta: { total: page.total, limit, offset } };
    },
  );

  app.post(
    `${BASE}/:id/token`,
    {
      config: { ...SITE_ADMIN, secretAnswer: true },
      schema: {
        tags,
        summary: 'Issue a new webhook token (shown once; the old one stops working)',
        params: FlowParams,
        response: { 200: dataEnvelope(FlowTokenBody) },
      },
    },
    async (req) => {
      await live(req, req.params.id);
      return { data: await rotateFlowToken(deps, commandContext(req, deps.clock), { flowId: req.params.id }) };
    },
  );
};
