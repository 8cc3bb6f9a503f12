import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { errorEnvelope } from '../../../kernel/http/envelope.ts';
import { upsertSingleton } from '../item.commands.ts';
import { NotASingleton } from '../item.errors.ts';
import { itemGuard } from '../item.guard.ts';
import { itemReader } from '../item.reader.ts';
import { itemRead, listRead, singletonRead } from './item-read.params.ts';
import { writeMeta } from '../item.present.ts';
import type { CollectionSchema } from '../item.reads.ts';
import { CollectionParams, ItemParams } from './item-params.ts';
import { itemWriteRoutes } from './items.write.routes.ts';
import { ItemBody, ItemListBody, ItemRecord, ItemWriteBody } from './items.schemas.ts';
import { ItemListQuery, ItemReadQuery } from './item-query.schema.ts';
import { dependentsRoutes } from './dependents.routes.ts';
import { historyRoutes } from './history.routes.ts';
import { versionsRoutes } from './versions.routes.ts';

type Raw = Record<string, string>;

/** The id of a singleton collection's one record. */
export const singletonId = (s: CollectionSchema) =>
  s.collection.primaryKeyType === 'integer' || s.collection.primaryKeyType === 'bigInteger' ? '1' : 'singleton';

/** Item reads (lists, one item, singletons); the write routes and later item slices register beside them. */
export const itemsRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const tags = ['items'];
  const guard = itemGuard(deps);
  const { guardFor } = guard;
  const { one, list, read } = itemReader(deps);

  app.get(
    '/api/v1/items/:collection',
    {
      schema: {
        tags,
        summary: 'List items',
        params: CollectionParams,
        querystring: ItemListQuery,
        response: { 200: ItemListBody },
      },
    },
    async (req) => {
      const s = await guard.collection(req, req.params.collection);
      // The caller's words are parsed only once the caller may read the collection at all.
      await guardFor(req, s.collection.name);
      if (s.collection.singleton)
        return { data: await one(req, s, singletonId(s), singletonRead(req, req.query as Raw)) };
      return list(req, s, listRead(req, req.query as Raw));
    },
  );

  app.get(
    '/api/v1/items/:collection/:id',
    {
      schema: {
        tags,
        summary: 'Read an item',
        params: ItemParams,
        querystring: ItemReadQuery,
        response: { 200: ItemBody },
      },
    },
    async (req) => {
      const s = await guard.collection(req, req.params.collection);
      await guardFor(req, s.collection.name);
      return read(req, s, req.params.id, itemRead(req, req.query as Raw));
    },
  );

  // A singleton's one record: PATCH creates it on first write (defaults and required fields apply), then updates it.
  app.patch(
    '/api/v1/items/:collection',
    {
      schema: {
        tags,
        summary: "Write a singleton's record",
        params: CollectionParams,
        body: z.record(z.string(), z.unknown()),
        response: { 200: ItemWriteBody.extend({ data: ItemRecord.nullable() }), 422: errorEnvelope(422) },
      },
    },
    async (req) => {
      const s = await guard.collection(req, req.params.collection);
      if (!s.collection.singleton) throw new NotASingleton({ collection: s.collection.name });
      const { id: _ignored, ...values } = req.body;
      const id = singletonId(s);
      // The read headers are checked before the write, so a malformed one never answers 400 after a write.
      const shown = singletonRead(req, {});
      const scope = await guard.authorizeWrite(req, s, 'update', id, values);
      // Through the list query and before the write: a caller who may not read the singleton is refused (403) first.
      // The rule's validation sees the stored values, never a translation the caller picked with X-Svc-Locale.
      const current = (await one(req, s, id)) ?? {};
      await guard.checkValidation(req, s, id, { ...current, ...values }, scope);
      const res = await upsertSingleton(deps, commandContext(req, deps.clock), {
        schema: s,
        id,
        changes: values,
        as: req,
      });
      return { data: await one(req, s, id, shown), meta: writeMeta(res) };
    },
  );

  await app.register(itemWriteRoutes, deps);
  await app.register(dependentsRoutes, deps);
  await app.register(historyRoutes, deps);
  await app.register(versionsRoutes, deps);
};
