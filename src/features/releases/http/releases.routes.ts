import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { rejectInvalid } from '../../../kernel/http/unprocessable.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { findRelease, listReleases, type ReleaseRecord } from '../../../../projections/releases/index.ts';
import { dataEnvelope, errorEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { createRelease, deleteRelease, publishAtFrom, publishNow, updateRelease } from '../release.commands.ts';
import { ReleaseNotFound } from '../release.errors.ts';
import { addedItemsCheck, authorOf, mayRelease } from '../release.guard.ts';
import { PublishResult, ReleaseListMeta, ReleaseRecord as ReleaseBody } from './releases.schemas.ts';
import { pathId } from '../../../kernel/http/path-params.ts';

const HHMM = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a time HH:MM (UTC)');
const Item = z
  .object({
    collection: z.string().min(1).max(64),
    itemId: z.string().min(1).max(128),
    targetStatus: z.string().min(1).max(64),
    revisionId: z.string().min(1).max(64).nullable().optional(),
  })
  .strict();
const ItemRef = z.object({ collection: z.string().min(1).max(64), itemId: z.string().min(1).max(128) }).strict();
const Window = z
  .object({
    windows: z.array(z.object({ dow: z.number().int().min(0).max(6), start: HHMM, end: HHMM }).strict()).max(50),
  })
  .strict();
const Meta = {
  name: z.string().trim().min(1).max(200),
  atomicityMode: z.enum(['all_or_nothing', 'best_effort']),
  publishAt: z.string().datetime({ offset: true }).nullable(),
  maintenanceWindow: Window.nullable(),
};
const CreateBody = z
  .object({
    name: Meta.name,
    atomicityMode: Meta.atomicityMode.default('all_or_nothing'),
    publishAt: Meta.publishAt.optional(),
    maintenanceWindow: Meta.maintenanceWindow.optional(),
    addItems: z.array(Item).max(5000).default([]),
  })
  .strict();
const PatchBody = z
  .object({
    name: Meta.name.optional(),
    atomicityMode: Meta.atomicityMode.optional(),
    publishAt: Meta.publishAt.optional(),
    maintenanceWindow: Meta.maintenanceWindow.optional(),
    addItems: z.array(Item).max(5000).default([]),
    removeItems: z.array(ItemRef).max(5000).default([]),
  })
  .strict();
const ListQuery = z.object({
  status: z.enum(['draft', 'scheduled', 'published', 'partially_failed', 'failed']).optional(),
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(25),
});
const IdParams = z.object({ id: pathId(64) });

const view = (r: ReleaseRecord) => ({
  id: r.id,
  name: r.name,
  atomicityMode: r.atomicityMode,
  publishAt: r.publishAt,
  maintenanceWindow: r.maintenanceWindow,
  status: r.status,
  publishing: r.publishing !== null,
  items: r.items,
  outcomes: r.outcomes,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

/** Releases: bundles of item status changes published together, now or at `publishAt` (spec "Releases"). */
export const releasesRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { db, clock } = deps;
  const tags = ['releases'];
  const read = async (req: FastifyRequest, id: string) => {
    const r = await readAsSite(db, siteOf(req), (trx) => findRelease(trx, siteOf(req), id));
    if (!r) throw new ReleaseNotFound({ releaseId: id });
    return r;
  };
  const checkItems = addedItemsCheck(deps);

  app.get(
    '/api/v1/releases',
    {
      attachValidation: true,
      schema: {
        tags,
        summary: 'List releases',
        querystring: ListQuery,
        response: { 200: listEnvelope(ReleaseBody, ReleaseListMeta), 422: errorEnvelope(422) },
      },
    },
    async (req) => {
      rejectInvalid(req);
      const { status, page, limit } = req.query;
      const { rows, total } = await readAsSite(db, siteOf(req), (trx) =>
        listReleases(trx, siteOf(req), { status, limit, offset: (page - 1) * limit }),
      );
      return { data: rows.map(view), meta: { total, page, pageSize: limit } };
    },
  );

  app.get(
    '/api/v1/releases/:id',
    {
      attachValidation: true,
      schema: {
        tags,
        summary: 'Read a release and its items',
        params: IdParams,
        response: { 200: dataEnvelope(ReleaseBody), 422: errorEnvelope(422) },
      },
    },
    async (req) => {
      rejectInvalid(req);
      return { data: view(await read(req, req.params.id)) };
    },
  );

  app.post(
    '/api/v1/releases',
    {
      attachValidation: true,
      schema: {
        tags,
        summary: 'Create a release',
        body: CreateBody,
        response: { 201: dataEnvelope(ReleaseBody, 'Created'), 422: errorEnvelope(422) },
      },
    },
    async (req, reply) => {
      rejectInvalid(req);
      await mayRelease(deps, req);
      const { addItems: items, ...meta } = req.body;
      const ctx = commandContext(req, clock);
      publishAtFrom(ctx, meta.publishAt);
      await checkItems(req, items);
      const maintenanceWindow = meta.maintenanceWindow ?? null;
      const id = await createRelease(deps, ctx, { ...meta, maintenanceWindow, items, author: authorOf(req) });
      reply.status(201);
      return { data: view(await read(req, id)) };
    },
  );

  app.patch(
    '/api/v1/releases/:id',
    {
      attachValidation: true,
      schema: {
        tags,
        summary: 'Update a release and its items',
        params: IdParams,
        body: PatchBody,
        response: { 200: dataEnvelope(ReleaseBody), 422: errorEnvelope(422) },
      },
    },
    async (req) => {
      rejectInvalid(req);
      await mayRelease(deps, req);
      const { addItems: add, removeItems: remove, ...changes } = req.body;
      const ctx = commandContext(req, clock);
      publishAtFrom(ctx, changes.publishAt);
      await checkItems(req, add);
      await updateRelease(deps, ctx, { releaseId: req.params.id, changes, add, remove });
      return { data: view(await read(req, req.params.id)) };
    },
  );

  app.delete(
    '/api/v1/releases/:id',
    {
      attachValidation: true,
      schema: {
        tags,
        summary: 'Delete a release',
        params: IdParams,
        response: { 204: NoContent, 422: errorEnvelope(422) },
      },
    },
    async (req, reply) => {
      rejectInvalid(req);
      await mayRelease(deps, req);
      await deleteRelease(deps, commandContext(req, clock), req.params.id);
      return reply.status(204).send();
    },
  );

  app.post(
    '/api/v1/releases/:id/publish',
    {
      attachValidation: true,
      schema: {
        tags,
        summary: 'Publish a release now',
        params: IdParams,
        response: { 200: dataEnvelope(PublishResult), 422: errorEnvelope(422) },
      },
    },
    async (req) => {
      rejectInvalid(req);
      await mayRelease(deps, req);
      // Both the caller's and the author's rights: pressing publish lends a release no right its author lacks.
      const res = await publishNow(deps, commandContext(req, clock), { releaseId: req.params.id, publisher: req });
      return { data: { release: view(await read(req, req.params.id)), status: res.status, outcomes: res.outcomes } };
    },
  );
};
