import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { checkCallerKey } from '../../../platform/http/caller-key.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { deltaOf } from '../../../../projections/item-revisions/index.ts';
import { listItemVersions, revisionCount } from '../../../../projections/item-versions/index.ts';
import { createVersion, deleteVersion, updateVersion } from '../item-versions.commands.ts';
import { promoteVersion } from '../item.commands.ts';
import { isVersioned } from '../../../contracts/schema/schema.types.ts';
import { ItemNotFound, VersioningOff, VersionNotFound } from '../item.errors.ts';
import { itemGuard } from '../item.guard.ts';
import { checkReferences } from '../item.references.ts';
import { present, writeMeta } from '../item.present.ts';
import { readItem, type CollectionSchema } from '../item.reads.ts';
import {
  dataEnvelope,
  errorEnvelope,
  listEnvelope,
  NoContent,
  TotalMeta,
  wholeList,
} from '../../../kernel/http/envelope.ts';
import { PromoteBody, VersionCompareBody, VersionRecord } from './items.schemas.ts';
import { ItemParams } from './item-params.ts';

const key = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'keys are 1–64 letters, digits, _ or -')
  .superRefine(checkCallerKey);
const VersionParams = ItemParams.extend({ key });
const CreateBody = z.object({ key, name: z.string().min(1).max(200) }).strict();
const UpdateBody = z
  .object({ name: z.string().min(1).max(200).optional(), data: z.record(z.string(), z.unknown()).optional() })
  .strict()
  .refine((b) => b.name !== undefined || b.data !== undefined, { message: 'send name or data' });

/** Named versions of an item: drafts beside main, compared with it, promoted onto it (spec "Items"). */
export const versionsRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const tags = ['items'];
  const { db } = deps;
  const guard = itemGuard(deps);
  const { authorizeWrite } = guard;
  const show = <T>(req: FastifyRequest, s: CollectionSchema, records: T) => present(deps, req, s, records);
  // A collection with versioning off has no named versions: each route is refused once the collection is resolved.
  const versioned = async (req: FastifyRequest, collection: string) => {
    const s = await guard.collection(req, collection);
    if (!isVersioned(s.collection))
      throw new VersioningOff({ collection: s.collection.name, path: ['params', 'collection'] });
    return s;
  };
  const base = '/api/v1/items/:collection/:id/versions';

  // Every route reads main first: outside the caller's read conditions the item and its versions are 404.
  const main = async (req: FastifyRequest, s: CollectionSchema, id: string) => {
    await guard.checkVisible(req, s, id);
    const item = await readItem(deps, siteOf(req), s.collection.name, id);
    if (!item) throw new ItemNotFound({ id });
    return item;
  };
  const versions = (req: FastifyRequest, s: CollectionSchema, id: string, k?: string) =>
    readAsSite(db, siteOf(req), (trx) => listItemVersions(trx, siteOf(req), s.collection.name, id, k));
  const stored = async (req: FastifyRequest, s: CollectionSchema, id: string, k: string) => {
    const [v] = await versions(req, s, id, k);
    if (!v) throw new VersionNotFound({ key: k, itemId: id });
    return v;
  };
  const version = async (req: FastifyRequest, s: CollectionSchema, id: string, k: string) => {
    const v = await stored(req, s, id, k);
    return { ...v, data: await show(req, s, { ...v.data, id }) };
  };

  app.get(
    base,
    {
      schema: {
        tags,
        summary: 'List the named versions of an item',
        params: ItemParams,
        response: { 200: listEnvelope(VersionRecord, TotalMeta) },
      },
    },
    async (req) => {
      const s = await versioned(req, req.params.collection);
      await main(req, s, req.params.id);
      const list = await versions(req, s, req.params.id);
      const data = await Promise.all(
        list.map(async (v) => ({ ...v, data: await show(req, s, { ...v.data, id: req.params.id }) })),
      );
      return wholeList(data);
    },
  );

  app.post(
    base,
    {
      schema: {
        tags,
        summary: 'Create a named version (a snapshot of main)',
        params: ItemParams,
        body: CreateBody,
        response: { 201: dataEnvelope(VersionRecord, 'Created') },
      },
    },
    async (req, reply) => {
      const s = await versioned(req, req.params.collection);
      const { id } = req.params;
      const item = await main(req, s, id);
      await authorizeWrite(req, s, 'update', id);
      const count = await readAsSite(db, siteOf(req), (trx) => revisionCount(trx, siteOf(req), s.collection.name, id));
      const { key: k, name } = req.body;
      const input = { schema: s, id, key: k, name, data: item.data, base: count };
      await createVersion(deps, commandContext(req, deps.clock), input);
      reply.status(201);
      return { data: await version(req, s, id, k) };
    },
  );

  app.get(
    `${base}/:key`,
    {
      schema: {
        tags,
        summary: 'Read a named version',
        params: VersionParams,
        response: { 200: dataEnvelope(VersionRecord) },
      },
    },
    async (req) => {
      const s = await versioned(req, req.params.collection);
      await main(req, s, req.params.id);
      return { data: await version(req, s, req.params.id, req.params.key) };
    },
  );

  app.patch(
    `${base}/:key`,
    {
      schema: {
        tags,
        summary: 'Update a named version (main is untouched)',
        params: VersionParams,
        body: UpdateBody,
        // 422: a relation value that names no item the caller may read (also at promote).
        response: { 200: dataEnvelope(VersionRecord), 422: errorEnvelope(422) },
      },
    },
    async (req) => {
      const s = await versioned(req, req.params.collection);
      const { id, key: k } = req.params;
      const { id: _ignored, ...changes } = req.body.data ?? {};
      await main(req, s, id);
      await authorizeWrite(req, s, 'update', id, changes, ['data']);
      // A version is promoted onto main later: a value it could never be written with is refused now, at its path.
      const write = { collection: s.collection.name, values: changes, path: ['data'] };
      await checkReferences(deps, siteOf(req), req, s.schema, [write]);
      const input = { schema: s, id, key: k, name: req.body.name, changes: req.body.data ? changes : undefined };
      await updateVersion(deps, commandContext(req, deps.clock), input);
      return { data: await version(req, s, id, k) };
    },
  );

  app.delete(
    `${base}/:key`,
    { schema: { tags, summary: 'Delete a named version', params: VersionParams, response: { 204: NoContent } } },
    async (req, reply) => {
      const s = await versioned(req, req.params.collection);
      const { id, key: k } = req.params;
      await main(req, s, id);
      await authorizeWrite(req, s, 'update', id);
      await deleteVersion(deps, commandContext(req, deps.clock), { schema: s, id, key: k });
      return reply.status(204).send();
    },
  );

  // The difference is taken on the stored values, then shown like any record: hidden fields go, and an encrypted
  // value that changed reads in clear only for those who may decrypt it.
  app.get(
    `${base}/:key/compare`,
    {
      schema: {
        tags,
        summary: 'Compare a named version with main',
        params: VersionParams,
        response: { 200: VersionCompareBody },
      },
    },
    async (req) => {
      const s = await versioned(req, req.params.collection);
      const { id, key: k } = req.params;
      const item = await main(req, s, id);
      const v = await stored(req, s, id, k);
      const mainValues = { ...item.data, id };
      const [shownMain, shownVersion, shownChanges] = await show(req, s, [
        mainValues,
        { ...v.data, id },
        { ...deltaOf(mainValues, { ...v.data, id }), id },
      ]);
      const { id: _id, ...changes } = shownChanges!;
      return {
        data: { main: shownMain, version: shownVersion, changes },
        meta: { mainChanged: v.mainChanged },
      };
    },
  );

  app.post(
    `${base}/:key/promote`,
    {
      schema: {
        tags,
        summary: 'Promote a named version to main',
        params: VersionParams,
        response: { 200: PromoteBody, 422: errorEnvelope(422) },
      },
    },
    async (req) => {
      const s = await versioned(req, req.params.collection);
      const { id, key: k } = req.params;
      const item = await main(req, s, id);
      const v = await stored(req, s, id, k);
      // Promoting writes what the version changes on main: the same checks as a PATCH of that change.
      const { id: _id, ...change } = deltaOf(item.data, v.data);
      const scope = await authorizeWrite(req, s, 'update', id, change);
      await guard.checkValidation(req, s, id, v.data, scope);
      // Its relations are judged now, as the caller: a target deleted since the version was edited, or one the
      // caller may not read, is refused as that PATCH would be.
      const check = await checkReferences(deps, siteOf(req), req, s.schema, [
        { collection: s.collection.name, values: change, path: [] },
      ]);
      const ctx = commandContext(req, deps.clock);
      const input = { schema: s, id, key: k, values: v.data, diverged: v.mainChanged };
      const res = await promoteVersion(deps, ctx, input, check);
      const record = (await readItem(deps, ctx.siteId, s.collection.name, id))!.record;
      return { data: await show(req, s, record), meta: { mainDiverged: v.mainChanged, ...writeMeta(res) } };
    },
  );
};
