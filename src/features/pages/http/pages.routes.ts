import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { RESOURCES } from '../../../kernel/auth/authorizer.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { PageNotFound } from '../page.errors.ts';
import { newId } from '../../../kernel/ids.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { findPage, listPages } from '../../../../projections/pages/index.ts';
import type { DeliveryCache } from '../delivery-cache.ts';
import { LayoutConfig, Slug } from '../../../contracts/pages/page.layout.ts';
import { dataEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { PageListMeta, PageRecord } from './pages.schemas.ts';
import { pageWrites } from '../page.writes.ts';
import { pathId } from '../../../kernel/http/path-params.ts';

const Title = z.string().min(1).max(300);
const Status = z.enum(['draft', 'published']);
const CreateBody = z
  .object({
    slug: Slug,
    title: Title,
    // A new page is deliverable at once (creating it clears the negative cache); a draft is asked for explicitly.
    status: Status.default('published'),
    layoutConfig: LayoutConfig.nullable().optional(),
  })
  .strict();
const PatchBody = z
  .object({ slug: Slug, title: Title, status: Status, layoutConfig: LayoutConfig.nullable() })
  .partial()
  .strict();
const IdParams = z.object({ id: pathId(100) });
const ListQuery = z.object({
  status: Status.optional(),
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(25),
});

export const pagesRoutes: FastifyPluginAsync<AppDeps & { delivery: DeliveryCache }> = async (
  plain,
  { db, store, clock, delivery, authorizer },
) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const writes = pageWrites(store);
  // Writes need the rule's action on pages (editors have it through `*`); every member of the site may read them.
  const mayWrite = (req: FastifyRequest, action: 'create' | 'update' | 'delete') =>
    authorizer.require(req, RESOURCES.pages, action);
  const read = (siteId: string, id: string) => readAsSite(db, siteId, (trx) => findPage(trx, siteId, id));
  const existing = async (siteId: string, id: string) => {
    const page = await read(siteId, id);
    if (!page) throw new PageNotFound({ pageId: id });
    return page;
  };
  // One clock reading per command: its time, its author and its event metadata.
  const at = (req: FastifyRequest) => {
    const ctx = commandContext(req, clock);
    return { now: ctx.now.toISOString(), by: ctx.actor.id, meta: ctx.metadata };
  };

  app.get(
    '/api/v1/pages',
    {
      schema: {
        querystring: ListQuery,
        tags: ['pages'],
        summary: 'List pages',
        response: { 200: listEnvelope(PageRecord, PageListMeta) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      const { page, limit, status } = req.query;
      const r = await readAsSite(db, siteId, (trx) =>
        listPages(trx, siteId, { limit, offset: (page - 1) * limit, status }),
      );
      return { data: r.data, meta: { total: r.total, page, pageSize: limit } };
    },
  );

  app.post(
    '/api/v1/pages',
    {
      schema: {
        body: CreateBody,
        tags: ['pages'],
        summary: 'Create a page',
        response: { 201: dataEnvelope(PageRecord.nullable(), 'Created') },
      },
    },
    async (req, reply) => {
      await mayWrite(req, 'create');
      const siteId = siteOf(req);
      const { now, by, meta } = at(req);
      const pageId = newId();
      const b = req.body;
      const data = {
        pageId,
        slug: b.slug,
        title: b.title,
        status: b.status,
        layoutConfig: b.layoutConfig ?? null,
        now,
        by,
      };
      await writes.create(siteId, { type: 'CreatePage', data }, meta);
      await delivery.invalidate({ site: siteId, slugs: [b.slug], pageIds: [pageId] });
      reply.status(201);
      return { data: await read(siteId, pageId) };
    },
  );

  app.get(
    '/api/v1/pages/:id',
    {
      schema: {
        params: IdParams,
        tags: ['pages'],
        summary: 'Read a page',
        response: { 200: dataEnvelope(PageRecord) },
      },
    },
    async (req) => ({
      data: await existing(siteOf(req), req.params.id),
    }),
  );

  app.patch(
    '/api/v1/pages/:id',
    {
      schema: {
        params: IdParams,
        body: PatchBody,
        tags: ['pages'],
        summary: 'Update a page',
        response: { 200: dataEnvelope(PageRecord.nullable()) },
      },
    },
    async (req) => {
      await mayWrite(req, 'update');
      const siteId = siteOf(req);
      const pageId = req.params.id;
      const before = await existing(siteId, pageId);
      const { now, by, meta } = at(req);
      await writes.update(siteId, before.slug, { type: 'UpdatePage', data: { pageId, ...req.body, now, by } }, meta);
      const slugs = [...new Set([before.slug, req.body.slug ?? before.slug])];
      await delivery.invalidate({ site: siteId, slugs, pageIds: [pageId] });
      return { data: await read(siteId, pageId) };
    },
  );

  app.delete(
    '/api/v1/pages/:id',
    { schema: { params: IdParams, tags: ['pages'], summary: 'Delete a page', response: { 204: NoContent } } },
    async (req, reply) => {
      await mayWrite(req, 'delete');
      const siteId = siteOf(req);
      const before = await existing(siteId, req.params.id);
      const { now, by, meta } = at(req);
      await writes.remove(siteId, before.slug, before.id, { now, by }, meta);
      await delivery.invalidate({ site: siteId, slugs: [before.slug], pageIds: [before.id] });
      return reply.status(204).send();
    },
  );
};
