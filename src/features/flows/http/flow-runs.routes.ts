import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { actorRef } from '../../../kernel/auth/actor.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { dataEnvelope, listEnvelope } from '../../../kernel/http/envelope.ts';
import { flowTreeOf } from '../../../kernel/http/flow-tree.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { findFlowRun, listFlowRuns } from '../../../../projections/flow-runs/index.ts';
import { openRunRecords } from '../runs/flow-run.privacy.ts';
import { loadFlow } from '../flow.commands.ts';
import { FlowNotActive, FlowNotFound, FlowRunNotFound } from '../flow.errors.ts';
import { flowGuard } from '../flow.guard.ts';
import { startCalled } from '../runs/flow-call.ts';
import { retryRun } from '../runs/flow-run.retry.ts';
import { backtestFlow } from '../runs/flow-backtest.ts';
import { FlowParams } from './flows.schemas.ts';
import {
  BacktestBody,
  BacktestMeta,
  BacktestRunBody,
  FlowRunBody,
  RetryBody,
  RunInputBody,
  RunListMeta,
  RunListQuery,
  RunParams,
} from './flow-runs.schemas.ts';

const BASE = '/api/v1/flows';
const SITE_ADMIN = { caller: 'site-admin' as const };
const tags = ['flows'];

/** Manual runs and the run history of a site's flows, for its administrators. */
export const flowRunsRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const guard = flowGuard(deps);
  const run = async (req: FastifyRequest, flowId: string, runId: string) => {
    const siteId = siteOf(req);
    const found = await readAsSite(deps.db, siteId, (trx) => findFlowRun(trx, siteId, flowId, runId));
    if (!found) throw new FlowRunNotFound({ runId });
    return (await openRunRecords(deps, siteId, [found]))[0]!;
  };

  /** The flow to run: live, not above the caller's rank, and active. */
  const runnable = async (req: FastifyRequest, flowId: string) => {
    guard.manage(req);
    const { state, version } = await loadFlow(deps.store, siteOf(req), flowId);
    if (state.status !== 'present') throw new FlowNotFound({ flowId });
    await guard.mayChange(req, state.flow.definition.runAs);
    const { status } = state.flow.definition;
    if (status !== 'active') throw new FlowNotActive({ flowId, status });
    return { flow: state.flow, flowVersion: version };
  };

  app.post(
    `${BASE}/:id/runs/:runId/retry`,
    {
      config: SITE_ADMIN,
      schema: {
        tags,
        summary: 'Re-run an ended run from a step (default: the one that failed) with its recorded inputs',
        params: RunParams,
        body: RetryBody,
        response: { 202: dataEnvelope(FlowRunBody, 'Accepted: the worker runs it') },
      },
    },
    async (req, reply) => {
      const { flow, flowVersion } = await runnable(req, req.params.id);
      const fromStep = req.body?.fromStep;
      const runId = await retryRun(deps, {
        siteId: siteOf(req),
        flow,
        flowVersion,
        runId: req.params.runId,
        ...(fromStep ? { fromStep } : {}),
        startedBy: actorRef(actorOf(req)),
        now: deps.clock.now(),
      });
      reply.status(202);
      return { data: await run(req, req.params.id, runId) };
    },
  );

  app.post(
    `${BASE}/:id/backtest`,
    {
      config: SITE_ADMIN,
      schema: {
        tags,
        summary: "Play an event flow (a draft too) against the past's events in dry-run mode: the would-be runs",
        params: FlowParams,
        body: BacktestBody,
        response: { 200: listEnvelope(BacktestRunBody, BacktestMeta) },
      },
    },
    async (req) => {
      guard.manage(req);
      const siteId = siteOf(req);
      const { state } = await loadFlow(deps.store, siteId, req.params.id);
      if (state.status !== 'present') throw new FlowNotFound({ flowId: req.params.id });
      await guard.mayChange(req, state.flow.definition.runAs);
      const window = { from: new Date(req.body.from), to: new Date(req.body.to) };
      const r = await backtestFlow(deps, siteId, state.flow, window);
      return { data: r.runs, meta: { total: r.runs.length, scanned: r.scanned, truncated: r.truncated } };
    },
  );

  app.post(
    `${BASE}/:id/run`,
    {
      config: SITE_ADMIN,
      schema: {
        tags,
        summary: 'Run an active flow now; the body is its input',
        params: FlowParams,
        body: RunInputBody,
        response: { 202: dataEnvelope(FlowRunBody, 'Accepted: the worker runs it') },
      },
    },
    async (req, reply) => {
      guard.manage(req);
      const siteId = siteOf(req);
      const { state, version } = await loadFlow(deps.store, siteId, req.params.id);
      if (state.status !== 'present') throw new FlowNotFound({ flowId: req.params.id });
      await guard.mayChange(req, state.flow.definition.runAs);
      const { status } = state.flow.definition;
      if (status !== 'active') throw new FlowNotActive({ flowId: req.params.id, status });
      // Asked by a flow step's call (a genuine tree header), the run continues the caller's tree.
      const runId = await startCalled(deps, flowTreeOf(req), {
        ...{ siteId, flow: state.flow, flowVersion: version, trigger: 'manual', input: req.body ?? null },
        startedBy: actorRef(actorOf(req)),
        now: deps.clock.now(),
      });
      reply.status(202);
      return { data: await run(req, req.params.id, runId) };
    },
  );

  app.get(
    `${BASE}/:id/runs`,
    {
      config: SITE_ADMIN,
      schema: {
        tags,
        summary: "A flow's runs, newest first (filter by status)",
        params: FlowParams,
        querystring: RunListQuery,
        response: { 200: listEnvelope(FlowRunBody, RunListMeta) },
      },
    },
    async (req) => {
      guard.manage(req);
      const siteId = siteOf(req);
      const { state } = await loadFlow(deps.store, siteId, req.params.id);
      if (state.status === 'absent') throw new FlowNotFound({ flowId: req.params.id });
      const { status, page, limit } = req.query;
      const o = { limit, offset: (page - 1) * limit, ...(status ? { status } : {}) };
      const { rows, total } = await readAsSite(deps.db, siteId, (trx) => listFlowRuns(trx, siteId, req.params.id, o));
      return { data: await openRunRecords(deps, siteId, rows), meta: { total, page, pageSize: limit } };
    },
  );

  app.get(
    `${BASE}/:id/runs/:runId`,
    {
      config: SITE_ADMIN,
      schema: {
        tags,
        summary: 'One run with each step: input, output, error, duration',
        params: RunParams,
        response: { 200: dataEnvelope(FlowRunBody) },
      },
    },
    async (req) => {
      guard.manage(req);
      return { data: await run(req, req.params.id, req.params.runId) };
    },
  );
};
