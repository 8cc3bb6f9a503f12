import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { errorEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { createItems, deleteItem, replaceItem, updateItem } from '../item.commands.ts';
import { itemGuard } from '../item.guard.ts';
import { present, writeMeta, writtenRecord } from '../item.present.ts';
import { withNullFields } from '../item.values.ts';
import { readItem } from '../item.reads.ts';
import { CollectionParams, ItemParams } from './item-params.ts';
import { ItemsCreatedBody, ItemWriteBody } from './items.schemas.ts';

const Values = z.record(z.string(), z.unknown());
const CreateBody = z.union([Values, z.array(Values).min(1).max(500)]);

/** Create (single and bulk), patch, replace and soft delete. */
export const itemWriteRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const tags = ['items'];
  const guard = itemGuard(deps);

  app.post(
    '/api/v1/items/:collection',
    {
      schema: {
        tags,
        summary: 'Create an item (or several: an array body)',
        params: CollectionParams,
        body: CreateBody,
        response: { 201: ItemsCreatedBody, 422: errorEnvelope(422) },
      },
    },
    async (req, reply) => {
      const s = await guard.collection(req, req.params.collection);
      const bulk = Array.isArray(req.body);
      const items = await guard.authorizeCreate(req, s, Array.isArray(req.body) ? req.body : [req.body], bulk);
      const created = await createItems(deps, commandContext(req, deps.clock), { schema: s, items, bulk, as: req });
      const records = await present(deps, req, s, created.records);
      const { revisionIds } = created;
      reply.status(201);
      return bulk
        ? { data: records, meta: { revisionIds } }
        : { data: records[0], meta: { revisionId: revisionIds[0] } };
    },
  );

  /** PATCH (changed keys) and PUT (the whole item) differ only in their command. */
  for (const method of ['patch', 'put'] as const) {
    app[method](
      '/api/v1/items/:collection/:id',
      {
        schema: {
          tags,
          summary: method === 'patch' ? 'Update an item' : 'Replace an item',
          params: ItemParams,
          body: Values,
          response: { 200: ItemWriteBody, 422: errorEnvelope(422) },
        },
      },
      async (req) => {
        const s = await guard.collection(req, req.params.collection);
        const { collection, id } = req.params;
        const { id: _ignored, ...values } = req.body;
        const patch = method === 'patch';
        await guard.authorizeUpdate(req, s, id, values, (current) => (patch ? { ...current, ...values } : values));
        const ctx = commandContext(req, deps.clock);
        const res = patch
          ? await updateItem(deps, ctx, { schema: s, id, changes: values, as: req })
          : await replaceItem(deps, ctx, { schema: s, id, values, as: req });
        // As this write left the item (a write queued after it may be committed already).
        const record = writtenRecord(id, res.state) ?? (await readItem(deps, ctx.siteId, collection, id))!.record;
        return { data: await present(deps, req, s, withNullFields(s, record)), meta: writeMeta(res) };
      },
    );
  }

  app.delete(
    '/api/v1/items/:collection/:id',
    { schema: { tags, summary: 'Delete an item', params: ItemParams, response: { 204: NoContent } } },
    async (req, reply) => {
      const s = await guard.collection(req, req.params.collection);
      await guard.authorizeWrite(req, s, 'delete', req.params.id);
      const held = await guard.refuseIfHeldUp(req, s, req.params.id);
      await deleteItem(deps, commandContext(req, deps.clock), { schema: s, id: req.params.id }, held);
      return reply.status(204).send();
    },
  );
};
