import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { roleOn } from '../../../kernel/auth/actor.ts';
import { handleCommand } from '../../../kernel/es/handle-command.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { commandMeta } from '../../../kernel/http/command-meta.ts';
import { DomainError, forbidden } from '../../../kernel/http/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import { withSite } from '../../../kernel/tenancy/site.ts';
import { findCollection, listFields, type CollectionRecord } from '../../../../projections/schema/schema.queries.ts';
import { findItem, listItems } from '../../../../projections/item-documents/item-documents.queries.ts';
import type { FieldTypes } from '../../../../projections/item-documents/item-filter.ts';
import type { FieldDef } from '../../schema/schema.types.ts';
import { itemDecider, type ItemCommand } from '../item.decider.ts';
import { itemStream, type ItemValues } from '../item.events.ts';
import { parseItemQuery } from './item-query.params.ts';
import { valueProblems, withDefaults } from '../item.values.ts';

const name = z.string().regex(/^[a-z][a-z0-9_]{0,62}$/);
const CollectionParams = z.object({ collection: name });
const ItemParams = z.object({ collection: name, id: z.string().min(1).max(128) });
const Values = z.record(z.string(), z.unknown());
const CreateBody = z.union([Values, z.array(Values).min(1).max(500)]);
const WRITERS = new Set(['admin', 'site_admin', 'editor']);

interface Schema {
  collection: CollectionRecord;
  fields: FieldDef[];
  types: FieldTypes;
}

export const itemsRoutes: FastifyPluginAsync<AppDeps> = async (plain, { db, store, clock }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const tags = ['items'];

  const schemaOf = async (req: FastifyRequest, collection: string): Promise<Schema> => {
    const siteId = siteOf(req);
    return withSite(db, siteId, async (trx) => {
      const c = await findCollection(trx, siteId, collection);
      if (!c) throw new DomainError('NOT_FOUND', `collection ${collection} not found`, { path: ['collection'] });
      const fields = await listFields(trx, siteId, collection);
      const types: FieldTypes = new Map(fields.map((f) => [f.field, f.type]));
      types.set('status', 'string').set('sort', 'integer');
      return { collection: c, fields, types };
    });
  };
  const mayWrite = (req: FastifyRequest) => {
    if (!WRITERS.has(roleOn(actorOf(req), siteOf(req)) ?? '')) throw forbidden('your role may not change items');
  };
  const send = async (
    req: FastifyRequest,
    collection: string,
    id: string,
    make: (ctx: { collection: string; id: string; fields: FieldDef[]; now: string; by: string }) => ItemCommand,
    fields: FieldDef[],
  ) => {
    const siteId = siteOf(req);
    const now = clock.now();
    const ctx = { collection, id, fields, now: now.toISOString(), by: actorOf(req).id };
    const res = await handleCommand(store, itemDecider, itemStream(siteId, collection, id), make(ctx), {
      metadata: commandMeta(req, siteId, now),
    });
    return res;
  };
  const read = (req: FastifyRequest, collection: string, id: string) =>
    withSite(db, siteOf(req), (trx) => findItem(trx, siteOf(req), collection, id));

  app.get('/api/v1/items/:collection', { schema: { tags, params: CollectionParams } }, async (req) => {
    const q = parseItemQuery(req.query as Record<string, string>);
    const { types } = await schemaOf(req, req.params.collection);
    const { items, total } = await withSite(db, siteOf(req), (trx) =>
      listItems(trx, siteOf(req), req.params.collection, q, types),
    );
    return { data: items, meta: { ...(total === null ? {} : { total }), limit: q.limit, offset: q.offset } };
  });

  app.get('/api/v1/items/:collection/:id', { schema: { tags, params: ItemParams } }, async (req) => {
    await schemaOf(req, req.params.collection);
    const item = await read(req, req.params.collection, req.params.id);
    if (!item) throw new DomainError('RECORD_NOT_FOUND', `item ${req.params.id} not found`);
    return { data: item.record };
  });

  app.post(
    '/api/v1/items/:collection',
    { schema: { tags, params: CollectionParams, body: CreateBody } },
    async (req, reply) => {
      mayWrite(req);
      const { collection, fields } = await schemaOf(req, req.params.collection);
      const bodies = Array.isArray(req.body) ? req.body : [req.body];
      const prepared = bodies.map((b, i) => ({ ...splitId(collection, b, i), index: i }));
      // Bulk is all or nothing: validate every item first, then write.
      const problems = prepared.flatMap((p) => validationOf(p.values, fields, p.index, Array.isArray(req.body)));
      if (problems.length)
        throw new DomainError('VALIDATION_FAILED', `${problems.length} invalid value(s)`, { errors: problems });
      const ids: string[] = [];
      for (const p of prepared) {
        await send(
          req,
          collection.name,
          p.id,
          (ctx) => ({ type: 'CreateItem', data: { ...ctx, values: p.values } }),
          fields,
        );
        ids.push(p.id);
      }
      reply.status(201);
      const records = await Promise.all(ids.map(async (id) => (await read(req, collection.name, id))!.record));
      return { data: Array.isArray(req.body) ? records : records[0] };
    },
  );

  app.patch('/api/v1/items/:collection/:id', { schema: { tags, params: ItemParams, body: Values } }, async (req) => {
    mayWrite(req);
    const { fields } = await schemaOf(req, req.params.collection);
    const { id: _ignored, ...changes } = req.body;
    const res = await send(
      req,
      req.params.collection,
      req.params.id,
      (ctx) => ({ type: 'UpdateItem', data: { ...ctx, changes } }),
      fields,
    );
    return { data: (await read(req, req.params.collection, req.params.id))!.record, meta: { version: res.version } };
  });

  app.put('/api/v1/items/:collection/:id', { schema: { tags, params: ItemParams, body: Values } }, async (req) => {
    mayWrite(req);
    const { fields } = await schemaOf(req, req.params.collection);
    const { id: _ignored, ...values } = req.body;
    const res = await send(
      req,
      req.params.collection,
      req.params.id,
      (ctx) => ({ type: 'ReplaceItem', data: { ...ctx, values } }),
      fields,
    );
    return { data: (await read(req, req.params.collection, req.params.id))!.record, meta: { version: res.version } };
  });

  app.delete('/api/v1/items/:collection/:id', { schema: { tags, params: ItemParams } }, async (req, reply) => {
    mayWrite(req);
    const { fields } = await schemaOf(req, req.params.collection);
    await send(req, req.params.collection, req.params.id, (ctx) => ({ type: 'DeleteItem', data: ctx }), fields);
    return reply.status(204).send();
  });
};

/** The record id: random by default, a UUID for uuid keys, given by the client for integer keys. */
function splitId(c: CollectionRecord, body: ItemValues, index: number): { id: string; values: ItemValues } {
  const { id, ...values } = body;
  if (c.primaryKeyType === 'integer' || c.primaryKeyType === 'bigInteger') {
    if (!Number.isSafeInteger(id)) {
      throw new DomainError('VALIDATION_FAILED', 'this collection has integer keys: send an integer id', {
        path: [String(index), 'id'],
      });
    }
    return { id: String(id), values };
  }
  if (id !== undefined && (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(id))) {
    throw new DomainError('VALIDATION_FAILED', 'id must be 1–128 letters, digits, _ or -', {
      path: [String(index), 'id'],
    });
  }
  return { id: (id as string | undefined) ?? (c.primaryKeyType === 'uuid' ? randomUUID() : newId()), values };
}

function validationOf(values: ItemValues, fields: FieldDef[], index: number, bulk: boolean) {
  return valueProblems(fields, withDefaults(fields, values), 'full').map((p) => ({
    ...p,
    path: bulk ? [String(index), ...p.path] : p.path,
  }));
}
