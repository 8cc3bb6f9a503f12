import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope, NoContent, TotalMeta, wholeList } from '../../../kernel/http/envelope.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import {
  listCiRuns,
  listPreviews,
  listProvenance,
  listDeliveries,
  listIntegrations,
  listPullRequests,
} from '../../../../projections/git-integrations/index.ts';
import {
  createIntegration,
  deleteIntegration,
  integrationOf,
  recordOf,
  updateIntegration,
  webhookUrl,
} from '../git.commands.ts';
import { integrationCreate, integrationPatch, IntegrationRecord } from '../git.schema.ts';
import {
  CiQuery,
  CiRunRecord,
  CreatedIntegration,
  DeliveryRecord,
  IntegrationParams,
  PageMeta,
  PageQuery,
  PreviewQuery,
  PreviewRecord,
  ProvenanceQuery,
  ProvenanceRecord,
  PullRequestQuery,
  PullRequestRecord,
  SyncBody,
  SyncReportRecord,
} from './git.schemas.ts';
import { syncIntents } from '../git.gitops.ts';

const BASE = '/api/v1/integrations/git';
const tags = ['git'];

/**
 * The site's git integrations (site admins: they hold a repository's credentials) and what their receivers
 * recorded. The token and the webhook secret are write-only: answers say `hasToken`, and a secret made for the
 * caller is shown once, in the create's answer.
 */
export const gitRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const config = { caller: 'site-admin' as const };

  app.get(
    BASE,
    {
      config,
      schema: {
        tags,
        summary: "The site's git integrations",
        response: { 200: listEnvelope(IntegrationRecord, TotalMeta) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      const rows = await readAsSite(deps.db, siteId, (db) => listIntegrations(db, siteId));
      return wholeList(
        rows.map(({ syncConfig, ...r }) => ({
          ...r,
          sync_config: syncConfig,
          webhookUrl: webhookUrl(deps, siteId, r.provider, r.id),
        })),
      );
    },
  );

  app.post(
    BASE,
    {
      config: { ...config, secretAnswer: true },
      schema: {
        tags,
        summary: 'Connect a repository (its token and webhook secret are sealed, never shown again)',
        body: integrationCreate(deps.config.SVC_GIT_ALLOW_PRIVATE),
        response: { 201: dataEnvelope(CreatedIntegration, 'Created') },
      },
    },
    async (req, reply) => {
      const { record, webhookSecret } = await createIntegration(deps, commandContext(req, deps.clock), req.body);
      reply.status(201);
      return { data: { ...record, ...(webhookSecret ? { webhookSecret } : {}) } };
    },
  );

  app.get(
    `${BASE}/:id`,
    {
      config,
      schema: {
        tags,
        summary: 'One integration',
        params: IntegrationParams,
        response: { 200: dataEnvelope(IntegrationRecord) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      return { data: recordOf(deps, siteId, await integrationOf(deps, siteId, req.params.id)) };
    },
  );

  app.patch(
    `${BASE}/:id`,
    {
      config,
      schema: {
        tags,
        summary: 'Change an integration (a token or secret given replaces the stored one; token null removes it)',
        params: IntegrationParams,
        body: integrationPatch(deps.config.SVC_GIT_ALLOW_PRIVATE),
        response: { 200: dataEnvelope(IntegrationRecord) },
      },
    },
    async (req) => ({
      data: await updateIntegration(deps, commandContext(req, deps.clock), req.params.id, req.body),
    }),
  );

  app.delete(
    `${BASE}/:id`,
    {
      config,
      schema: {
        tags,
        summary: 'Disconnect a repository: its token and secret are shredded',
        params: IntegrationParams,
        response: { 204: NoContent },
      },
    },
    async (req, reply) => {
      await deleteIntegration(deps, commandContext(req, deps.clock), req.params.id);
      return reply.status(204).send();
    },
  );

  app.get(
    `${BASE}/:id/deliveries`,
    {
      config,
      schema: {
        tags,
        summary: "The integration's verified webhook deliveries, newest first",
        params: IntegrationParams,
        querystring: PageQuery,
        response: { 200: listEnvelope(DeliveryRecord, PageMeta) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      await integrationOf(deps, siteId, req.params.id);
      const { limit, offset } = req.query;
      const { rows, total } = await readAsSite(deps.db, siteId, (db) =>
        listDeliveries(db, siteId, req.params.id, { limit, offset }),
      );
      return { data: rows, meta: { total, limit, offset } };
    },
  );

  app.get(
    `${BASE}/pull-requests`,
    {
      config,
      schema: {
        tags,
        summary: "The pull requests (merge requests) of the site's repositories, most recently changed first",
        querystring: PullRequestQuery,
        response: { 200: listEnvelope(PullRequestRecord, PageMeta) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      const { rows, total } = await readAsSite(deps.db, siteId, (db) => listPullRequests(db, siteId, req.query));
      return { data: rows, meta: { total, limit: req.query.limit, offset: req.query.offset } };
    },
  );

  app.get(
    `${BASE}/ci`,
    {
      config,
      schema: {
        tags,
        summary: "CI runs (check runs, commit statuses, pipelines) of the site's repositories, with their states",
        querystring: CiQuery,
        response: { 200: listEnvelope(CiRunRecord, PageMeta) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      const { rows, total } = await readAsSite(deps.db, siteId, (db) => listCiRuns(db, siteId, req.query));
      return { data: rows, meta: { total, limit: req.query.limit, offset: req.query.offset } };
    },
  );

  app.get(
    `${BASE}/provenance`,
    {
      config,
      schema: {
        tags,
        summary: 'Which commit (of which integration and file) last set each field of an item through gitops',
        querystring: ProvenanceQuery,
        response: { 200: listEnvelope(ProvenanceRecord, PageMeta) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      const { rows, total } = await readAsSite(deps.db, siteId, (db) => listProvenance(db, siteId, req.query));
      return { data: rows, meta: { total, limit: req.query.limit, offset: req.query.offset } };
    },
  );

  app.post(
    `${BASE}/:id/gitops/sync`,
    {
      config: { ...config, secretAnswer: true },
      schema: {
        tags,
        summary:
          "Read the branch's intent files, record them as content intents, scan the drift and reconcile (as the caller, actor gitops, the commit as correlation id)",
        params: IntegrationParams,
        body: SyncBody,
        response: { 200: dataEnvelope(SyncReportRecord) },
      },
    },
    async (req) => ({
      data: await syncIntents(deps, req, commandContext(req, deps.clock), req.params.id, { dryRun: req.body.dryRun }),
    }),
  );

  app.get(
    `${BASE}/previews`,
    {
      config,
      schema: {
        tags,
        summary: "Preview sites of the site's pull requests, newest first",
        querystring: PreviewQuery,
        response: { 200: listEnvelope(PreviewRecord, PageMeta) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      const { rows, total } = await readAsSite(deps.db, siteId, (db) => listPreviews(db, siteId, req.query));
      return { data: rows, meta: { total, limit: req.query.limit, offset: req.query.offset } };
    },
  );
};
