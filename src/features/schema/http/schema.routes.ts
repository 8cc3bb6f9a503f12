import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { handleCommand } from '../../../kernel/es/handle-command.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { newId } from '../../../kernel/ids.ts';
import { withSite } from '../../../kernel/tenancy/site.ts';
import * as q from '../../../../projections/schema/index.ts';
import { schemaDecider, type SchemaCommand } from '../schema.decider.ts';
import { CollectionNotFound, FieldNotFound } from '../schema.errors.ts';
import { schemaStream } from '../schema.events.ts';
import type { FieldDef } from '../schema.types.ts';
import { CreateRelationBody, relationFromBody } from './relation.body.ts';
import * as s from './schema.schemas.ts';

const admin = { caller: 'site-admin' as const };
const found = <T>(v: T | null, missing: () => Error): T => {
  if (v === null) throw missing();
  return v;
};

export const schemaRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { db, store, clock } = deps;
  const run = async (req: FastifyRequest, make: (now: string) => SchemaCommand) => {
    const ctx = commandContext(req, clock);
    await handleCommand(store, schemaDecider, schemaStream(ctx.siteId), make(ctx.now.toISOString()), {
      metadata: ctx.metadata,
    });
  };
  const read = <T>(
    req: FastifyRequest,
    fn: (trx: Parameters<Parameters<typeof withSite>[2]>[0], siteId: string) => Promise<T>,
  ) => withSite(db, siteOf(req), (trx) => fn(trx, siteOf(req)));
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
      const b = req.body;
      const collection = { displayName: null, icon: null, note: null, status_field: null, sort_field: null, ...b };
      await run(req, (now) => ({ type: 'CreateCollection', data: { collection, now } }));
      reply.status(201);
      return { data: await read(req, (trx, site) => q.findCollection(trx, site, b.name)) };
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
      await run(req, (now) => ({ type: 'UpdateCollection', data: { name: req.params.name, changes: req.body, now } }));
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
      await run(req, (now) => ({ type: 'DeleteCollection', data: { name: req.params.name, now } }));
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
      const b = req.body;
      const field: FieldDef = {
        choices: null,
        interface: null,
        display: null,
        options: {},
        required: false,
        nullable: true,
        readonly: false,
        encrypted: false,
        unique: false,
        sort: null,
        ...b,
        default: b.default ?? null,
      };
      await run(req, (now) => ({ type: 'CreateField', data: { collection: req.params.collection, field, now } }));
      reply.status(201);
      return { data: await read(req, (trx, site) => q.findField(trx, site, req.params.collection, b.field)) };
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
      await run(req, (now) => ({ type: 'UpdateField', data: { collection, field, changes: req.body, now } }));
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
      await run(req, (now) => ({ type: 'DeleteField', data: { ...req.params, now } }));
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
      await run(req, (now) => ({ type: 'CreateRelation', data: { relation, now } }));
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
      await run(req, (now) => ({ type: 'UpdateRelation', data: { id: req.params.id, changes: req.body, now } }));
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
      await run(req, (now) => ({ type: 'DeleteRelation', data: { id: req.params.id, now } }));
      return reply.status(204).send();
    },
  );
};
