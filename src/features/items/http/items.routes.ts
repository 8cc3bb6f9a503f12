import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { listItems, type ItemQuery } from '../../../../projections/item-documents/index.ts';
import { listItemVersions } from '../../../../projections/item-versions/index.ts';
import { upsertSingleton } from '../item.commands.ts';
import { ItemAbsentThen, ItemNotFound, NotASingleton } from '../item.errors.ts';
import { itemGuard } from '../item.guard.ts';
import { present, writeMeta } from '../item.present.ts';
import type { CollectionSchema } from '../item.reads.ts';
import { readHeaders } from './item-headers.ts';
import { CollectionParams, ItemParams } from './item-params.ts';
import { parseItemQuery } from './item-query.params.ts';
import { parseAsOf, parseVersion, parseWithDeleted } from './item-history.params.ts';
import { revisionAt } from '../../../../projections/item-revisions/index.ts';
import { translateRecord } from '../../../../projections/item-documents/index.ts';
import { itemWriteRoutes } from './items.write.routes.ts';
import { ItemBody, ItemListBody, ItemRecord, ItemWriteBody } from './items.schemas.ts';
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
  const { db } = deps;
  const guard = itemGuard(deps);
  const { guardFor } = guard;
  const show = <T>(req: FastifyRequest, s: CollectionSchema, records: T) => present(deps, req, s, records);

  const query = async (req: FastifyRequest, s: CollectionSchema, q: Omit<ItemQuery, 'locale'> & Partial<ItemQuery>) => {
    const { locale } = readHeaders(req);
    const guard = await guardFor(req, s.collection.name);
    const res = await readAsSite(db, siteOf(req), (trx) =>
      listItems(trx, siteOf(req), s.collection.name, { ...q, locale, guard }, s.schema),
    );
    return q.aggregate || q.groupBy.length ? res : { ...res, data: await show(req, s, res.data) };
  };
  /** One item through the list query, so that `fields`, relations and translation work the same way. */
  const one = async (req: FastifyRequest, s: CollectionSchema, id: string, raw: Raw, withDeleted = false) => {
    const kept = Object.entries(raw).filter(([k]) => k === 'fields' || k.startsWith('deep'));
    const base = parseItemQuery({ ...Object.fromEntries(kept), meta: 'none', limit: '1' });
    const res = await query(req, s, { ...base, id, withDeleted, single: true });
    return res.data[0] ?? null;
  };

  /** `asOf` and `withDeleted` of a read; soft-deleted items are for admins only. */
  const readOptions = (req: FastifyRequest) => {
    const raw = req.query as Raw;
    const withDeleted = parseWithDeleted(raw);
    if (withDeleted) guard.mayAdminister(req);
    return { asOf: parseAsOf(raw), withDeleted };
  };

  app.get(
    '/api/v1/items/:collection',
    { schema: { tags, summary: 'List items', params: CollectionParams, response: { 200: ItemListBody } } },
    async (req) => {
      const s = await guard.collection(req, req.params.collection);
      // The caller's words are parsed only once the caller may read the collection at all.
      await guardFor(req, s.collection.name);
      if (s.collection.singleton) return { data: await one(req, s, singletonId(s), req.query as Raw) };
      return query(req, s, { ...parseItemQuery(req.query as Raw), ...readOptions(req) });
    },
  );

  app.get(
    '/api/v1/items/:collection/:id',
    { schema: { tags, summary: 'Read an item', params: ItemParams, response: { 200: ItemBody } } },
    async (req) => {
      const s = await guard.collection(req, req.params.collection);
      await guardFor(req, s.collection.name);
      const raw = req.query as Raw;
      const { asOf, withDeleted } = readOptions(req);
      const version = parseVersion(raw);
      if (asOf || version) {
        // A past state is shown only while the item is visible to the caller now.
        if (!(await one(req, s, req.params.id, {}, true))) throw new ItemNotFound({ id: req.params.id });
        return { data: await show(req, s, await itemAsOf(req, s, req.params.id, { asOf, version })) };
      }
      const item = await one(req, s, req.params.id, raw, withDeleted);
      if (!item) throw new ItemNotFound({ id: req.params.id });
      if (!readHeaders(req).draft) return { data: item };
      // X-Svc-Draft: true reads the item's `draft` version over main (main when it has none).
      const [draft] = await readAsSite(db, siteOf(req), (trx) =>
        listItemVersions(trx, siteOf(req), s.collection.name, req.params.id, 'draft'),
      );
      if (!draft) return { data: item, meta: { draft: false } };
      return { data: { ...item, ...(await show(req, s, { ...draft.data, id: item.id })) }, meta: { draft: true } };
    },
  );

  /** The item as it was (DESIGN §5 time travel): 404 before it existed and while it was deleted. */
  const itemAsOf = async (
    req: FastifyRequest,
    s: CollectionSchema,
    id: string,
    at: { asOf: Date | null; version: number | null },
  ) => {
    const found = await readAsSite(db, siteOf(req), (trx) =>
      revisionAt(trx, siteOf(req), s.collection.name, id, {
        asOf: at.asOf ?? undefined,
        version: at.version ?? undefined,
      }),
    );
    if (!found || found.revision.action === 'delete') throw new ItemAbsentThen({ id });
    const { revision, first } = found;
    return translateRecord(
      {
        ...revision.data,
        id,
        created_at: first.timestamp,
        created_by: first.actor.id,
        updated_at: revision.timestamp,
        updated_by: revision.actor.id,
      },
      readHeaders(req).locale,
    );
  };

  // A singleton's one record: PATCH creates it on first write (defaults and required fields apply), then updates it.
  app.patch(
    '/api/v1/items/:collection',
    {
      schema: {
        tags,
        summary: "Write a singleton's record",
        params: CollectionParams,
        body: z.record(z.string(), z.unknown()),
        response: { 200: ItemWriteBody.extend({ data: ItemRecord.nullable() }) },
      },
    },
    async (req) => {
      const s = await guard.collection(req, req.params.collection);
      if (!s.collection.singleton) throw new NotASingleton({ collection: s.collection.name });
      const { id: _ignored, ...values } = req.body;
      const id = singletonId(s);
      const scope = await guard.authorizeWrite(req, s, 'update', id, values);
      // Through the list query and before the write: a caller who may not read the singleton is refused (403) first.
      const current = (await one(req, s, id, {})) ?? {};
      await guard.checkValidation(req, s, id, { ...current, ...values }, scope);
      const res = await upsertSingleton(deps, commandContext(req, deps.clock), { schema: s, id, changes: values });
      return { data: await one(req, s, id, {}), meta: writeMeta(res) };
    },
  );

  await app.register(itemWriteRoutes, deps);
  await app.register(dependentsRoutes, deps);
  await app.register(historyRoutes, deps);
  await app.register(versionsRoutes, deps);
};
