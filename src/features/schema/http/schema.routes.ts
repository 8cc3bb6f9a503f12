import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { newId } from '../../../kernel/ids.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import * as q from '../../../../projections/schema/index.ts';
import * as commands from '../schema.commands.ts';
import { CollectionNotFound, FieldNotFound } from '../schema.errors.ts';
import { CreateRelationBody, relationFromBody } from './relation.body.ts';
import * as s from './schema.schemas.ts';

const admin = { caller: 'site-admin' as const };
const found = <T>(v: T | null, missing: () => Error): T => {
  if (v === null) throw missing();
  return v;
};

export const schemaRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { db, clock } = deps;
  const ctx = (req: FastifyRequest) => commandContext(req, clock);
  const read = <T>(
    req: FastifyRequest,
    fn: (trx: Parameters<Parameters<typeof readAsSite>[2]>[0], siteId: string) => Promise<T>,
  ) => readAsSite(db, siteOf(req), (trx) => fn(trx, siteOf(req)));
  const tags = ['schema'];

  app.get(
    '/api/v1/collections',
    { schema: { tags, summary: 'List collections', response: { 200: listEnvelope(s.CollectionRecord, s.TotalMeta) } } },
    async (req) => {
      const data = await read(req, (trx, site) => q.listCollections(trx, site));
      return { data, meta: { total: data.length } };
    },
  );
  app.get(
    '/api/v1/collections/:name',
    {
      schema: {
        tags,
        summary: 'Read a collection',
        params: s.CollectionParams,
        response: { 200: dataEnvelope(s.CollectionRecord) },
      },
    },
    async (req) => ({
      data: found(
        await read(req, (trx, site) => q.findCollection(trx, site, req.params.name)),
        () => new CollectionNotFound({ name: req.params.name }),
      ),
    }),
  );
  app.post(
    '/api/v1/collections',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Create a collection',
        body: s.CreateCollectionBody,
        response: { 201: dataEnvelope(s.CollectionRecord.nullable(), 'Created') },
      },
    },
    async (req, reply) => {
      await commands.createCollection(deps, ctx(req), req.body);
      reply.status(201);
      return { data: await read(req, (trx, site) => q.findCollection(trx, site, req.body.name)) };
    },
  );
  app.patch(
    '/api/v1/collections/:name',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Update a collection',
        params: s.CollectionParams,
        body: s.UpdateCollectionBody,
        response: { 200: dataEnvelope(s.CollectionRecord.nullable()) },
      },
    },
    async (req) => {
      await commands.updateCollection(deps, ctx(req), req.params.name, req.body);
      return { data: await read(req, (trx, site) => q.findCollection(trx, site, req.params.name)) };
    },
  );
  app.delete(
    '/api/v1/collections/:name',
    {
      config: admin,
      schema: { tags, summary: 'Delete a collection (soft)', params: s.CollectionParams, response: { 204: NoContent } },
    },
    async (req, reply) => {
      await commands.deleteCollection(deps, ctx(req), req.params.name);
      return reply.status(204).send();
    },
  );

  app.get(
    '/api/v1/fields/:collection',
    {
      schema: {
        tags,
        summary: 'List the fields of a collection',
        params: s.FieldParams,
        response: { 200: listEnvelope(s.FieldRecord, s.TotalMeta) },
      },
    },
    async (req) => {
      const data = await read(req, async (trx, site) => {
        const name = req.params.collection;
        found(await q.findCollection(trx, site, name), () => new CollectionNotFound({ name }));
        return q.listFields(trx, site, req.params.collection);
      });
      return { data, meta: { total: data.length } };
    },
  );
  app.get(
    '/api/v1/fields/:collection/:field',
    {
      schema: {
        tags,
        summary: 'Read a field',
        params: s.FieldItemParams,
        response: { 200: dataEnvelope(s.FieldRecord) },
      },
    },
    async (req) => ({
      data: found(
        await read(req, (trx, site) => q.findField(trx, site, req.params.collection, req.params.field)),
        () => new FieldNotFound({ field: req.params.field }),
      ),
    }),
  );
  app.post(
    '/api/v1/fields/:collection',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Add a field',
        params: s.FieldParams,
        body: s.CreateFieldBody,
        response: { 201: dataEnvelope(s.FieldRecord.nullable(), 'Created') },
      },
    },
    async (req, reply) => {
      const { collection } = req.params;
      await commands.createField(deps, ctx(req), collection, req.body);
      reply.status(201);
      return { data: await read(req, (trx, site) => q.findField(trx, site, collection, req.body.field)) };
    },
  );
  app.patch(
    '/api/v1/fields/:collection/:field',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Update a field',
        params: s.FieldItemParams,
        body: s.UpdateFieldBody,
        response: { 200: dataEnvelope(s.FieldRecord.nullable()) },
      },
    },
    async (req) => {
      const { collection, field } = req.params;
      await commands.updateField(deps, ctx(req), { collection, field }, req.body);
      return { data: await read(req, (trx, site) => q.findField(trx, site, collection, field)) };
    },
  );
  app.delete(
    '/api/v1/fields/:collection/:field',
    {
      config: admin,
      schema: { tags, summary: 'Remove a field', params: s.FieldItemParams, response: { 204: NoContent } },
    },
    async (req, reply) => {
      await commands.deleteField(deps, ctx(req), req.params);
      return reply.status(204).send();
    },
  );

  app.get(
    '/api/v1/relations',
    { schema: { tags, summary: 'List relations', response: { 200: listEnvelope(s.RelationRecord, s.TotalMeta) } } },
    async (req) => {
      const data = await read(req, (trx, site) => q.listRelations(trx, site));
      return { data, meta: { total: data.length } };
    },
  );
  app.post(
    '/api/v1/relations',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Create a relation',
        body: CreateRelationBody,
        response: { 201: dataEnvelope(s.RelationRecord.nullable(), 'Created') },
      },
    },
    async (req, reply) => {
      const relation = relationFromBody(req.body, newId());
      await commands.createRelation(deps, ctx(req), relation);
      reply.status(201);
      return { data: await read(req, (trx, site) => q.findRelation(trx, site, relation.id)) };
    },
  );
  app.patch(
    '/api/v1/relations/:id',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Update a relation',
        params: s.RelationParams,
        body: s.UpdateRelationBody,
        response: { 200: dataEnvelope(s.RelationRecord.nullable()) },
      },
    },
    async (req) => {
      await commands.updateRelation(deps, ctx(req), req.params.id, req.body);
      return { data: await read(req, (trx, site) => q.findRelation(trx, site, req.params.id)) };
    },
  );
  app.delete(
    '/api/v1/relations/:id',
    {
      config: admin,
      schema: { tags, summary: 'Remove a relation', params: s.RelationParams, response: { 204: NoContent } },
    },
    async (req, reply) => {
      await commands.deleteRelation(deps, ctx(req), req.params.id);
      return reply.status(204).send();
    },
  );
};
