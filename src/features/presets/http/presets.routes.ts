import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { resourceOf } from '../../../kernel/auth/authorizer.ts';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { effectivePreset, listPresets, visibleBookmarks } from '../../../../projections/presets/index.ts';
import { checkPreset } from '../presets.check.ts';
import { createPlan, createPreset, deletePreset, updatePlan, updatePreset } from '../presets.commands.ts';
import { addressable, requireManage, viewerOf } from '../presets.guard.ts';
import { PresetCreateBody, PresetPatchBody } from '../presets.schema.ts';
import {
  BookmarkListMeta,
  CollectionQuery,
  PresetListMeta,
  PresetListQuery,
  PresetParams,
  PresetRecordBody,
} from './presets.schemas.ts';

const BASE = '/api/v1/presets';
const tags = ['presets'];

/** View presets and bookmarks: each caller's own, their role chain's and the site's global ones. */
export const presetsRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  // A view of a collection is for those who may read it: presets grant nothing, and show nothing of the unreadable.
  const mayRead = (req: FastifyRequest, collection: string) =>
    deps.authorizer.require(req, resourceOf(collection), 'read');
  const app = plain.withTypeProvider<ZodTypeProvider>();

  app.get(
    BASE,
    {
      schema: {
        tags,
        summary: "List the presets the caller sees (a site admin: all of the site's)",
        querystring: PresetListQuery,
        response: { 200: listEnvelope(PresetRecordBody, PresetListMeta) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      const { limit, page, ...filter } = req.query;
      const viewer = deps.authorizer.isSiteAdmin(req) ? null : await viewerOf(deps, req);
      const { rows, total } = await readAsSite(deps.db, siteId, (trx) =>
        listPresets(trx, siteId, { ...filter, viewer, limit, offset: (page - 1) * limit }),
      );
      return { data: rows, meta: { total, page, pageSize: limit } };
    },
  );

  app.get(
    `${BASE}/effective`,
    {
      schema: {
        tags,
        summary: "The caller's default view of a collection: their own, else their role chain's, else global",
        querystring: CollectionQuery,
        response: { 200: dataEnvelope(PresetRecordBody.nullable()) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      await mayRead(req, req.query.collection);
      const viewer = await viewerOf(deps, req);
      return {
        data: await readAsSite(deps.db, siteId, (trx) => effectivePreset(trx, siteId, viewer, req.query.collection)),
      };
    },
  );

  app.get(
    `${BASE}/bookmarks`,
    {
      schema: {
        tags,
        summary: 'The named bookmarks of a collection the caller sees, each with its sourceScope',
        querystring: CollectionQuery,
        response: { 200: listEnvelope(PresetRecordBody, BookmarkListMeta) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      await mayRead(req, req.query.collection);
      const viewer = await viewerOf(deps, req);
      const rows = await readAsSite(deps.db, siteId, (trx) =>
        visibleBookmarks(trx, siteId, viewer, req.query.collection),
      );
      return { data: rows, meta: { total: rows.length } };
    },
  );

  app.post(
    BASE,
    {
      schema: {
        tags,
        summary:
          "Save a preset or bookmark: userId set is user scope (the caller's own, or a site admin's choice), roleId " +
          'role scope, neither global scope (role and global: site admins)',
        body: PresetCreateBody,
        response: { 201: dataEnvelope(PresetRecordBody, 'Created') },
      },
    },
    async (req, reply) => {
      const plan = createPlan(req.body);
      requireManage(deps, req, plan.definition);
      await mayRead(req, plan.definition.collection);
      await checkPreset(deps, siteOf(req), plan.definition, plan.touched);
      const record = await createPreset(deps, commandContext(req, deps.clock), plan);
      reply.status(201);
      return { data: record };
    },
  );

  app.patch(
    `${BASE}/:id`,
    {
      schema: {
        tags,
        summary: 'Change a preset (authorized against its current scope and the scope it moves to)',
        params: PresetParams,
        body: PresetPatchBody,
        response: { 200: dataEnvelope(PresetRecordBody) },
      },
    },
    async (req) => {
      const current = await addressable(deps, req, req.params.id);
      requireManage(deps, req, current);
      const plan = updatePlan(current, req.body);
      requireManage(deps, req, plan.definition);
      if (plan.touched.has('collection')) await mayRead(req, plan.definition.collection);
      await checkPreset(deps, siteOf(req), plan.definition, plan.touched);
      const ctx = commandContext(req, deps.clock);
      return { data: await updatePreset(deps, ctx, { presetId: current.id, plan }) };
    },
  );

  app.delete(
    `${BASE}/:id`,
    {
      schema: { tags, summary: 'Delete a preset', params: PresetParams, response: { 204: NoContent } },
    },
    async (req, reply) => {
      const current = await addressable(deps, req, req.params.id);
      requireManage(deps, req, current);
      await deletePreset(deps, commandContext(req, deps.clock), { presetId: current.id });
      return reply.status(204).send();
    },
  );
};
