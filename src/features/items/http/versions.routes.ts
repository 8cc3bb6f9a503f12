import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { handleCommand } from '../../../kernel/es/handle-command.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { commandMeta } from '../../../kernel/http/command-meta.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { withSite } from '../../../kernel/tenancy/site.ts';
import { deltaOf } from '../../../../projections/item-revisions/index.ts';
import { listItemVersions, revisionCount } from '../../../../projections/item-versions/index.ts';
import { itemVersionsDecider, itemVersionsStream, type ItemVersionCommand } from '../item-versions.ts';
import { valueProblems } from '../item.values.ts';
import { itemContext, type CollectionSchema } from './item-context.ts';
import { dataEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { PromoteBody, VersionCompareBody, VersionRecord } from './items.schemas.ts';
import { ItemParams } from './item-params.ts';

const key = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'keys are 1–64 letters, digits, _ or -');
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
  const { db, store, clock } = deps;
  const { schemaOf, send, read, seal, present, checkVisible, authorizeWrite, checkValidation } = itemContext(deps);
  const base = '/api/v1/items/:collection/:id/versions';

  // Every route reads main first: outside the caller's read conditions the item and its versions are 404.
  const main = async (req: FastifyRequest, s: CollectionSchema, id: string) => {
    await checkVisible(req, s, id);
    const item = await read(req, s.collection.name, id);
    if (!item) throw new DomainError('RECORD_NOT_FOUND', `item ${id} not found`);
    return item;
  };
  const versions = (req: FastifyRequest, s: CollectionSchema, id: string, k?: string) =>
    withSite(db, siteOf(req), (trx) => listItemVersions(trx, siteOf(req), s.collection.name, id, k));
  const stored = async (req: FastifyRequest, s: CollectionSchema, id: string, k: string) => {
    const [v] = await versions(req, s, id, k);
    if (!v) throw new DomainError('NOT_FOUND', `version ${k} of item ${id} not found`, { path: ['key'] });
    return v;
  };
  const version = async (req: FastifyRequest, s: CollectionSchema, id: string, k: string) => {
    const v = await stored(req, s, id, k);
    return { ...v, data: await present(req, s, { ...v.data, id }) };
  };
  const command = (
    req: FastifyRequest,
    s: CollectionSchema,
    id: string,
    make: (at: { collection: string; id: string; at: string; by: string }) => ItemVersionCommand,
  ) => {
    const now = clock.now();
    const at = { collection: s.collection.name, id, at: now.toISOString(), by: actorOf(req).id };
    return handleCommand(store, itemVersionsDecider, itemVersionsStream(siteOf(req), s.collection.name, id), make(at), {
      metadata: commandMeta(req, siteOf(req), now),
    });
  };

  app.get(
    base,
    {
      schema: {
        tags,
        summary: 'List the named versions of an item',
        params: ItemParams,
        response: { 200: dataEnvelope(z.array(VersionRecord)) },
      },
    },
    async (req) => {
      const s = await schemaOf(req, req.params.collection);
      await main(req, s, req.params.id);
      const list = await versions(req, s, req.params.id);
      const data = await Promise.all(
        list.map(async (v) => ({ ...v, data: await present(req, s, { ...v.data, id: req.params.id }) })),
      );
      return { data };
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
      const s = await schemaOf(req, req.params.collection);
      const { id } = req.params;
      const item = await main(req, s, id);
      await authorizeWrite(req, s, 'update', id);
      const count = await withSite(db, siteOf(req), (trx) => revisionCount(trx, siteOf(req), s.collection.name, id));
      await command(req, s, id, (at) => ({
        type: 'CreateVersion',
        data: { ...at, key: req.body.key, name: req.body.name, data: item.data, base: count },
      }));
      reply.status(201);
      return { data: await version(req, s, id, req.body.key) };
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
      const s = await schemaOf(req, req.params.collection);
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
        response: { 200: dataEnvelope(VersionRecord) },
      },
    },
    async (req) => {
      const s = await schemaOf(req, req.params.collection);
      const { id, key: k } = req.params;
      const { id: _ignored, ...changes } = req.body.data ?? {};
      await main(req, s, id);
      await authorizeWrite(req, s, 'update', id, changes, ['data']);
      const problems = valueProblems(s.fields, changes, 'partial').map((p) => ({ ...p, path: ['data', ...p.path] }));
      if (problems.length)
        throw new DomainError('VALIDATION_FAILED', problems.map((p) => p.message).join('; '), { errors: problems });
      const sealed = req.body.data ? seal(req, s, id, changes, ['data']) : undefined;
      await command(req, s, id, (at) => ({
        type: 'UpdateVersion',
        data: { ...at, key: k, name: req.body.name, changes: sealed },
      }));
      return { data: await version(req, s, id, k) };
    },
  );

  app.delete(
    `${base}/:key`,
    { schema: { tags, summary: 'Delete a named version', params: VersionParams, response: { 204: NoContent } } },
    async (req, reply) => {
      const s = await schemaOf(req, req.params.collection);
      await main(req, s, req.params.id);
      await authorizeWrite(req, s, 'update', req.params.id);
      await command(req, s, req.params.id, (at) => ({ type: 'DeleteVersion', data: { ...at, key: req.params.key } }));
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
      const s = await schemaOf(req, req.params.collection);
      const { id, key: k } = req.params;
      const item = await main(req, s, id);
      const v = await stored(req, s, id, k);
      const mainValues = { ...item.data, id };
      const [shownMain, shownVersion, shownChanges] = await present(req, s, [
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
        response: { 200: PromoteBody },
      },
    },
    async (req) => {
      const s = await schemaOf(req, req.params.collection);
      const { id, key: k } = req.params;
      const item = await main(req, s, id);
      const v = await stored(req, s, id, k);
      // Promoting writes what the version changes on main: the same checks as a PATCH of that change.
      const { id: _id, ...change } = deltaOf(item.data, v.data);
      const scope = await authorizeWrite(req, s, 'update', id, change);
      await checkValidation(req, s, id, v.data, scope);
      const res = await send(
        req,
        s.collection.name,
        id,
        (ctx) => ({ type: 'PromoteVersion', data: { ...ctx, key: k, values: v.data, diverged: v.mainChanged } }),
        s.fields,
      );
      return {
        data: await present(req, s, (await read(req, s.collection.name, id))!.record),
        meta: { mainDiverged: v.mainChanged, version: res.version, revisionId: res.events.at(-1)?.eventId ?? null },
      };
    },
  );
};
