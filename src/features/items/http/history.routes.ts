import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { deltaOf, findRevision } from '../../../../projections/item-revisions/index.ts';
import { restoreItem, revertItem } from '../item.commands.ts';
import { ItemNotFound, RevisionNotFound } from '../item.errors.ts';
import { checkReferences } from '../item.references.ts';
import { itemGuard } from '../item.guard.ts';
import { itemReader } from '../item.reader.ts';
import { present, writeMeta } from '../item.present.ts';
import { readItem } from '../item.reads.ts';
import { errorEnvelope, listEnvelope } from '../../../kernel/http/envelope.ts';
import { ItemWriteBody, RevisionListMeta, RevisionRecord } from './items.schemas.ts';
import { ItemParams } from './item-params.ts';
import { RevisionPage, revisionPage } from './item-history.params.ts';

/** An item's history, read from its stream (through the revisions read model): list, revert, restore. */
export const historyRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const tags = ['items'];
  const { db } = deps;
  const guard = itemGuard(deps);
  const reader = itemReader(deps);

  app.get(
    '/api/v1/items/:collection/:id/revisions',
    {
      schema: {
        tags,
        summary: 'List the revisions of an item',
        params: ItemParams,
        querystring: RevisionPage,
        response: { 200: listEnvelope(RevisionRecord, RevisionListMeta) },
      },
    },
    async (req) => {
      const s = await guard.collection(req, req.params.collection);
      return reader.revisions(req, s, req.params.id, revisionPage(req.query));
    },
  );

  app.post(
    '/api/v1/items/:collection/:id/revert',
    {
      schema: {
        tags,
        summary: 'Revert an item to a revision',
        params: ItemParams,
        body: z.object({ revisionId: z.string().min(1).max(64) }).strict(),
        response: { 200: ItemWriteBody, 422: errorEnvelope(422) },
      },
    },
    async (req) => {
      const s = await guard.collection(req, req.params.collection);
      const { collection, id } = req.params;
      const { revisionId } = req.body;
      await guard.checkVisible(req, s, id);
      await guard.authorizeWrite(req, s, 'update', id);
      const revision = await readAsSite(db, siteOf(req), (trx) =>
        findRevision(trx, siteOf(req), collection, id, revisionId),
      );
      if (!revision) throw new RevisionNotFound({ revisionId, itemId: id });
      await guard.authorizeWrite(req, s, 'update', id, revision.data);
      // The relations the revert changes must name items that are there and that the caller may read, as a PATCH
      // of those values would: a past revision may name an item deleted since. One it leaves as it is stays.
      const current = await readItem(deps, siteOf(req), collection, id);
      if (!current) throw new ItemNotFound({ id });
      const { id: _id, ...change } = deltaOf(current.data, revision.data);
      const check = await checkReferences(deps, siteOf(req), req, s.schema, [{ collection, values: change, path: [] }]);
      const ctx = commandContext(req, deps.clock);
      const res = await revertItem(deps, ctx, { schema: s, id, revision }, check);
      const record = (await readItem(deps, ctx.siteId, collection, id))!.record;
      return { data: await present(deps, req, s, record), meta: writeMeta(res) };
    },
  );

  // A soft-deleted item comes back (site admins, who are the ones who see deleted items).
  app.post(
    '/api/v1/items/:collection/:id/restore',
    { schema: { tags, summary: 'Restore a soft-deleted item', params: ItemParams, response: { 200: ItemWriteBody } } },
    async (req) => {
      guard.mayAdminister(req);
      const s = await guard.collection(req, req.params.collection);
      const { collection, id } = req.params;
      const ctx = commandContext(req, deps.clock);
      const res = await restoreItem(deps, ctx, { schema: s, id });
      const record = (await readItem(deps, ctx.siteId, collection, id))!.record;
      return { data: await present(deps, req, s, record), meta: writeMeta(res) };
    },
  );
};
